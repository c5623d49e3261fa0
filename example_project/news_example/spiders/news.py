"""The ``news`` spider: crawls the bundled offline news site, or a real site given ``-a start_url=...``.
``-a order=SEED`` requests every page of the bundled site at once, in an order shuffled with SEED,
following no link: the same pages reach the add-on's site memory in another order.

It yields one ordinary item per page and knows nothing of scrapy-bodytext: the add-on enabled in
settings.py adds main text and article probability to every item and drops the non-articles.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Request, Response, TextResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.settings import SETTINGS_PRIORITIES

from ..items import PageItem

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: the bundled site, read through Scrapy's file:// download handler (no network, no server)
BUNDLED_SITE = Path(__file__).resolve().parent.parent / "site"

#: bounds of a crawl of a real site, applied unless the project or the command line sets them
WEB_CRAWL_SETTINGS = {
    "DEPTH_LIMIT": 3,
    "CLOSESPIDER_PAGECOUNT": 200,
    "DOWNLOAD_DELAY": 0.5,
    "AUTOTHROTTLE_ENABLED": True,
}


class NewsSpider(scrapy.Spider):
    """Follows every link of the site from its start page and yields one item per page."""

    name = "news"

    def __init__(self, start_url: str | None = None, order: str | None = None, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.web_crawl = bool(start_url)
        self.order = None if order in (None, "", "links") else int(order)  # a shuffled order's seed
        if self.order is not None and start_url:
            raise ValueError("order applies to the bundled site, not to a start_url")
        if start_url:
            parts = urlsplit(start_url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"start_url must be an http(s) URL, got {start_url!r}")
            self.start_urls = [start_url]
            self.allowed_domains = [parts.hostname]  # Scrapy's offsite middleware drops other hosts
            self.links = LinkExtractor()
        else:
            root = BUNDLED_SITE.as_uri() + "/"
            self.start_urls = [root + "index.html"]
            self.links = LinkExtractor(allow=[re.escape(root)])

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> NewsSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        if spider.web_crawl:
            for name, value in WEB_CRAWL_SETTINGS.items():
                if crawler.settings.getpriority(name) <= SETTINGS_PRIORITIES["default"]:
                    crawler.settings.set(name, value, priority="spider")
        return spider

    async def start(self) -> AsyncIterator[Request]:
        # Unlike Scrapy's default start requests, these go through the duplicate filter, so links
        # back to the start page (e.g. index.html#main) do not fetch it a second time.
        if self.order is not None:
            root = BUNDLED_SITE.as_uri() + "/"
            paths = sorted(path.relative_to(BUNDLED_SITE).as_posix() for path in BUNDLED_SITE.rglob("*.html"))
            random.Random(self.order).shuffle(paths)
            for path in paths:
                yield Request(root + path)
            return
        for url in self.start_urls:
            yield Request(url)

    def parse(self, response: Response) -> Iterator[PageItem | Request]:
        if not isinstance(response, TextResponse):
            return  # an image or a PDF linked from the site: not a page
        yield PageItem(url=response.url)
        if self.order is not None:
            return  # every page was requested at the start
        yield from response.follow_all(self.links.extract_links(response), callback=self.parse)
