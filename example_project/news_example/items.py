"""The item the spider yields for every page it parses."""

from __future__ import annotations

import scrapy


class PageItem(scrapy.Item):
    """One crawled page. The spider fills ``url``, ``title`` and ``language``; scrapy-bodytext fills
    ``main_text`` and ``article_probability``, and the page metadata it reads (``published``,
    ``authors``; its ``title`` and ``language`` too) where the project maps them to item fields (a
    typed item must declare the fields the plugin writes)."""

    url = scrapy.Field()
    title = scrapy.Field()
    language = scrapy.Field()
    published = scrapy.Field()
    authors = scrapy.Field()
    main_text = scrapy.Field()
    article_probability = scrapy.Field()
