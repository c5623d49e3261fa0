"""Spiders and item classes of the crawl tests. Spiders know nothing of the plugin: they yield
ordinary items, as a user's spider would."""

from __future__ import annotations

import dataclasses
import json
from urllib.parse import urlsplit

import attr
import scrapy
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

    def __init__(self, start: str = "", urls: str = "", kinds: str = "dict", follow: str = "1", meta: str = "{}",
                 **kwargs):
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
