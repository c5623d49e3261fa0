"""The spider middleware links items to their page in a side table that forgets them when done."""

from __future__ import annotations

import asyncio
import gc
import weakref

from scrapy import Request, Spider, signals
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_bodytext import BodyTextSpiderMiddleware, Reason
from scrapy_bodytext.plugin.middlewares import FLAG, TOO_LARGE_FLAG
from scrapy_bodytext.plugin.spidermiddlewares import ItemLinks

URL = "https://example.com/news/1"
BODY = "<html><head><meta charset='cp1252'></head><body><p>Café</p></body></html>".encode("cp1252")


def make_middleware(**settings):
    crawler = get_crawler(Spider, settings_dict=settings)
    crawler.spider = crawler._create_spider("test")
    crawler.stats.open_spider()
    return build_from_crawler(BodyTextSpiderMiddleware, crawler), crawler


def page_response(flags=(FLAG,), meta=None, body=BODY):
    request = Request(URL, meta=meta or {})
    return HtmlResponse(URL, body=body, headers={"Content-Type": "text/html"}, request=request, flags=list(flags))


def run_output(middleware, response, outputs):
    async def spider_output():
        for output in outputs:
            yield output

    async def collect():
        return [output async for output in middleware.process_spider_output(response, spider_output())]

    return asyncio.run(collect())


def test_items_of_a_tagged_response_share_one_page_and_pass_unchanged():
    middleware, _ = make_middleware()
    first, second, follow = {"n": 1}, {"n": 2}, Request("https://example.com/next")
    response = page_response(meta={"bodytext_extractor": "ttr"})
    assert run_output(middleware, response, [first, follow, second]) == [{"n": 1}, follow, {"n": 2}]
    assert len(middleware.links) == 2
    page = middleware.links.pop(first)
    assert middleware.links.pop(second) is page
    assert (page.url, page.body, page.extractor) == (URL, BODY, "ttr")
    assert page.encoding == "cp1252" and page.content_type == "text/html"
    assert page.result is None
    assert middleware.links.pop(first) is None  # popped once


def test_nothing_is_added_to_the_request_meta():
    middleware, _ = make_middleware()
    response = page_response(meta={"depth": 1})
    run_output(middleware, response, [{"n": 1}])
    assert response.meta == {"depth": 1}


def test_items_of_untagged_responses_are_not_linked():
    middleware, _ = make_middleware()
    item = {"n": 1}
    assert run_output(middleware, page_response(flags=()), [item]) == [item]
    assert len(middleware.links) == 0
    assert middleware.links.pop(item) is None


def test_a_page_over_the_size_limit_carries_its_failure_and_no_body():
    middleware, _ = make_middleware()
    item = {"n": 1}
    run_output(middleware, page_response(flags=(TOO_LARGE_FLAG,)), [item])
    page = middleware.links.pop(item)
    assert page.body is None
    assert page.result.reason is Reason.TOO_LARGE
    assert "BODYTEXT_MAX_BODY_SIZE" in page.result.detail


def test_links_are_released_when_items_are_scraped_dropped_or_fail():
    middleware, crawler = make_middleware()
    items = [{"n": n} for n in range(4)]
    run_output(middleware, page_response(), items)
    response = page_response()
    crawler.signals.send_catch_log(signals.item_scraped, item=items[0], response=response, spider=crawler.spider)
    crawler.signals.send_catch_log(
        signals.item_dropped, item=items[1], response=response, exception=Exception(), spider=crawler.spider
    )
    crawler.signals.send_catch_log(
        signals.item_error, item=items[2], response=response, spider=crawler.spider, failure=None
    )
    assert len(middleware.links) == 1
    crawler.signals.send_catch_log(signals.spider_closed, spider=crawler.spider, reason="finished")
    assert len(middleware.links) == 0
    assert crawler.stats.get_value("bodytext/items/unreleased") == 1


def test_an_equal_but_different_item_does_not_take_the_link():
    middleware, _ = make_middleware()
    item = {"n": 1}
    run_output(middleware, page_response(), [item])
    middleware.links.release({"n": 1})
    assert middleware.links.pop(dict(item)) is None
    assert len(middleware.links) == 1


def test_nothing_of_the_response_stays_referenced_once_its_items_are_done():
    middleware, _ = make_middleware()
    items = [{"n": 1}, {"n": 2}]
    response = page_response()
    run_output(middleware, response, items)
    page = weakref.ref(middleware.links.pop(items[0]))
    middleware.links.release(items[1])
    response = weakref.ref(response)
    gc.collect()
    assert page() is None and response() is None


def test_one_table_per_crawler():
    first, _ = make_middleware()
    second, crawler = make_middleware()
    assert first.links is not second.links
    assert ItemLinks.of(crawler) is second.links


def test_the_table_goes_away_with_its_crawler():
    middleware, crawler = make_middleware()
    table = weakref.ref(middleware.links)
    del middleware, crawler
    gc.collect()
    assert table() is None


class Teaser(dict):
    """An item class of its own (a dict subclass, so an item to Scrapy)."""


def test_items_outside_the_judged_classes_are_not_linked():
    middleware, _ = make_middleware(BODYTEXT_ITEM_CLASSES=[f"{__name__}.Teaser"])
    teasers, other = [Teaser(n=n) for n in range(3)], {"n": "dict"}
    assert run_output(middleware, page_response(), [*teasers, other]) == [*teasers, other]
    assert len(middleware.links) == 3
    assert middleware.links.pop(other) is None and middleware.links.pop(teasers[0]) is not None
    listing_only, _ = make_middleware(BODYTEXT_ITEM_CLASSES="builtins.list")
    run_output(listing_only, page_response(), teasers)
    assert len(listing_only.links) == 0  # no item judged: the page is never handed to the pipeline
