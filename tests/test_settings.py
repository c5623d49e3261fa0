"""BODYTEXT_* settings: defaults, command-line strings, and errors that name the setting."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import scrapy
from scrapy.settings import Settings

from scrapy_bodytext import ExtractConfig
from scrapy_bodytext.plugin.settings import DEFAULTS, FIELD_PRESETS, BodyTextSettingError, load_settings, unknown_names
from scrapy_bodytext.result import VALUE_NAMES

REPO = Path(__file__).resolve().parent.parent
README, PLUGIN_DOC = REPO / "README.md", REPO / "docs" / "plugin.md"


def test_defaults_give_the_core_defaults():
    loaded = load_settings({})
    # the core's defaults, except that the default fields take no page metadata, so none is read
    assert loaded.extract == ExtractConfig(metadata=False)
    assert loaded.enabled and loaded.drop_non_articles
    assert loaded.on_failure == "drop"
    assert loaded.fields == ("main_text", "article_probability")
    assert loaded.item_classes == () and loaded.in_scope(object())
    assert loaded.rejected_feeds == ()
    assert loaded.status_codes == {200}
    assert "text/html" in loaded.content_types
    assert loaded.threads >= 1 and loaded.workers >= 0


def test_values_reach_the_extract_config():
    loaded = load_settings(
        Settings(
            {
                "BODYTEXT_ARTICLE_THRESHOLD": 0.7,
                "BODYTEXT_MAX_BODY_SIZE": 1000,
                "BODYTEXT_MAX_NODES": 50,
                "BODYTEXT_TIME_BUDGET": 2,
                "BODYTEXT_OUTPUT_FORMAT": "html",
                "BODYTEXT_OUTPUT_LINKS": True,
            }
        )
    )
    assert (loaded.extract.threshold, loaded.extract.max_body_size) == (0.7, 1000)
    assert (loaded.extract.max_nodes, loaded.extract.time_budget) == (50, 2.0)
    assert (loaded.extract.output_format, loaded.extract.links) == ("html", True)


def test_command_line_strings_are_accepted():
    loaded = load_settings(
        Settings(
            {
                "BODYTEXT_ARTICLE_THRESHOLD": "0.25",
                "BODYTEXT_DROP_NON_ARTICLES": "false",
                "BODYTEXT_ENABLED": "1",
                "BODYTEXT_STATUS_CODES": "200,203",
                "BODYTEXT_THREADS": "3",
                "BODYTEXT_ON_FAILURE": "Store",
                "BODYTEXT_CONTENT_TYPES": "text/html",
                "BODYTEXT_EXTRACTOR_OPTIONS": '{"bodytext": {}}',
                "BODYTEXT_OUTPUT_FORMAT": " Markdown",
                "BODYTEXT_OUTPUT_LINKS": "yes",
            }
        )
    )
    assert (loaded.extract.output_format, loaded.extract.links) == ("markdown", True)
    assert loaded.extract.threshold == 0.25
    assert loaded.drop_non_articles is False and loaded.enabled is True
    assert loaded.status_codes == {200, 203} and loaded.content_types == {"text/html"}
    assert loaded.threads == 3 and loaded.on_failure == "store"


@pytest.mark.parametrize("none", [None, "None", "none", "", " "])
def test_a_field_set_to_none_or_empty_is_not_written(none):
    loaded = load_settings(Settings({"BODYTEXT_TEXT_FIELD": "body", "BODYTEXT_PROBABILITY_FIELD": none}))
    assert loaded.field_map == (("main_text", "body"),)


def test_a_list_setting_blames_the_entry_at_fault():
    with pytest.raises(BodyTextSettingError) as raised:
        load_settings(Settings({"BODYTEXT_STATUS_CODES": "200,abc"}))
    assert str(raised.value).startswith("BODYTEXT_STATUS_CODES: entry 'abc': expected an HTTP status code")
    with pytest.raises(BodyTextSettingError, match=r"^BODYTEXT_CONTENT_TYPES: entry 'html': "):
        load_settings({"BODYTEXT_CONTENT_TYPES": ["text/html", "html"]})


def test_the_metadata_preset_in_one_line():
    loaded = load_settings(Settings({"BODYTEXT_FIELDS": "metadata"}))
    assert loaded.fields[:2] == ("main_text", "article_probability")
    assert {"title", "published", "modified", "authors", "language", "canonical_url"} <= set(loaded.fields)
    assert all(name == field for name, field in loaded.field_map)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("all", tuple((name, name) for name in (*VALUE_NAMES, "site_evidence", "decided_by"))),
        ("main_text,title", (("main_text", "main_text"), ("title", "title"))),
        (
            ["default", "authors"],
            (("main_text", "main_text"), ("article_probability", "article_probability"), ("authors", "authors")),
        ),
        ({"main_text": "body", "title": "headline", "language": None}, (("main_text", "body"), ("title", "headline"))),
        ('{"main_text": "body", "published": "date"}', (("main_text", "body"), ("published", "date"))),
        ('["title", "language"]', (("title", "title"), ("language", "language"))),
    ],
)
def test_fields_as_presets_names_or_mappings(value, expected):
    assert load_settings(Settings({"BODYTEXT_FIELDS": value})).field_map == expected


@pytest.mark.parametrize(
    ("value", "collected"),
    [
        ("default", False),
        ("metadata", False),
        ("all", True),
        (["default", "comments"], True),
        ({"main_text": "body", "comments": "reader_comments"}, True),
        ({"comments": None}, False),
    ],
)
def test_comments_are_collected_only_when_a_field_takes_them(value, collected):
    assert load_settings(Settings({"BODYTEXT_FIELDS": value})).extract.comments is collected


@pytest.mark.parametrize(
    ("settings", "read"),
    [
        ({}, False),
        ({"BODYTEXT_FIELDS": "metadata"}, True),
        ({"BODYTEXT_FIELDS": "main_text,language"}, False),
        ({"BODYTEXT_FIELDS": {"main_text": "body", "published": "date"}}, True),
        ({"BODYTEXT_REJECTED_FEED": "rejected.jsonl"}, True),
    ],
)
def test_metadata_is_read_only_when_a_field_or_the_review_feed_takes_it(settings, read):
    assert load_settings(Settings(settings)).extract.metadata is read


def test_the_old_field_settings_rename_the_two_values():
    loaded = load_settings(
        {"BODYTEXT_FIELDS": "metadata", "BODYTEXT_TEXT_FIELD": "body", "BODYTEXT_PROBABILITY_FIELD": "None"}
    )
    assert loaded.field_map[0] == ("main_text", "body") and "article_probability" not in dict(loaded.field_map)
    assert "title" in loaded.fields
    with pytest.raises(BodyTextSettingError, match=r"^BODYTEXT_TEXT_FIELD: .*set it in one place"):
        load_settings({"BODYTEXT_FIELDS": {"main_text": "body"}, "BODYTEXT_TEXT_FIELD": "text"})


class ArticleItem(scrapy.Item):
    url = scrapy.Field()


def test_item_classes_as_classes_or_import_paths():
    loaded = load_settings(Settings({"BODYTEXT_ITEM_CLASSES": f"{__name__}.ArticleItem, builtins.dict"}))
    assert loaded.item_classes == (ArticleItem, dict)
    assert loaded.in_scope(ArticleItem()) and loaded.in_scope({}) and not loaded.in_scope(scrapy.Item())
    assert load_settings({"BODYTEXT_ITEM_CLASSES": [ArticleItem]}).item_classes == (ArticleItem,)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("rejected.jsonl", (("rejected.jsonl", {}),)),
        ({"review/%(name)s.csv": {"overwrite": True}}, (("review/%(name)s.csv", {"overwrite": True}),)),
        ('{"rejected": {"format": "jsonlines"}}', (("rejected", {"format": "jsonlines"}),)),
        ("", ()),
    ],
)
def test_the_review_feed_as_a_path_or_feeds_entries(value, expected):
    assert load_settings(Settings({"BODYTEXT_REJECTED_FEED": value})).rejected_feeds == expected


@pytest.mark.parametrize(
    ("name", "meant"),
    [
        ("BODYTEXT_TRESHOLD", "BODYTEXT_ARTICLE_THRESHOLD"),
        ("BODYTEXT_THRESHOLD", "BODYTEXT_ARTICLE_THRESHOLD"),
        ("BODYTEXT_WORKER", "BODYTEXT_WORKERS"),
        ("BODYTEXT_FIELD", "BODYTEXT_FIELDS"),
        ("BODYTEXT_ITEM_CLASS", "BODYTEXT_ITEM_CLASSES"),
        ("BODYTEXT_REJECTED_FEEDS", "BODYTEXT_REJECTED_FEED"),
        ("BODYTEXT_EXTRACTER", "BODYTEXT_EXTRACTOR"),
        ("BODYTEXT_QWERTY", None),
    ],
)
def test_unknown_names_with_the_setting_a_typo_meant(name, meant):
    assert unknown_names([name, "BODYTEXT_ENABLED", "DOWNLOAD_DELAY"]) == {name: meant}


@pytest.mark.parametrize(
    ("name", "value"),
    [
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
        ("BODYTEXT_KEPT_PAGE_TYPES", ["article", "blog"]),
        ("BODYTEXT_KEPT_PAGE_TYPES", 5),
        ("BODYTEXT_TEXT_FIELD", "main text"),
        ("BODYTEXT_FIELDS", "titel"),
        ("BODYTEXT_FIELDS", {"main_text": "main text"}),
        ("BODYTEXT_FIELDS", {"main_text": "x", "title": "x"}),
        ("BODYTEXT_FIELDS", []),
        ("BODYTEXT_FIELDS", "{not json"),
        ("BODYTEXT_ITEM_CLASSES", "no.such.Item"),
        ("BODYTEXT_ITEM_CLASSES", "scrapy.Nothing"),
        ("BODYTEXT_ITEM_CLASSES", [5]),
        ("BODYTEXT_REJECTED_FEED", "rejected"),
        ("BODYTEXT_REJECTED_FEED", 5),
        ("BODYTEXT_REJECTED_FEED", {"rejected.jsonl": "jsonlines"}),
        ("BODYTEXT_REVIEW_BAND", 1.5),
        ("BODYTEXT_REVIEW_BAND", "wide"),
        ("BODYTEXT_REVIEW_BAND", -0.1),
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
        ("BODYTEXT_OUTPUT_FORMAT", "pdf"),
        ("BODYTEXT_OUTPUT_FORMAT", None),
        ("BODYTEXT_OUTPUT_LINKS", "maybe"),
    ],
)
def test_an_invalid_value_raises_naming_the_setting(name, value):
    with pytest.raises(BodyTextSettingError, match=rf"^{name}: ") as raised:
        load_settings(Settings({name: value}))
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("name", ["BODYTEXT_SITE_MEMORY", "BODYTEXT_DROP_NON_ARTICLES", "BODYTEXT_ZYTE_OVERWRITE"])
def test_a_yes_or_no_setting_accepts_exactly_the_words_its_error_lists(name):
    """The error for a word it refuses names every word it accepts, and each of them is accepted."""
    with pytest.raises(BodyTextSettingError) as raised:
        load_settings(Settings({name: "nope"}))
    listed = re.search(r"as text, ([\w/]+) or ([\w/]+)\)", str(raised.value))
    assert listed is not None, str(raised.value)
    for words, expected in ((listed[1], True), (listed[2], False)):
        for word in words.split("/"):
            for spelling in (word, word.upper()):
                settings = load_settings(Settings({name: spelling}))
                assert getattr(settings, name.removeprefix("BODYTEXT_").lower()) is expected, spelling


def test_every_setting_is_documented_with_its_default_and_an_example():
    """docs/plugin.md has a section per setting: its default (as Python, checked against the code)
    and a code example; the README links to it."""
    sections = dict(
        re.findall(r"^### `(BODYTEXT_[A-Z_]+)`\n(.*?)(?=^### |^## |\Z)", PLUGIN_DOC.read_text(), re.S | re.M)
    )
    assert set(sections) == set(DEFAULTS), f"undocumented: {sorted(set(DEFAULTS) - set(sections))}"
    for name, text in sections.items():
        default = re.search(r"^Default: `(.+?)`", text, re.M)
        assert default, f"{name}: no 'Default: `...`' line"
        assert ast.literal_eval(default.group(1)) == DEFAULTS[name], name
        assert re.search(rf"```(python|sh)\n.*{name}", text, re.S), f"{name}: no example"
    assert "docs/plugin.md" in README.read_text()
    for preset, names in FIELD_PRESETS.items():
        assert f"`{preset}`" in sections["BODYTEXT_FIELDS"]
        assert preset == "all" or all(f"`{name}`" in sections["BODYTEXT_FIELDS"] for name in names)


def test_kept_page_types_are_validated_and_add_the_page_type_field():
    default = load_settings(Settings({}))
    assert default.kept_page_types == frozenset() and "page_type" not in default.fields
    corpus = load_settings(Settings({"BODYTEXT_KEPT_PAGE_TYPES": "article, Forum"}))
    assert corpus.kept_page_types == {"article", "forum"} and "page_type" in corpus.fields
    chosen = load_settings(Settings({"BODYTEXT_KEPT_PAGE_TYPES": ["forum"], "BODYTEXT_FIELDS": "main_text"}))
    assert chosen.fields == ("main_text",)  # fields named by hand stay as named
