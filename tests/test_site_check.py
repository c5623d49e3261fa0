"""The crawl's ``SiteCheck`` around its store thread: a page's items share one answer, each awaiting
its own copy (one item cancelled never cancels the others'), and a page asked after the close keeps
its own verdict at once. A real memory in a real redis-server, asked from the check's own thread."""

from __future__ import annotations

import asyncio
import threading

import pytest
from scrapy import Spider
from scrapy.utils.test import get_crawler
from test_redis import free_port, redis_url  # noqa: F401 - the fixture: a redis-server of its own
from test_sites import result

from scrapy_bodytext.plugin.settings import load_settings
from scrapy_bodytext.plugin.sites import SiteCheck
from scrapy_bodytext.plugin.spidermiddlewares import Page


def site_check(redis_url: str) -> SiteCheck:  # noqa: F811
    crawler = get_crawler(
        Spider,
        settings_dict={
            "ADDONS": {"scrapy_bodytext.Addon": 0},
            "BODYTEXT_SITE_MEMORY_REDIS_URL": redis_url,
            "BODYTEXT_SITE_MEMORY_REDIS_PREFIX": f"test:check:{free_port()}",
        },
    )
    crawler.stats.open_spider()
    lines: list[str] = []
    check = SiteCheck(
        load_settings(crawler.settings), crawler, lambda level, message, *args: lines.append(message % args)
    )
    check.lines = lines
    return check


@pytest.mark.redis
def test_one_item_cancelled_leaves_the_pages_other_items_their_answer(redis_url):  # noqa: F811
    check = site_check(redis_url)

    async def run():
        check.open()
        gate = threading.Event()
        check._work.submit(gate.wait)  # the store thread is busy: the page's answer is pending
        page = Page("https://a.example/news/a-post/", None, None, None)
        found = result(0.97)
        first = asyncio.ensure_future(check.decide(page, found))
        second = asyncio.ensure_future(check.decide(page, found))
        await asyncio.sleep(0)  # both items asked
        first.cancel()
        gate.set()
        answer = await second
        await check.close()
        return first, answer

    first, answer = asyncio.run(run())
    assert first.cancelled()
    assert answer.article_probability == 0.97 and answer.is_article
    assert answer.debug["site_evidence"]["decided_by"] == "page"


@pytest.mark.redis
def test_a_page_asked_after_the_close_gets_its_own_verdict_at_once(redis_url):  # noqa: F811
    check = site_check(redis_url)

    async def run():
        check.open()
        await check.close()
        return await check.decide(Page("https://a.example/news/late/", None, None, None), result(0.6))

    late = asyncio.run(run())
    assert late.article_probability == 0.6
    assert late.debug["site_evidence"]["decided_by"] == "page"
