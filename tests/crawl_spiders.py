"""Spiders and item classes of the crawl tests. Spiders know nothing of the plugin: they yield
ordinary items, as a user's spider would."""

from __future__ import annotations

import dataclasses
import json
from urllib.parse import urlsplit

import attr
import scrapy
from itemadapter import ItemAdapter
from scrapy.http import TextResponse


class PageItem(scrapy.Item):
    url = scrapy.Field()
    kind = scrapy.Field()
    main_text = scrapy.Field()
    article_probability = scrapy.Field()


class BareItem(scrapy.Item):
    """An item class that does not declare the plugin's fields."""

    url = scrapy.Field()
    kind = scrapy.Field()


@dataclasses.dataclass
class PageData:
    url: str
    kind: str = "dataclass"
    main_text: str | None = None
    article_probability: float | None = None


@attr.s(auto_attribs=True)
class PageAttrs:
    url: str
    kind: str = "attrs"
    main_text: str | None = None
    article_probability: float | None = None


def make_item(kind: str, url: str) -> object:
    if kind == "dict":
        return {"url": url, "kind": "dict"}
    if kind == "item":
        return PageItem(url=url, kind="item")
    if kind == "bare":
        return BareItem(url=url, kind="bare")
    if kind == "dataclass":
        return PageData(url=url)
    if kind == "attrs":
        return PageAttrs(url=url)
    raise ValueError(kind)


class SiteSpider(scrapy.Spider):
    """Crawls a site from ``start`` (follows links unless ``follow`` is "0") or the URLs listed in the
    file ``urls``; yields one item per kind in ``kinds`` for every page. ``meta`` is JSON
    {path: {meta key: value}} applied to requests of those paths."""

    name = "site"

    def __init__(
        self, start: str = "", urls: str = "", kinds: str = "dict", follow: str = "1", meta: str = "{}", **kwargs
    ):
        super().__init__(**kwargs)
        self.start_list = [start] if start else []
        if urls:
            with open(urls, encoding="utf-8") as lines:
                self.start_list += [line.strip() for line in lines if line.strip()]
        self.kinds = kinds.split(",")
        self.follow = follow != "0"
        self.meta_by_path = json.loads(meta)

    async def start(self):
        for url in self.start_list:
            yield scrapy.Request(url, meta=self.meta_by_path.get(urlsplit(url).path, {}))

    def parse(self, response):
        for kind in self.kinds:
            yield make_item(kind, response.url)
        if self.follow and isinstance(response, TextResponse):
            for href in response.css("a::attr(href)").getall():
                url = response.urljoin(href)
                yield scrapy.Request(url, meta=self.meta_by_path.get(urlsplit(url).path, {}))


class AddonSpider(SiteSpider):
    """Enables the plugin from the spider itself."""

    name = "addon_site"
    custom_settings = {"ADDONS": {"scrapy_bodytext.Addon": 0}}


class ArticleItem(scrapy.Item):
    """What a news spider stores of a page it takes for an article."""

    url = scrapy.Field()
    main_text = scrapy.Field()
    article_probability = scrapy.Field()


@dataclasses.dataclass
class LinkItem:
    """A teaser: a link found on a page (listing pages yield many)."""

    url: str
    source: str


class TeaserSpider(SiteSpider):
    """Yields, for every page, one ArticleItem and one LinkItem per link on it; counts both in the
    stats (``teaser/article_items``, ``teaser/link_items``) so a test knows how many items went in."""

    name = "teaser"

    def parse(self, response):
        stats = self.crawler.stats
        stats.inc_value("teaser/article_items")
        yield ArticleItem(url=response.url)
        if not isinstance(response, TextResponse):
            return
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            stats.inc_value("teaser/link_items")
            yield LinkItem(url=url, source=response.url)
            if self.follow:
                yield scrapy.Request(url)


class RecordingPipeline:
    """A storage pipeline placed after the plugin's: appends the URL of every item it receives to the
    file named by the setting RECORDED_ITEMS."""

    def __init__(self, path: str):
        self.path = path

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings["RECORDED_ITEMS"])

    def process_item(self, item):
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"class": type(item).__name__, "url": ItemAdapter(item)["url"]}) + "\n")
        return item


def peak_rss_mb() -> int:
    """The highest resident set size of this process so far (VmHWM), in MB: its own, unlike
    ``ru_maxrss``, which Linux carries over from the process that started it."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    return 0


class MeasuredSpider(SiteSpider):
    """SiteSpider recording the crawl process's peak memory in the stats (``process/peak_rss_mb``)."""

    name = "measured_site"

    def closed(self, reason: str) -> None:
        self.crawler.stats.set_value("process/peak_rss_mb", peak_rss_mb())
