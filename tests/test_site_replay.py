"""The crawl's site check and the fitting replay decide a site's pages by one waiting room: every dev
site of the whole-site corpus, in crawl order and shuffled, fed one page after another to the
crawl's ``SiteCheck`` (a Scrapy crawler with its engine, waiting on, on a running event loop) and to
``training.site_memory.replay``, gets the same verdict and probability for every page; and
``extract(..., memory=...)`` is the same as the crawl with no page waiting."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler

from scrapy_bodytext.api import with_site_memory
from scrapy_bodytext.plugin.settings import load_settings
from scrapy_bodytext.plugin.sites import SiteCheck
from scrapy_bodytext.plugin.spidermiddlewares import Page
from scrapy_bodytext.sites import SiteMemory, load_weights
from scrapy_bodytext.training.site_memory import crawl_order, replay, shuffled_order
from scrapy_bodytext.training.site_pages import load_site_pages

SITES = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "sites"

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def sites(request) -> dict[str, tuple]:
    if not (SITES / "index.jsonl").is_file():
        pytest.skip(f"whole-site corpus not found at {SITES}")
    cache = request.config.cache.mkdir("site-pages") / "pages.pickle"  # extracted once, kept between runs
    grouped: dict[str, list] = {}
    for page in load_site_pages(SITES, cache):
        grouped.setdefault(page.site, []).append(page)
    return {name: tuple(found) for name, found in grouped.items()}


def crawled(pages, order, **settings) -> list:
    """The pages in ``order`` through the crawl's site check (waiting on, 16 pages): each page's
    result as its item gets it, in ``order``."""
    crawler = get_crawler(Spider, settings_dict={"ADDONS": {"scrapy_bodytext.Addon": 0}, **settings})
    crawler.engine = crawler._create_engine()  # a crawl's engine: pages may wait
    crawler.stats.open_spider()

    async def run():
        check = SiteCheck(load_settings(crawler.settings), crawler, lambda *line: None)
        check.open()
        assert check.room is not None and check.room.capacity == crawler.settings.getint("BODYTEXT_SITE_WAIT_PAGES", 16)
        items = [
            asyncio.ensure_future(check.decide(Page(pages[i].url, None, None, None), pages[i].result)) for i in order
        ]
        await asyncio.sleep(0)  # every page asked, one after another, before any release by time
        await check.close()
        return await asyncio.gather(*items)

    return asyncio.run(run())


@pytest.mark.parametrize("how", ("crawl order", "shuffled"))
def test_the_crawl_and_the_replay_give_every_page_the_same_verdict(sites, how):
    weights = load_weights()
    differ = []
    for name, pages in sites.items():
        order = crawl_order(pages) if how == "crawl order" else shuffled_order(pages)
        replayed = replay(pages, order, weights)
        for i, outcome, result in zip(order, replayed, crawled(pages, order)):
            same = outcome.kept == result.is_article and outcome.probability == pytest.approx(
                result.article_probability, abs=1e-12
            )
            if not same:
                differ.append((name, pages[i].url, outcome.kept, result.is_article))
    assert not differ, differ[:10]


def test_extract_with_memory_is_the_crawl_without_waiting(sites):
    """Capped pages included: the same final result, text and all, with no page waiting."""
    for pages in sites.values():
        order = crawl_order(pages)
        memory = SiteMemory()
        alone = [with_site_memory(pages[i].result, memory, pages[i].url) for i in order]
        for one, other in zip(alone, crawled(pages, order, BODYTEXT_SITE_WAIT_PAGES=0)):
            assert (one.is_article, one.article_probability, one.text) == (
                other.is_article,
                other.article_probability,
                other.text,
            )
