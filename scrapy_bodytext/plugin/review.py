"""The review feed: one record per page a reviewer may want to check, in a feed of its own: every page
stored or dropped with an article probability within ``BODYTEXT_REVIEW_BAND`` of
``BODYTEXT_ARTICLE_THRESHOLD``, every page kept although in doubt (typed an article by the method's
decision rule below the threshold), and every page dropped for another reason than its probability
(a duplicate, a page the extractor could not handle).

The pipeline sends the signal :data:`page_rejected` once per such page. :class:`RejectedFeed` (an
extension the add-on places) writes those records with Scrapy's own feed exporter, configured by
``BODYTEXT_REJECTED_FEED`` like one entry of ``FEEDS`` (formats, storages, URI parameters, batches,
item filters, post-processing), while the crawl's ``FEEDS`` and storage pipelines never see them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import PurePath, PureWindowsPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.extensions.feedexport import FeedExporter
from scrapy.settings import Settings
from scrapy.signalmanager import SignalManager
from scrapy.utils.python import without_none_values

from .settings import BodyTextSettingError
from .startup import crawler_settings, stop_crawl

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

#: signal sent by the pipeline once per page listed for review, with ``page`` (a RejectedPage)
page_rejected = object()

#: outcomes of a listed page
STORED, DROPPED = "stored", "dropped"
#: reason of a stored article (listed when its probability is near the threshold)
ARTICLE = "article"
#: reason of a page judged not to be an article (the other reasons are the extraction's)
NOT_AN_ARTICLE = "not_an_article"
#: reason of an article repeating one the crawl stored already (BODYTEXT_DUPLICATES = "drop")
DUPLICATE = "duplicate"
#: reason of a page kept in doubt: typed an article, its probability below the threshold (always listed)
UNCERTAIN_ARTICLE = "uncertain_article"
#: reason of a page stored below the threshold because BODYTEXT_KEPT_PAGE_TYPES keeps its type
KEPT_TYPE = "kept_type"


@dataclass
class RejectedPage:
    """What a reviewer needs to judge a page's outcome: the page, what became of it and why, and the
    figures behind it, as the pipeline decided them (``article_probability`` is the final one, compared
    with ``threshold``; ``decided_by`` "page" or "site"; ``detail`` one short line: the site's evidence
    when the site decided, the first copy of a duplicate, what failed). ``site_evidence`` (every count
    the site memory weighed, or None) is left out of the feed unless its ``fields`` name it."""

    url: str
    outcome: str  # "stored" or "dropped"
    reason: str  # "article", "not_an_article", "uncertain_article", "kept_type", "duplicate", "no_main_text", or why the extractor failed
    article_probability: float
    threshold: float
    decided_by: str  # "page", or "site" (the page weighed with its site's evidence)
    extractor: str
    page_type: str
    title: str
    detail: str
    site_evidence: dict | None = None


#: the fields a review record is written with by default (short: the site's evidence in full is asked for)
FIELDS = [field.name for field in dataclasses.fields(RejectedPage) if field.name != "site_evidence"]


class RejectedFeed:
    """Writes every :class:`RejectedPage` to the feeds of ``BODYTEXT_REJECTED_FEED``."""

    def __init__(self, crawler: Crawler, feeds: dict[str, dict[str, Any]]):
        self.crawler = crawler
        self.exporter = FeedExporter(_FeedCrawler(crawler, feeds))  # type: ignore[arg-type]

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RejectedFeed:
        configured = crawler_settings(crawler).rejected_feeds
        if not configured:
            raise NotConfigured  # no review feed asked for: silently off
        feeds = {uri: {"fields": FIELDS, "batch_item_count": 0, **options} for uri, options in configured}
        _check_supported(feeds, crawler)
        try:
            feed = cls(crawler, feeds)
        except NotConfigured as exc:  # refused by Scrapy's exporter for a reason it logged
            stop_crawl(
                BodyTextSettingError(f"BODYTEXT_REJECTED_FEED: Scrapy's feed exporter refused it {exc}"), crawler
            )
        crawler.signals.connect(feed.open_spider, signals.spider_opened)
        crawler.signals.connect(feed.close_spider, signals.spider_closed)
        crawler.signals.connect(feed.page_rejected, page_rejected)
        return feed

    def open_spider(self, spider: Spider) -> None:
        self.exporter.open_spider(spider)

    async def close_spider(self, spider: Spider) -> None:
        await self.exporter.close_spider(spider)

    def page_rejected(self, page: RejectedPage, spider: Spider) -> None:
        self.exporter.item_scraped(page, spider)
        self.crawler.stats.inc_value("bodytext/rejected_feed/pages")


class _FeedCrawler:
    """The crawler as the review feed's exporter sees it: its FEEDS are the review feeds, and its own
    signals (``feed_slot_closed``, ``feed_exporter_closed``) stay apart from the crawl's."""

    def __init__(self, crawler: Crawler, feeds: dict[str, dict[str, Any]]):
        values = crawler.settings.copy_to_dict()
        values.pop("FEED_URI", None)
        values["FEEDS"] = feeds
        self.settings = Settings(values)
        self.settings.freeze()
        self.signals = SignalManager(self)
        self._crawler = crawler

    def __getattr__(self, name: str) -> Any:
        return getattr(self._crawler, name)


def _check_supported(feeds: dict[str, dict[str, Any]], crawler: Crawler) -> None:
    """Each feed's format and storage scheme are ones this crawl's Scrapy settings know."""
    exporters = without_none_values(crawler.settings.getwithbase("FEED_EXPORTERS"))
    storages = without_none_values(crawler.settings.getwithbase("FEED_STORAGES"))
    for uri, options in feeds.items():
        format_ = options.get("format") or PurePath(uri).suffix.removeprefix(".")
        scheme = urlparse(uri).scheme
        problem = None
        if format_ not in exporters:
            problem = f"unknown feed format {format_!r} (known: {', '.join(sorted(exporters))})"
        elif scheme not in storages and not PureWindowsPath(uri).drive:
            problem = f"unknown feed storage scheme {scheme!r} (known: {', '.join(sorted(filter(None, storages)))})"
        if problem:
            stop_crawl(BodyTextSettingError(f"BODYTEXT_REJECTED_FEED: {uri!r}: {problem}"), crawler)
