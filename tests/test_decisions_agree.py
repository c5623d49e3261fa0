"""What the plugin says of each page is what it decided: real crawls of every page of the example
project's news site over HTTP, at thresholds 0.1, 0.5 and 0.99, with site memory on and off. For every page, its drop line,
its review record (the widest band lists every judged page), its stored item and the crawl's stats
state one final probability, the threshold it was compared with, one outcome and one judge; a dropped
page has exactly one INFO line, a stored page none."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from crawl_runner import ADDON, Crawl, run_crawl
from http_server import SiteServer

SITE = Path(__file__).resolve().parent.parent / "example_project" / "news_example" / "site"
#: the pipeline's line for a dropped page
DROP_LINE = re.compile(
    r"\[scrapy_bodytext[.\w]*\] INFO: Not an article \(article_probability (?P<p>[\d.]+) (?P<sign><|>=) "
    r"(?P<t>[\d.]+), (?P<extractor>\w+), decided by (?P<judge>the page with its site|the page)(?P<why>: .*)?\), "
    r"items dropped: (?P<url>\S+)$",
    re.MULTILINE,
)
#: any INFO line of the plugin about one page: it ends with the page's URL
PAGE_LINE = re.compile(r"\[scrapy_bodytext[.\w]*\] INFO: .*: (?P<url>\S+)$", re.MULTILINE)
VERDICT_REASONS = {"article", "not_an_article", "no_main_text"}


@pytest.fixture(scope="module")
def server():
    pages = {f"/{path.relative_to(SITE).as_posix()}": (path.read_bytes(), "text/html") for path in SITE.rglob("*.html")}
    with SiteServer(pages) as running:
        yield running


def crawl_at(server: SiteServer, folder: Path, threshold: float, memory: bool) -> tuple[Crawl, list[dict]]:
    review, urls = folder / "review.jsonl", folder / "urls.txt"
    urls.write_text("".join(f"{server.url(path)}\n" for path in sorted(server.pages)), "utf-8")
    crawl = run_crawl(
        folder,
        settings={
            "ADDONS": ADDON,
            "BODYTEXT_ARTICLE_THRESHOLD": threshold,
            "BODYTEXT_SITE_MEMORY": memory,
            "BODYTEXT_REJECTED_FEED": str(review),
            "BODYTEXT_REVIEW_BAND": 1.0,
            "BODYTEXT_FIELDS": ["default", "decided_by"],
            "BODYTEXT_WORKERS": 0,
        },
        urls=str(urls),
        follow="0",
    )
    records = [json.loads(line) for line in review.read_text("utf-8").splitlines()] if review.exists() else []
    return crawl, records


def shown_equal(shown: str, value: float) -> bool:
    """Whether ``shown`` (a figure printed with some digits) is ``value`` rounded to those digits."""
    digits = len(shown.partition(".")[2])
    return abs(float(shown) - value) <= 0.5 * 10**-digits + 1e-12


@pytest.mark.parametrize("memory", [False, True], ids=["memory-off", "memory-on"])
@pytest.mark.parametrize("threshold", [0.1, 0.5, 0.99])
def test_log_stats_review_feed_and_items_agree_on_every_page(server, tmp_path, threshold: float, memory: bool):
    crawl, records = crawl_at(server, tmp_path, threshold, memory)
    assert crawl.returncode == 0 and "Traceback" not in crawl.log, crawl.log[-3000:]
    pages = len(list(SITE.rglob("*.html")))
    assert crawl.stored + crawl.dropped == pages

    # the review feed: one record per judged page, each stating the outcome its probability has
    by_url = {record["url"]: record for record in records}
    assert len(by_url) == len(records) == pages
    assert all(record["reason"] in VERDICT_REASONS for record in records)
    assert {record["threshold"] for record in records} == {threshold}
    wrong = {
        url: (record["article_probability"], record["outcome"])
        for url, record in by_url.items()
        if (record["outcome"] == "stored") != (record["article_probability"] >= threshold)
    }
    assert not wrong, f"outcomes against the threshold {threshold}: {wrong}"
    assert all(record["decided_by"] in ("page", "site") for record in records)
    if not memory:
        assert {record["decided_by"] for record in records} == {"page"}

    # the stored items: the same pages, with the same probability
    stored = {item["url"]: item for item in crawl.items}
    assert set(stored) == {url for url, record in by_url.items() if record["outcome"] == "stored"}
    for url, item in stored.items():
        assert item["article_probability"] == by_url[url]["article_probability"], url
        assert item["decided_by"] == by_url[url]["decided_by"], url

    # the log: one line per dropped page, stating its record's figures and judge; none for a stored page
    drop_lines = {found["url"]: found for found in DROP_LINE.finditer(crawl.log)}
    dropped = {url for url, record in by_url.items() if record["outcome"] == "dropped"}
    assert set(drop_lines) == dropped
    for url, line in drop_lines.items():
        record = by_url[url]
        assert shown_equal(line["p"], record["article_probability"]) and shown_equal(line["t"], threshold), line[0]
        assert line["sign"] == "<", line[0]
        assert (line["judge"] == "the page with its site") == (record["decided_by"] == "site"), line[0]
        assert record["decided_by"] != "site" or (line["why"] and line["why"][2:] == record["detail"]), line[0]
    said = [found["url"] for found in PAGE_LINE.finditer(crawl.log)]
    twice = sorted({url for url in said if said.count(url) > 1})
    assert not twice, f"pages with more than one INFO line: {twice}"
    assert not set(said) & set(stored), "a stored page got an INFO line"

    # the stats count the same decisions
    assert crawl.stat("bodytext/pages/articles") == len(stored)
    assert crawl.stat("bodytext/pages/non_articles") == crawl.stat("bodytext/pages/rejected") == len(dropped)
    assert crawl.stat("item_dropped_reasons_count/NotAnArticle") == crawl.dropped == len(dropped)
    assert crawl.stat("bodytext/pages/review") == crawl.stat("bodytext/rejected_feed/pages") == len(records)
    for judge in ("page", "site"):
        decided = sum(record["decided_by"] == judge for record in records)
        assert crawl.stat(f"bodytext/pages/decided_by/{judge}") == decided
