"""The downloader middleware tags HTML candidates and counts every other response by reason."""

from __future__ import annotations

import pytest
from scrapy import Request
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_bodytext import BodyTextDownloaderMiddleware
from scrapy_bodytext.plugin.middlewares import FLAG, TOO_LARGE_FLAG

URL = "https://example.com/page"
BODY = b"<html><body><p>Some text</p></body></html>"


def make_middleware(**settings):
    crawler = get_crawler(settings_dict=settings)
    crawler.stats.open_spider()
    return build_from_crawler(BodyTextDownloaderMiddleware, crawler), crawler.stats


def respond(
    cls=HtmlResponse, status=200, content_type: bytes | None = b"text/html; charset=utf-8", body=BODY, meta=None
):
    headers = {"Content-Type": content_type} if content_type is not None else {}
    request = Request(URL, meta=meta or {})
    return request, cls(URL, status=status, headers=headers, body=body, request=request)


def skipped(stats) -> dict:
    prefix = "bodytext/responses/skipped/"
    return {name[len(prefix) :]: value for name, value in stats.get_stats().items() if name.startswith(prefix)}


def test_an_html_page_is_tagged_and_returned_as_is():
    middleware, stats = make_middleware()
    request, response = respond()
    assert middleware.process_response(request, response) is response
    assert FLAG in response.flags
    assert stats.get_value("bodytext/responses/tagged") == 1
    assert skipped(stats) == {}


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"content_type": b"application/pdf", "cls": Response}, "not_html"),
        ({"content_type": b"application/json", "cls": TextResponse}, "not_html"),
        ({"content_type": None, "cls": Response}, "not_html"),
        ({"status": 404}, "status"),
        ({"status": 500}, "status"),
        ({"meta": {"bodytext_skip": True}}, "meta_skip"),
    ],
)
def test_other_responses_are_counted_by_reason_and_left_untagged(kwargs, reason):
    middleware, stats = make_middleware()
    request, response = respond(**kwargs)
    middleware.process_response(request, response)
    assert not {FLAG, TOO_LARGE_FLAG} & set(response.flags)
    assert skipped(stats) == {reason: 1}
    assert stats.get_value("bodytext/responses/tagged") is None


def test_without_a_content_type_scrapy_sniffing_decides():
    middleware, _ = make_middleware()
    request, response = respond(content_type=None)
    middleware.process_response(request, response)
    assert FLAG in response.flags


def test_a_page_over_the_size_limit_is_flagged_for_the_failure_outcome():
    middleware, stats = make_middleware(BODYTEXT_MAX_BODY_SIZE=len(BODY) - 1)
    request, response = respond()
    middleware.process_response(request, response)
    assert response.flags == [TOO_LARGE_FLAG]
    assert skipped(stats) == {"too_large": 1}


def test_statuses_and_media_types_are_settings():
    middleware, stats = make_middleware(BODYTEXT_STATUS_CODES=[200, 410], BODYTEXT_CONTENT_TYPES=["text/plain"])
    request, gone = respond(cls=TextResponse, status=410, content_type=b"text/plain")
    middleware.process_response(request, gone)
    request, html = respond()
    middleware.process_response(request, html)
    assert FLAG in gone.flags and FLAG not in html.flags
    assert skipped(stats) == {"not_html": 1}


def test_a_response_is_tagged_once():
    middleware, stats = make_middleware()
    request, response = respond()
    middleware.process_response(request, response)
    middleware.process_response(request, response)
    assert response.flags == [FLAG]
    assert stats.get_value("bodytext/responses/tagged") == 1


def test_tagging_neither_decodes_nor_parses_the_body():
    middleware, _ = make_middleware()
    request, response = respond(body=b"<html>" + b"\xff\xfe" * 10 + b"</html>")
    middleware.process_response(request, response)
    # TextResponse caches its decoded text and its selector once anyone asks for them
    assert response._cached_ubody is None and response._cached_selector is None
