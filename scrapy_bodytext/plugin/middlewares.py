"""Downloader middleware: tags the responses whose items get main text (cheap; nothing is parsed here).

A candidate gets the response flag ``bodytext`` (shown in Scrapy's "Crawled" log line). Other
responses are counted under ``bodytext/responses/skipped/<reason>`` and their items pass untouched,
except pages above ``BODYTEXT_MAX_BODY_SIZE``: they are HTML pages the plugin cannot afford, so they
get the flag ``bodytext:too_large`` and their items the failure outcome (``BODYTEXT_ON_FAILURE``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http import HtmlResponse

from .settings import BodyTextSettings
from .startup import crawler_settings

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

#: response flag of extraction candidates
FLAG = "bodytext"
#: response flag of HTML pages over the size limit
TOO_LARGE_FLAG = "bodytext:too_large"
#: Request.meta key: True skips extraction for that page (its items pass untouched)
META_SKIP = "bodytext_skip"


class BodyTextDownloaderMiddleware:
    """Decides, from status, headers and size, which responses are extraction candidates."""

    def __init__(self, crawler: Crawler, settings: BodyTextSettings):
        self.crawler = crawler
        self.settings = settings

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BodyTextDownloaderMiddleware:
        return cls(crawler, crawler_settings(crawler))

    def process_response(self, request: Request, response: Response) -> Response:
        if FLAG in response.flags or TOO_LARGE_FLAG in response.flags:
            return response  # decided already (e.g. the middleware is listed twice)
        reason = self.skip_reason(request, response)
        stats = self.crawler.stats
        assert stats is not None
        if reason is None:
            response.flags.append(FLAG)
            stats.inc_value("bodytext/responses/tagged")
        else:
            stats.inc_value(f"bodytext/responses/skipped/{reason}")
            if reason == "too_large":
                response.flags.append(TOO_LARGE_FLAG)
        return response

    def skip_reason(self, request: Request, response: Response) -> str | None:
        """Why ``response`` is not an extraction candidate (None when it is one)."""
        if request.meta.get(META_SKIP):
            return "meta_skip"
        if response.status not in self.settings.status_codes:
            return "status"
        if not self.is_html(response):
            return "not_html"
        if len(response.body) > self.settings.extract.max_body_size:
            return "too_large"
        return None

    def is_html(self, response: Response) -> bool:
        """The declared media type is an HTML one; without a header, Scrapy's own sniffing decides."""
        content_type = response.headers.get(b"Content-Type")
        if not content_type:
            return isinstance(response, HtmlResponse)
        media_type = content_type.split(b";", 1)[0].strip().lower().decode("latin-1")
        return media_type in self.settings.content_types
