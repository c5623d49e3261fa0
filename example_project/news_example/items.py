"""The item the spider yields for every page it parses."""

from __future__ import annotations

import scrapy


class PageItem(scrapy.Item):
    """One crawled page. The spider fills ``url``; scrapy-bodytext fills the rest: ``main_text``,
    ``article_probability`` and the page metadata named by ``BODYTEXT_FIELDS`` in the project's
    settings (a typed item must declare the fields the plugin writes)."""

    url = scrapy.Field()
    title = scrapy.Field()
    language = scrapy.Field()
    published = scrapy.Field()
    authors = scrapy.Field()
    main_text = scrapy.Field()
    article_probability = scrapy.Field()
