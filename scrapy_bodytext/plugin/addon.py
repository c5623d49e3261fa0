"""The add-on: ``ADDONS = {"scrapy_bodytext.Addon": 0}`` enables the whole plugin.

It places the three components and the review feed extension (unless the project already lists
them, so users can reorder them), sets every ``BODYTEXT_*`` default at "addon" priority, below
project, spider and command-line settings, and validates the result at once, so an invalid value
stops the crawl before Scrapy builds anything else.
"""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING

from .middlewares import BodyTextDownloaderMiddleware
from .pipelines import BodyTextPipeline
from .review import RejectedFeed
from .settings import DEFAULTS
from .spidermiddlewares import BodyTextSpiderMiddleware
from .startup import validate
from .steering import STEERING_DOWNLOADER_ORDER, STEERING_ORDER, SteeringDownloaderMiddleware, SteeringSpiderMiddleware

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

#: component orders: the downloader middleware runs its process_response after decompression (590)
#: and meta refresh (580); the spider middleware sits next to the engine, so it sees the items other
#: spider middlewares let through; the pipeline comes before typical storage pipelines (300+)
DOWNLOADER_MIDDLEWARE_ORDER = 575
SPIDER_MIDDLEWARE_ORDER = 40
PIPELINE_ORDER = 200
EXTENSION_ORDER = 0


class Addon:
    def __init__(self, crawler: Crawler | None = None):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Addon:
        return cls(crawler)

    def update_settings(self, settings: BaseSettings) -> None:
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", BodyTextDownloaderMiddleware, DOWNLOADER_MIDDLEWARE_ORDER
        )
        settings.setdefault_in_component_priority_dict(
            "SPIDER_MIDDLEWARES", BodyTextSpiderMiddleware, SPIDER_MIDDLEWARE_ORDER
        )
        settings.setdefault_in_component_priority_dict("SPIDER_MIDDLEWARES", SteeringSpiderMiddleware, STEERING_ORDER)
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", SteeringDownloaderMiddleware, STEERING_DOWNLOADER_ORDER
        )
        settings.setdefault_in_component_priority_dict("ITEM_PIPELINES", BodyTextPipeline, PIPELINE_ORDER)
        settings.setdefault_in_component_priority_dict("EXTENSIONS", RejectedFeed, EXTENSION_ORDER)
        for name, value in DEFAULTS.items():
            settings.set(name, deepcopy(value), "addon")
        validate(settings, self.crawler)
