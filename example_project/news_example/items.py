"""The item the spider yields for every page it parses."""

from __future__ import annotations

import scrapy


class PageItem(scrapy.Item):
    """One crawled page. The spider fills ``url``, ``title`` and ``language``; scrapy-bodytext fills
    ``main_text`` and ``article_probability`` (a typed item must declare the fields the plugin writes)."""

    url = scrapy.Field()
    title = scrapy.Field()
    language = scrapy.Field()
    main_text = scrapy.Field()
    article_probability = scrapy.Field()
