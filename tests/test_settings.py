"""BODYTEXT_* settings: defaults, command-line strings, and errors that name the setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from scrapy.settings import Settings

from scrapy_bodytext import ExtractConfig
from scrapy_bodytext.settings import DEFAULTS, BodyTextSettingError, load_settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_defaults_give_the_core_defaults():
    loaded = load_settings({})
    assert loaded.extract == ExtractConfig()
    assert loaded.enabled and loaded.drop_non_articles
    assert loaded.on_failure == "drop"
    assert loaded.fields == ("main_text", "article_probability")
    assert loaded.status_codes == {200}
    assert "text/html" in loaded.content_types
    assert loaded.threads >= 1 and loaded.workers >= 0


def test_values_reach_the_extract_config():
    loaded = load_settings(Settings({
        "BODYTEXT_ARTICLE_THRESHOLD": 0.7, "BODYTEXT_MAX_BODY_SIZE": 1000, "BODYTEXT_MAX_NODES": 50,
        "BODYTEXT_TIME_BUDGET": 2,
    }))
    assert (loaded.extract.threshold, loaded.extract.max_body_size) == (0.7, 1000)
    assert (loaded.extract.max_nodes, loaded.extract.time_budget) == (50, 2.0)


def test_command_line_strings_are_accepted():
    loaded = load_settings(Settings({
        "BODYTEXT_ARTICLE_THRESHOLD": "0.25", "BODYTEXT_DROP_NON_ARTICLES": "false", "BODYTEXT_ENABLED": "1",
        "BODYTEXT_STATUS_CODES": "200,203", "BODYTEXT_THREADS": "3", "BODYTEXT_ON_FAILURE": "Store",
        "BODYTEXT_CONTENT_TYPES": "text/html", "BODYTEXT_EXTRACTOR_OPTIONS": '{"bodytext": {}}',
    }))
    assert loaded.extract.threshold == 0.25
    assert loaded.drop_non_articles is False and loaded.enabled is True
    assert loaded.status_codes == {200, 203} and loaded.content_types == {"text/html"}
    assert loaded.threads == 3 and loaded.on_failure == "store"


def test_a_field_set_to_none_is_not_written():
    loaded = load_settings({"BODYTEXT_TEXT_FIELD": "body", "BODYTEXT_PROBABILITY_FIELD": None})
    assert loaded.fields == ("body",)


@pytest.mark.parametrize(("name", "value"), [
    ("BODYTEXT_ENABLED", "maybe"),
    ("BODYTEXT_EXTRACTOR", "no-such-method"),
    ("BODYTEXT_EXTRACTOR", 3),
    ("BODYTEXT_EXTRACTOR_OPTIONS", ["bodytext"]),
    ("BODYTEXT_EXTRACTOR_OPTIONS", "{not json"),
    ("BODYTEXT_EXTRACTOR_OPTIONS", {"bodytext": {"no_such_option": 1}}),
    ("BODYTEXT_EXTRACTOR_OPTIONS", {"no-such-method": {}}),
    ("BODYTEXT_ARTICLE_THRESHOLD", 1.5),
    ("BODYTEXT_ARTICLE_THRESHOLD", "high"),
    ("BODYTEXT_ARTICLE_THRESHOLD", True),
    ("BODYTEXT_DROP_NON_ARTICLES", 2),
    ("BODYTEXT_ON_FAILURE", "ignore"),
    ("BODYTEXT_TEXT_FIELD", "main text"),
    ("BODYTEXT_PROBABILITY_FIELD", 5),
    ("BODYTEXT_MAX_BODY_SIZE", 0),
    ("BODYTEXT_MAX_BODY_SIZE", 1.5),
    ("BODYTEXT_MAX_NODES", -1),
    ("BODYTEXT_TIME_BUDGET", 0),
    ("BODYTEXT_STATUS_CODES", [200, 700]),
    ("BODYTEXT_STATUS_CODES", 200),
    ("BODYTEXT_CONTENT_TYPES", ["html"]),
    ("BODYTEXT_THREADS", 0),
    ("BODYTEXT_WORKERS", -1),
    ("BODYTEXT_WORKER_MAX_TASKS", 0),
    ("BODYTEXT_WORKER_TIMEOUT", "soon"),
])
def test_an_invalid_value_raises_naming_the_setting(name, value):
    with pytest.raises(BodyTextSettingError, match=rf"^{name}: ") as raised:
        load_settings(Settings({name: value}))
    assert isinstance(raised.value, ValueError)


def test_every_setting_is_documented_in_the_readme_with_its_default():
    section = re.search(r"<!-- section: plugin -->(.*)<!-- /section: plugin -->", README.read_text(), re.S)
    assert section, "README has no plugin section"
    documented = set(re.findall(r"`(BODYTEXT_[A-Z_]+)`", section.group(1)))
    assert documented >= set(DEFAULTS), f"undocumented: {sorted(set(DEFAULTS) - documented)}"
