"""Spiders of the Zyte item tests (kept apart so that other crawls never import zyte-common-items):
one item per page, a ``zyte_common_items.Article`` or a dict, with a headline the spider sets itself
when told to."""

from __future__ import annotations

import warnings

import scrapy
from scrapy.exceptions import ScrapyDeprecationWarning
from zyte_common_items import Article

# zyte-common-items 0.31's DropLowProbabilityItemPipeline.process_item takes the spider argument Scrapy
# 2.19 deprecates; the crawl processes make deprecation warnings errors, so this one is let through
# (set here, where the crawl process imports its spider; the project's own warnings stay errors)
warnings.filterwarnings(
    "ignore",
    message=r"DropLowProbabilityItemPipeline\.process_item\(\) requires a spider",
    category=ScrapyDeprecationWarning,
)

from crawl_spiders import SiteSpider  # noqa: E402 - after the warning filter above, which must precede the import

#: the headline the spider writes itself (``headline=1``)
SPIDER_HEADLINE = "Headline the spider chose"


class ZyteArticleSpider(SiteSpider):
    """Yields ``Article(url=...)`` (``kinds=article``) or ``{"url": ...}`` (``kinds=dict``) per page."""

    name = "zyte_article"

    def __init__(self, headline: str = "0", **kwargs):
        super().__init__(**kwargs)
        self.headline = headline == "1"

    def parse(self, response):
        extra = {"headline": SPIDER_HEADLINE} if self.headline else {}
        yield Article(url=response.url, **extra) if self.kinds == ["article"] else {"url": response.url, **extra}
        if self.follow:
            for href in response.css("a::attr(href)").getall():
                yield scrapy.Request(response.urljoin(href))
