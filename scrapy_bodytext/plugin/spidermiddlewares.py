"""Spider middleware: links every item of a tagged response to that response's body.

Items do not carry their response, and the pipeline (which runs the extractor) never sees one. This
middleware sees both, and records the link in an in-process side table keyed by ``id(item)``: the
item itself stays clean, nothing goes into ``Request.meta``, and each entry is released as soon as
the pipeline takes it, or when the item is scraped, dropped or fails elsewhere, so nothing of a
response outlives its items.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.http import TextResponse

from ..result import ExtractionResult, Reason, empty_result
from .middlewares import FLAG, TOO_LARGE_FLAG
from .settings import BodyTextSettings
from .startup import crawler_settings

#: the flags Scrapy gives a response whose body was cut short (DOWNLOAD_FAIL_ON_DATALOSS = False)
INCOMPLETE_FLAGS = frozenset({"dataloss", "partial"})

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response

#: Request.meta key: name of the extractor to use for that page instead of BODYTEXT_EXTRACTOR
META_EXTRACTOR = "bodytext_extractor"


@dataclass(eq=False)
class Page:
    """What the pipeline needs of one response, shared by every item the response produced.

    ``pending`` and ``result`` make the extraction run once per page whatever the number of items;
    ``body`` is let go as soon as the result is known.
    """

    url: str
    body: bytes | None
    encoding: str | None
    content_type: str | None
    extractor: Any = None  # Request.meta override (validated by the pipeline), None: the setting
    result: ExtractionResult | None = None
    seconds: float = 0.0
    pending: Future | None = None
    reported: bool = False
    complete: bool = True  # the body arrived whole (Scrapy flags a cut one "dataloss" or "partial")

    @classmethod
    def from_response(cls, response: Response, settings: BodyTextSettings) -> Page:
        meta = response.meta if response.request is not None else {}
        content_type = response.headers.get(b"Content-Type")
        page = cls(
            url=response.url,
            body=response.body,
            # what Scrapy decided (BOM, header, <meta>, detection); usually cached by the spider's parsing
            encoding=response.encoding if isinstance(response, TextResponse) else None,
            content_type=content_type.decode("latin-1") if content_type else None,
            extractor=meta.get(META_EXTRACTOR),
            complete=not INCOMPLETE_FLAGS.intersection(response.flags),
        )
        if TOO_LARGE_FLAG in response.flags:
            name = page.extractor if isinstance(page.extractor, str) else settings.extract.extractor
            detail = f"{len(response.body)} bytes > BODYTEXT_MAX_BODY_SIZE {settings.extract.max_body_size}"
            page.result = empty_result(name, Reason.TOO_LARGE, detail, output_format=settings.extract.output_format)
            page.body = None
        return page


class ItemLinks:
    """The side table ``id(item) -> (item, Page)`` of one crawler.

    Holding the item in the entry keeps its ``id`` from being reused while linked. Entries are popped
    by the pipeline, released on ``item_scraped``/``item_dropped``/``item_error`` for items that
    never reached it, and cleared (and counted) when the spider closes.
    """

    _of_crawler: weakref.WeakKeyDictionary[Crawler, ItemLinks] = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, crawler: Crawler) -> ItemLinks:
        links = cls._of_crawler.get(crawler)
        if links is None:
            links = cls._of_crawler[crawler] = cls(crawler)
        return links

    def __init__(self, crawler: Crawler):
        self._crawler = weakref.ref(crawler)  # the crawler-keyed table must not keep its key alive
        self._entries: dict[int, tuple[Any, Page]] = {}
        # bound methods of an object the crawler-keyed table keeps alive (signal handlers are weak)
        for signal in (signals.item_scraped, signals.item_dropped, signals.item_error):
            crawler.signals.connect(self.release, signal=signal)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    def __len__(self) -> int:
        return len(self._entries)

    def link(self, item: Any, page: Page) -> None:
        self._entries[id(item)] = (item, page)

    def pop(self, item: Any) -> Page | None:
        """The page ``item`` came from (None for items of untagged responses); forgets the link."""
        entry = self._entries.pop(id(item), None)
        return entry[1] if entry is not None and entry[0] is item else None

    def release(self, item: Any) -> None:
        entry = self._entries.get(id(item))
        if entry is not None and entry[0] is item:
            del self._entries[id(item)]

    def spider_closed(self) -> None:
        crawler = self._crawler()
        if self._entries and crawler is not None and crawler.stats is not None:
            # items some other component swallowed without a signal (none in a normal crawl)
            crawler.stats.set_value("bodytext/items/unreleased", len(self._entries))
        self._entries.clear()


class BodyTextSpiderMiddleware:
    """Links the items of responses flagged by :class:`BodyTextDownloaderMiddleware` to their page (only
    items of the classes the pipeline judges, BODYTEXT_ITEM_CLASSES: a page none of whose items is
    judged is never extracted)."""

    def __init__(self, crawler: Crawler, settings: BodyTextSettings):
        self.crawler = crawler
        self.settings = settings
        self.links = ItemLinks.of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BodyTextSpiderMiddleware:
        return cls(crawler, crawler_settings(crawler))

    async def process_spider_output(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        tagged = FLAG in response.flags or TOO_LARGE_FLAG in response.flags
        page: Page | None = None
        async for output in result:
            if tagged and ItemAdapter.is_item(output) and self.settings.in_scope(output):
                if page is None:
                    page = Page.from_response(response, self.settings)
                self.links.link(output, page)
            yield output
