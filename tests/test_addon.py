"""The add-on: one line enables the components and sets defaults that any user setting overrides."""

from __future__ import annotations

import logging

import pytest
from scrapy import Spider
from scrapy.exceptions import NotConfigured
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_bodytext import (
    Addon,
    BodyTextDownloaderMiddleware,
    BodyTextPipeline,
    BodyTextSpiderMiddleware,
)
from scrapy_bodytext.plugin.addon import (
    DOWNLOADER_MIDDLEWARE_ORDER,
    EXTENSION_ORDER,
    PIPELINE_ORDER,
    SPIDER_MIDDLEWARE_ORDER,
)
from scrapy_bodytext.plugin.review import RejectedFeed
from scrapy_bodytext.plugin.settings import DEFAULTS, BodyTextSettingError
from scrapy_bodytext.plugin.steering import (
    STEERING_DOWNLOADER_ORDER,
    STEERING_ORDER,
    SteeringDownloaderMiddleware,
    SteeringSpiderMiddleware,
)

COMPONENTS = (
    ("DOWNLOADER_MIDDLEWARES", BodyTextDownloaderMiddleware, DOWNLOADER_MIDDLEWARE_ORDER),
    ("SPIDER_MIDDLEWARES", BodyTextSpiderMiddleware, SPIDER_MIDDLEWARE_ORDER),
    ("ITEM_PIPELINES", BodyTextPipeline, PIPELINE_ORDER),
    ("EXTENSIONS", RejectedFeed, EXTENSION_ORDER),
    ("SPIDER_MIDDLEWARES", SteeringSpiderMiddleware, STEERING_ORDER),
    ("DOWNLOADER_MIDDLEWARES", SteeringDownloaderMiddleware, STEERING_DOWNLOADER_ORDER),
)


def test_the_addon_line_enables_every_component_and_default():
    settings = get_crawler(settings_dict={"ADDONS": {"scrapy_bodytext.Addon": 0}}).settings
    for setting, component, order in COMPONENTS:
        assert settings.getdict(setting)[component] == order
    for name, value in DEFAULTS.items():
        assert settings[name] == value
        assert settings.getpriority(name) == SETTINGS_PRIORITIES["addon"]


def test_project_settings_override_the_addon_defaults():
    settings = get_crawler(
        settings_dict={
            "ADDONS": {Addon: 0},
            "BODYTEXT_ARTICLE_THRESHOLD": 0.8,
            "BODYTEXT_TEXT_FIELD": "body",
        }
    ).settings
    assert settings["BODYTEXT_ARTICLE_THRESHOLD"] == 0.8
    assert settings["BODYTEXT_TEXT_FIELD"] == "body"
    assert settings["BODYTEXT_ON_FAILURE"] == DEFAULTS["BODYTEXT_ON_FAILURE"]


def test_spider_settings_enable_it_and_override_the_defaults():
    class NewsSpider(Spider):
        name = "news"
        custom_settings = {"ADDONS": {"scrapy_bodytext.Addon": 0}, "BODYTEXT_DROP_NON_ARTICLES": False}

    settings = get_crawler(NewsSpider).settings
    assert settings.getdict("ITEM_PIPELINES")[BodyTextPipeline] == PIPELINE_ORDER
    assert settings["BODYTEXT_DROP_NON_ARTICLES"] is False


def test_components_the_user_already_placed_keep_their_order():
    settings = get_crawler(
        settings_dict={
            "ADDONS": {Addon: 0},
            "ITEM_PIPELINES": {"scrapy_bodytext.plugin.pipelines.BodyTextPipeline": 800},
            "SPIDER_MIDDLEWARES": {"scrapy_bodytext.BodyTextSpiderMiddleware": 60},
        }
    ).settings
    pipelines = settings.getdict("ITEM_PIPELINES")
    assert pipelines == {"scrapy_bodytext.plugin.pipelines.BodyTextPipeline": 800}
    assert settings.getdict("SPIDER_MIDDLEWARES") == {
        "scrapy_bodytext.BodyTextSpiderMiddleware": 60,
        SteeringSpiderMiddleware: STEERING_ORDER,
    }
    assert settings.getdict("DOWNLOADER_MIDDLEWARES")[BodyTextDownloaderMiddleware] == DOWNLOADER_MIDDLEWARE_ORDER


@pytest.mark.parametrize(("setting", "component", "order"), COMPONENTS)
def test_every_component_is_disabled_by_the_kill_switch(setting, component, order):
    crawler = get_crawler(settings_dict={"ADDONS": {Addon: 0}, "BODYTEXT_ENABLED": False})
    with pytest.raises(NotConfigured):
        build_from_crawler(component, crawler)


def test_the_addon_refuses_an_invalid_setting_before_scrapy_builds_anything(caplog):
    with pytest.raises(BodyTextSettingError, match="^BODYTEXT_ON_FAILURE: "):
        get_crawler(settings_dict={"ADDONS": {Addon: 0}, "BODYTEXT_ON_FAILURE": "explode"})
    errors = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(errors) == 1 and "BODYTEXT_ON_FAILURE" in errors[0] and "'explode'" in errors[0]


@pytest.mark.parametrize(("setting", "component", "order"), COMPONENTS)
def test_every_component_refuses_an_invalid_setting_when_enabled_by_hand(setting, component, order):
    with pytest.raises(BodyTextSettingError, match="BODYTEXT_ON_FAILURE"):  # extensions: built with the crawler
        build_from_crawler(
            component, get_crawler(settings_dict={setting: {component: order}, "BODYTEXT_ON_FAILURE": "explode"})
        )


def test_a_disabled_plugin_validates_nothing_else():
    crawler = get_crawler(
        settings_dict={"ADDONS": {Addon: 0}, "BODYTEXT_ENABLED": "off", "BODYTEXT_ON_FAILURE": "explode"}
    )
    with pytest.raises(NotConfigured):
        build_from_crawler(BodyTextPipeline, crawler)
