"""Every ``BODYTEXT_*`` setting with its default, and their validation into one frozen object.

An invalid value raises :class:`BodyTextSettingError` (a ``ValueError``) naming the setting (and, in a
list, the entry at fault); :mod:`scrapy_bodytext.plugin.startup` turns it into one error line that stops the
crawl before it fetches anything.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from scrapy.utils.misc import load_object

from .. import extractors
from ..config import (
    CAPTION_CHOICES,
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_MAX_NODES,
    DEFAULT_OUTPUT_FORMAT,
    DEFAULT_THRESHOLD,
    DEFAULT_TIME_BUDGET,
    OUTPUT_FORMATS,
    ExtractConfig,
)
from ..duplicates import DEFAULT_CAPACITY, DEFAULT_SIMILARITY, FIELDS, MODES
from ..extractors.bodytext.page import PAGE_TYPES
from ..metadata import METADATA_VALUES
from ..result import VALUE_NAMES
from ..stores import DEFAULT_CONNECT_TIMEOUT, DEFAULT_RETRY_AFTER, DEFAULT_TIMEOUT, RedisLink, check_redis_url
from ..workers.executors import default_workers
from . import zyte

#: outcomes of a page the extractor could not handle (BODYTEXT_ON_FAILURE)
ON_FAILURE_CHOICES = ("drop", "store")

#: named sets of result values for BODYTEXT_FIELDS (each written to the item field of the same name)
FIELD_PRESETS: dict[str, tuple[str, ...]] = {
    "default": ("main_text", "article_probability"),
    "metadata": (
        "main_text",
        "article_probability",
        "page_type",
        "page_type_probability",
        "title",
        "published",
        "modified",
        "authors",
        "language",
        "canonical_url",
        "site_name",
        "description",
        "image",
        "tags",
        "section",
    ),
    "all": (*VALUE_NAMES, "site_evidence", "decided_by"),
}
#: values a crawl adds to the page's own (its site's evidence, who decided): written by the plugin, not by a result
CRAWL_VALUES = ("site_evidence", "decided_by")
#: presets written under other names and shapes (zyte-article: Zyte's Article fields, see ``plugin.zyte``)
RENAMING_PRESETS: dict[str, dict[str, str]] = {zyte.PRESET: zyte.ARTICLE_FIELDS}
#: what happens to an article repeating a stored one (BODYTEXT_DUPLICATES)
DUPLICATE_CHOICES = MODES
#: the item fields a flagged duplicate gets (BODYTEXT_DUPLICATES = "flag")
DUPLICATE_FIELDS = FIELDS
#: command-line spellings of "no field" for BODYTEXT_TEXT_FIELD / BODYTEXT_PROBABILITY_FIELD
NO_FIELD = ("", "none", "null")
#: sites the in-memory site memory remembers (BODYTEXT_SITE_MEMORY_SITES)
DEFAULT_SITE_MEMORY_SITES = 10_000
#: uncertain pages waiting for their site's evidence at once, in the whole crawl (BODYTEXT_SITE_WAIT_PAGES)
DEFAULT_SITE_WAIT_PAGES = 16
#: longest wait of one page for its site's evidence, in seconds (BODYTEXT_SITE_WAIT_SECONDS)
DEFAULT_SITE_WAIT_SECONDS = 30.0
#: how near the threshold a page's final probability lies to be listed for review (BODYTEXT_REVIEW_BAND)
DEFAULT_REVIEW_BAND = 0.1
#: the strings a boolean setting accepts (as Scrapy's command line passes them), true ones first
TRUE_WORDS, FALSE_WORDS = ("true", "1", "yes", "on"), ("false", "0", "no", "off")
#: each Redis key prefix setting with its own default (the example its error message gives)
REDIS_PREFIXES = {
    "BODYTEXT_DUPLICATE_REDIS_PREFIX": "bodytext:duplicates",
    "BODYTEXT_SITE_MEMORY_REDIS_PREFIX": "bodytext:sites",
}


DEFAULTS: dict[str, Any] = {
    "BODYTEXT_ENABLED": True,
    "BODYTEXT_EXTRACTOR": extractors.DEFAULT_EXTRACTOR,
    "BODYTEXT_EXTRACTOR_OPTIONS": {},
    "BODYTEXT_ARTICLE_THRESHOLD": DEFAULT_THRESHOLD,
    "BODYTEXT_DROP_NON_ARTICLES": True,
    "BODYTEXT_KEPT_PAGE_TYPES": [],
    "BODYTEXT_ON_FAILURE": "drop",
    "BODYTEXT_FIELDS": "default",
    "BODYTEXT_ZYTE_OVERWRITE": False,
    "BODYTEXT_TEXT_FIELD": "main_text",
    "BODYTEXT_PROBABILITY_FIELD": "article_probability",
    "BODYTEXT_OUTPUT_FORMAT": DEFAULT_OUTPUT_FORMAT,
    "BODYTEXT_OUTPUT_LINKS": False,
    "BODYTEXT_CAPTIONS": "apart",
    "BODYTEXT_ITEM_CLASSES": [],
    "BODYTEXT_REJECTED_FEED": None,
    "BODYTEXT_REVIEW_BAND": DEFAULT_REVIEW_BAND,
    "BODYTEXT_MAX_BODY_SIZE": DEFAULT_MAX_BODY_SIZE,
    "BODYTEXT_MAX_NODES": DEFAULT_MAX_NODES,
    "BODYTEXT_TIME_BUDGET": DEFAULT_TIME_BUDGET,
    "BODYTEXT_STATUS_CODES": [200],
    "BODYTEXT_CONTENT_TYPES": ["text/html", "application/xhtml+xml"],
    "BODYTEXT_THREADS": 1,
    "BODYTEXT_WORKERS": "auto",
    "BODYTEXT_WORKER_MAX_TASKS": 500,
    "BODYTEXT_WORKER_TIMEOUT": 60.0,
    "BODYTEXT_DUPLICATES": "flag",
    "BODYTEXT_DUPLICATE_SIMILARITY": DEFAULT_SIMILARITY,
    "BODYTEXT_DUPLICATE_CAPACITY": DEFAULT_CAPACITY,
    "BODYTEXT_DUPLICATE_REDIS_URL": None,
    "BODYTEXT_DUPLICATE_REDIS_PREFIX": REDIS_PREFIXES["BODYTEXT_DUPLICATE_REDIS_PREFIX"],
    "BODYTEXT_SITE_MEMORY": True,
    "BODYTEXT_SITE_MEMORY_SITES": DEFAULT_SITE_MEMORY_SITES,
    "BODYTEXT_SITE_MEMORY_REDIS_URL": None,
    "BODYTEXT_SITE_MEMORY_REDIS_PREFIX": REDIS_PREFIXES["BODYTEXT_SITE_MEMORY_REDIS_PREFIX"],
    "BODYTEXT_SITE_WAIT_PAGES": DEFAULT_SITE_WAIT_PAGES,
    "BODYTEXT_SITE_WAIT_SECONDS": DEFAULT_SITE_WAIT_SECONDS,
    "BODYTEXT_REDIS_CONNECT_TIMEOUT": DEFAULT_CONNECT_TIMEOUT,
    "BODYTEXT_REDIS_TIMEOUT": DEFAULT_TIMEOUT,
    "BODYTEXT_REDIS_RETRY_AFTER": DEFAULT_RETRY_AFTER,
}


class BodyTextSettingError(ValueError):
    """A ``BODYTEXT_*`` setting has an invalid value; the message names the setting."""


@dataclass(frozen=True)
class BodyTextSettings:
    """The validated plugin configuration of one crawler; ``extract`` is what the extractor needs."""

    enabled: bool
    extract: ExtractConfig
    drop_non_articles: bool
    kept_page_types: frozenset[str]  # page types whose items are stored (BODYTEXT_KEPT_PAGE_TYPES)
    on_failure: str
    field_map: tuple[tuple[str, str], ...]  # (result value name, item field name), in writing order
    zyte: bool  # BODYTEXT_FIELDS has the zyte-article preset: dict items get Zyte's Article fields and shapes
    zyte_overwrite: bool  # Zyte fields the spider set are overwritten (else only empty ones are filled)
    item_classes: tuple[type, ...]  # the item classes the pipeline judges; () = every item
    rejected_feeds: tuple[tuple[str, dict[str, Any]], ...]  # FEEDS-style (URI, options) of the review feed
    review_band: float  # pages whose final probability is this near the threshold are listed for review
    status_codes: frozenset[int]
    content_types: frozenset[str]
    threads: int
    workers: int
    worker_max_tasks: int
    worker_timeout: float
    duplicates: str  # "flag", "drop" or "off": what happens to an article repeating a stored one
    duplicate_similarity: float
    duplicate_capacity: int  # articles the in-memory index remembers
    duplicate_redis_url: str | None  # the index is shared through this Redis, else in memory
    duplicate_redis_prefix: str
    site_memory: bool  # each page's verdict is weighed with its site's evidence
    site_memory_sites: int  # sites the in-memory site memory remembers
    site_memory_redis_url: str | None  # the site memory is shared through this Redis, else in memory
    site_memory_redis_prefix: str
    site_wait_pages: int  # uncertain pages waiting for evidence at once (0: none waits)
    site_wait_seconds: float  # longest wait of one page
    redis_connect_timeout: float  # seconds to open a connection to Redis
    redis_timeout: float  # seconds one Redis call may take
    redis_retry_after: float  # seconds a failing Redis is left alone before it is tried again

    @property
    def fields(self) -> tuple[str, ...]:
        """The item fields the plugin writes (with the zyte-article preset and HTML output, also
        ``articleBodyHtml``); the duplicate fields are apart (``duplicate_fields``)."""
        written = tuple(field for _, field in self.field_map)
        if self.zyte and self.extract.output_format == "html":
            written += (zyte.HTML_FIELD,)
        return written

    @property
    def duplicate_fields(self) -> tuple[str, ...]:
        """The fields a flagged duplicate gets (none unless ``BODYTEXT_DUPLICATES`` is "flag"): written
        on duplicates only, and only where the item can hold them (typed items declare them)."""
        return DUPLICATE_FIELDS if self.duplicates == "flag" else ()

    def keeps(self, result: Any) -> bool:
        """Whether the items of a page with this (judged) result are stored: an article, or a page of
        a type ``BODYTEXT_KEPT_PAGE_TYPES`` keeps."""
        return result.is_article or result.page_type in self.kept_page_types

    def in_scope(self, item: Any) -> bool:
        """Whether the pipeline judges ``item`` (BODYTEXT_ITEM_CLASSES); other items pass untouched."""
        return not self.item_classes or isinstance(item, self.item_classes)


def load_settings(settings: Mapping[str, Any]) -> BodyTextSettings:
    """Validate the ``BODYTEXT_*`` values of Scrapy ``settings`` (missing ones take their default)."""
    reader = _Reader(settings)
    enabled = reader.get("BODYTEXT_ENABLED", _boolean)
    extractor = reader.get("BODYTEXT_EXTRACTOR", _extractor_name)
    options = reader.get("BODYTEXT_EXTRACTOR_OPTIONS", _mapping)
    threshold = reader.get("BODYTEXT_ARTICLE_THRESHOLD", _number(0.0, 1.0))
    max_body_size = reader.get("BODYTEXT_MAX_BODY_SIZE", _integer(1))
    max_nodes = reader.get("BODYTEXT_MAX_NODES", _integer(1))
    time_budget = reader.get("BODYTEXT_TIME_BUDGET", _number(0.0, None, open_low=True))
    output_format = reader.get("BODYTEXT_OUTPUT_FORMAT", _choice(OUTPUT_FORMATS))
    links = reader.get("BODYTEXT_OUTPUT_LINKS", _boolean)
    field_map = _field_map(reader)
    kept_page_types = frozenset(reader.get("BODYTEXT_KEPT_PAGE_TYPES", _list_of(_choice(PAGE_TYPES))))
    if kept_page_types - {"article"} and settings.get("BODYTEXT_FIELDS", "default") == "default":
        # items of several page types are stored: each says which it is
        field_map = tuple(pair for pair in field_map if pair[0] != "page_type") + (("page_type", "page_type"),)
    rejected_feeds = reader.get("BODYTEXT_REJECTED_FEED", _feeds)
    written = {name for name, _ in field_map}
    zyte_fields = reader.get("BODYTEXT_FIELDS", _has_zyte_preset)
    duplicates = reader.get("BODYTEXT_DUPLICATES", _choice(DUPLICATE_CHOICES))
    captions = reader.get("BODYTEXT_CAPTIONS", _choice(CAPTION_CHOICES))
    try:
        config = ExtractConfig(
            extractor=extractor,
            threshold=threshold,
            max_body_size=max_body_size,
            max_nodes=max_nodes,
            time_budget=time_budget,
            options=options,
            output_format=output_format,
            links=links,
            captions=captions,
            comments="comments" in written,  # collected only when written
            # read only when written, or for the review feed's titles
            metadata=bool(written & METADATA_VALUES or rejected_feeds),
            # articleBody, and the text duplicates are found on, are plain text whatever the output format
            plain_text=zyte_fields or (duplicates != "off" and output_format != "text"),
        )
    except ValueError as exc:  # options of an extractor: the config names the extractor and option
        raise BodyTextSettingError(f"BODYTEXT_EXTRACTOR_OPTIONS: {exc}") from None
    return BodyTextSettings(
        enabled=enabled,
        extract=config,
        drop_non_articles=reader.get("BODYTEXT_DROP_NON_ARTICLES", _boolean),
        kept_page_types=kept_page_types,
        on_failure=reader.get("BODYTEXT_ON_FAILURE", _choice(ON_FAILURE_CHOICES)),
        field_map=field_map,
        zyte=zyte_fields,
        zyte_overwrite=reader.get("BODYTEXT_ZYTE_OVERWRITE", _boolean),
        item_classes=reader.get("BODYTEXT_ITEM_CLASSES", _item_classes),
        rejected_feeds=rejected_feeds,
        review_band=reader.get("BODYTEXT_REVIEW_BAND", _number(0.0, 1.0)),
        status_codes=frozenset(reader.get("BODYTEXT_STATUS_CODES", _list_of(_status_code))),
        content_types=frozenset(reader.get("BODYTEXT_CONTENT_TYPES", _list_of(_media_type))),
        threads=reader.get("BODYTEXT_THREADS", _integer(1)),
        workers=reader.get("BODYTEXT_WORKERS", _workers),
        worker_max_tasks=reader.get("BODYTEXT_WORKER_MAX_TASKS", _integer(1)),
        worker_timeout=reader.get("BODYTEXT_WORKER_TIMEOUT", _number(0.0, None, open_low=True)),
        duplicates=duplicates,
        duplicate_similarity=reader.get("BODYTEXT_DUPLICATE_SIMILARITY", _number(0.0, 1.0, open_low=True)),
        duplicate_capacity=reader.get("BODYTEXT_DUPLICATE_CAPACITY", _integer(1)),
        duplicate_redis_url=reader.get("BODYTEXT_DUPLICATE_REDIS_URL", _redis_url),
        duplicate_redis_prefix=reader.get(
            "BODYTEXT_DUPLICATE_REDIS_PREFIX", _key_prefix("BODYTEXT_DUPLICATE_REDIS_PREFIX")
        ),
        site_memory=reader.get("BODYTEXT_SITE_MEMORY", _boolean),
        site_memory_sites=reader.get("BODYTEXT_SITE_MEMORY_SITES", _integer(1)),
        site_memory_redis_url=reader.get("BODYTEXT_SITE_MEMORY_REDIS_URL", _redis_url),
        site_memory_redis_prefix=reader.get(
            "BODYTEXT_SITE_MEMORY_REDIS_PREFIX", _key_prefix("BODYTEXT_SITE_MEMORY_REDIS_PREFIX")
        ),
        site_wait_pages=reader.get("BODYTEXT_SITE_WAIT_PAGES", _integer(0)),
        site_wait_seconds=reader.get("BODYTEXT_SITE_WAIT_SECONDS", _number(0.0, None, open_low=True)),
        redis_connect_timeout=reader.get("BODYTEXT_REDIS_CONNECT_TIMEOUT", _number(0.0, None, open_low=True)),
        redis_timeout=reader.get("BODYTEXT_REDIS_TIMEOUT", _number(0.0, None, open_low=True)),
        redis_retry_after=reader.get("BODYTEXT_REDIS_RETRY_AFTER", _number(0.0, None)),
    )


def redis_link(settings: BodyTextSettings, setting: str, url: str) -> RedisLink:
    """The Redis server ``url`` names, reached with the crawl's Redis timeouts; ``setting`` named in
    its errors and log lines."""
    return RedisLink(
        url,
        setting=setting,
        connect_timeout=settings.redis_connect_timeout,
        timeout=settings.redis_timeout,
        retry_after=settings.redis_retry_after,
    )


def is_enabled(settings: Mapping[str, Any]) -> bool:
    """``BODYTEXT_ENABLED`` (the kill switch is read alone: a disabled plugin validates nothing else)."""
    return _Reader(settings).get("BODYTEXT_ENABLED", _boolean)


def unknown_names(names: Iterable[str]) -> dict[str, str | None]:
    """The ``BODYTEXT_*`` names among ``names`` that are no setting, each with the closest known
    name (a likely typo) or None."""
    return {name: suggestion(name) for name in names if name.startswith("BODYTEXT_") and name not in DEFAULTS}


def suggestion(name: str) -> str | None:
    """The known setting ``name`` was most likely meant to be (compared without the common prefix)."""
    known = {setting.removeprefix("BODYTEXT_"): setting for setting in DEFAULTS}
    close = difflib.get_close_matches(name.removeprefix("BODYTEXT_"), known, n=1, cutoff=0.6)
    return known[close[0]] if close else None


class _Reader:
    """Reads one setting, falling back to its default, and names it in any validation error."""

    def __init__(self, settings: Mapping[str, Any]):
        self.settings = settings

    def value(self, name: str) -> Any:
        return self.settings[name] if name in self.settings else DEFAULTS[name]

    def is_default(self, name: str) -> bool:
        return self.value(name) == DEFAULTS[name]

    def get(self, name: str, convert: Callable[[Any], Any]) -> Any:
        value = self.value(name)
        try:
            return convert(value)
        except (TypeError, ValueError, ImportError) as exc:
            raise BodyTextSettingError(f"{name}: {exc} (got {value!r})") from None


# Converters: return the clean value or raise ValueError saying what is expected. Strings are
# accepted where Scrapy's command line (-s NAME=value) can only pass strings.


def _boolean(value: Any) -> bool:
    """True or False, 1 or 0, or one of the words of ``TRUE_WORDS`` and ``FALSE_WORDS`` (any case)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS + FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    raise ValueError(f"expected True or False (or, as text, {'/'.join(TRUE_WORDS)} or {'/'.join(FALSE_WORDS)})")


def _integer(minimum: int) -> Callable[[Any], int]:
    def convert(value: Any) -> int:
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"expected an integer >= {minimum}")
        return value

    return convert


def _number(low: float, high: float | None, *, open_low: bool = False) -> Callable[[Any], float]:
    expected = f"a number > {low}" if open_low else f"a number >= {low}"
    if high is not None:
        expected = f"a number within [{low}, {high}]"

    def convert(value: Any) -> float:
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise ValueError(f"expected {expected}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ValueError(f"expected {expected}")
        too_low = value <= low if open_low else value < low
        if too_low or (high is not None and value > high):
            raise ValueError(f"expected {expected}")
        return float(value)

    return convert


def _workers(value: Any) -> int:
    """A number of worker processes, or "auto" (None too): the default for this machine."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
        return default_workers()
    try:
        return _integer(0)(value)
    except ValueError:
        raise ValueError('expected an integer >= 0, or "auto"') from None


def _redis_url(value: Any) -> str | None:
    """A complete Redis URL (redis://host[:port][/db], rediss://…, unix:///socket[?db=N]), or None/""
    to keep the store in memory."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise ValueError("expected a Redis URL such as 'redis://localhost:6379/0', or None to keep it in memory")
    return check_redis_url(value)


def _key_prefix(setting: str) -> Callable[[Any], str]:
    """A Redis key prefix without spaces; the error's example is the setting's own default."""

    def convert(value: Any) -> str:
        if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value.strip()):
            raise ValueError(f"expected a Redis key prefix without spaces, e.g. {REDIS_PREFIXES[setting]!r}")
        return value.strip()

    return convert


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def convert(value: Any) -> str:
        if not isinstance(value, str) or value.strip().lower() not in choices:
            raise ValueError(f"expected one of {', '.join(map(repr, choices))}")
        return value.strip().lower()

    return convert


def _extractor_name(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected the name of an extractor")
    extractors.load(value)  # ValueError listing the known names
    return value


def _mapping(value: Any) -> dict:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            raise ValueError("expected a mapping {extractor name: {option: value}} (or its JSON text)") from None
    if not isinstance(value, Mapping):
        raise ValueError("expected a mapping {extractor name: {option: value}}")
    return dict(value)


def _field_name(value: Any) -> str | None:
    """An item field name; None, "None" or "" (the command line's spellings) for "not written"."""
    if value is None or (isinstance(value, str) and value.strip().lower() in NO_FIELD):
        return None
    if not isinstance(value, str) or not value.strip().isidentifier():
        raise ValueError('expected an item field name (an identifier), or None (or "") not to write the field')
    return value.strip()


def _list_of(convert: Callable[[Any], Any]) -> Callable[[Any], list]:
    """A list (or a comma-separated string) of values for ``convert``; an error names the bad entry."""

    def convert_all(value: Any) -> list:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise ValueError("expected a list")
        converted = []
        for item in value:
            try:
                converted.append(convert(item))
            except (TypeError, ValueError, ImportError) as exc:
                raise ValueError(f"entry {item!r}: {exc}") from None
        return converted

    return convert_all


def _status_code(value: Any) -> int:
    try:
        code = _integer(100)(value)
    except ValueError:
        code = 0
    if not 100 <= code <= 599:
        raise ValueError("expected an HTTP status code (100-599)")
    return code


def _media_type(value: Any) -> str:
    if not isinstance(value, str) or "/" not in value:
        raise ValueError("expected media types such as 'text/html'")
    return value.strip().lower()


def _field_map(reader: _Reader) -> tuple[tuple[str, str], ...]:
    """BODYTEXT_FIELDS, with the fields of main_text and article_probability named by
    BODYTEXT_TEXT_FIELD / BODYTEXT_PROBABILITY_FIELD unless BODYTEXT_FIELDS renames them itself."""
    chosen = reader.get("BODYTEXT_FIELDS", _fields)
    for value_name, setting in (
        ("main_text", "BODYTEXT_TEXT_FIELD"),
        ("article_probability", "BODYTEXT_PROBABILITY_FIELD"),
    ):
        field = reader.get(setting, _field_name)
        if value_name not in chosen:
            continue
        if chosen[value_name] == value_name:
            chosen[value_name] = field
        elif not reader.is_default(setting):
            raise BodyTextSettingError(
                f"{setting}: BODYTEXT_FIELDS already names the field of {value_name} "
                f"({chosen[value_name]!r}); set it in one place (got {reader.value(setting)!r})"
            )
    pairs = tuple((name, field) for name, field in chosen.items() if field)
    fields = [field for _, field in pairs]
    repeated = sorted({field for field in fields if fields.count(field) > 1})
    if repeated:
        raise BodyTextSettingError(f"BODYTEXT_FIELDS: two values written to the same item field {repeated[0]!r}")
    return pairs


def fields_of(value: Any) -> dict[str, str]:
    """The result values a ``BODYTEXT_FIELDS``-style value names, each with the field (or key) it is
    written to (those mapped to None left out); raises ``ValueError`` saying what is expected."""
    return {name: field for name, field in _fields(value).items() if field and name not in CRAWL_VALUES}


def _fields(value: Any) -> dict[str, str | None]:
    """BODYTEXT_FIELDS: a preset name, value names (list or comma-separated), or a mapping
    {value name: item field name or None}; JSON text of a list or mapping is accepted."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValueError("expected a preset name, value names, or a JSON mapping {value: field}") from None
    if isinstance(value, Mapping):
        return {_value_name(name): _field_name(field) for name, field in value.items()}
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, (list, tuple)) or not value:
        raise ValueError(
            f"expected a preset name ({', '.join([*FIELD_PRESETS, *RENAMING_PRESETS])}), value names, "
            "or a mapping {value: field}"
        )
    chosen: dict[str, str | None] = {}
    for entry in value:
        if isinstance(entry, str) and entry in RENAMING_PRESETS:
            chosen.update(RENAMING_PRESETS[entry])
            continue
        preset = FIELD_PRESETS.get(entry) if isinstance(entry, str) else None
        for name in preset or (_value_name(entry),):
            chosen[name] = name
    return chosen


def _has_zyte_preset(value: Any) -> bool:
    """Whether BODYTEXT_FIELDS (already validated) names the zyte-article preset."""
    if isinstance(value, str):
        value = (
            [part.strip() for part in value.split(",")] if value.strip()[:1] not in ("{", "[") else json.loads(value)
        )
    return isinstance(value, (list, tuple)) and zyte.PRESET in value


def _value_name(name: Any) -> str:
    if name not in VALUE_NAMES and name not in CRAWL_VALUES:
        known = [*VALUE_NAMES, *CRAWL_VALUES, *FIELD_PRESETS, *RENAMING_PRESETS]
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(
            f"unknown result value {name!r}; {hint}known: {', '.join([*VALUE_NAMES, *CRAWL_VALUES])}; "
            f"presets: {', '.join([*FIELD_PRESETS, *RENAMING_PRESETS])}"
        )
    return name


def _item_classes(value: Any) -> tuple[type, ...]:
    """BODYTEXT_ITEM_CLASSES: classes or their import paths (a list or a comma-separated string)."""
    if value is None or value == "":
        return ()
    if isinstance(value, type):
        value = [value]
    return tuple(_list_of(_item_class)(value))


def _item_class(value: Any) -> type:
    if isinstance(value, str):
        try:
            value = load_object(value.strip())
        except (ImportError, NameError, ValueError) as exc:
            raise ValueError(f"cannot import it ({exc})") from None
    if not isinstance(value, type):
        raise ValueError("expected an item class or its import path, e.g. 'myproject.items.ArticleItem'")
    return value


def _feeds(value: Any) -> tuple[tuple[str, dict[str, Any]], ...]:
    """BODYTEXT_REJECTED_FEED: a URI or path (format from its extension), or a FEEDS-style mapping
    {URI: {"format": ..., other feed options}} (JSON text accepted)."""
    if value is None or value == "":
        return ()
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ValueError("expected a file path or URI, or a FEEDS-style mapping (or its JSON text)") from None
    if isinstance(value, (str, PurePath)):
        value = {value: {}}
    if not isinstance(value, Mapping):
        raise ValueError("expected a file path or URI, or a FEEDS-style mapping {uri: {'format': ...}}")
    feeds = []
    for uri, options in value.items():
        if options is None:
            options = {}
        if not isinstance(uri, (str, PurePath)) or not str(uri).strip() or not isinstance(options, Mapping):
            raise ValueError(f"entry {uri!r}: expected a URI with a mapping of feed options")
        uri = str(uri.absolute()) if isinstance(uri, PurePath) else uri.strip()
        options = dict(options)
        if not (options.get("format") or PurePath(uri).suffix.removeprefix(".")):
            raise ValueError(f"entry {uri!r}: no format: give it as {{'format': 'jsonlines'}} or in the file extension")
        feeds.append((uri, options))
    return tuple(feeds)


# --- steering (docs/steering.md): read by plugin/steering.py ----------------------------------------
#: what the steering spider middleware does with the links of each page (BODYTEXT_STEER)
STEER_MODES = ("off", "observe", "prioritize", "prune")
STEER_DEFAULTS: dict[str, Any] = {
    "BODYTEXT_STEER": "prioritize",
    "BODYTEXT_STEER_SHAPE_PAGES": 8,
    "BODYTEXT_STEER_PAGING_PAGES": 3,
    "BODYTEXT_STEER_PROBE_EVERY": 20,
    "BODYTEXT_STEER_SITES": 1000,
    "BODYTEXT_STEER_LINKS": 200_000,
}
DEFAULTS.update(STEER_DEFAULTS)


@dataclass(frozen=True)
class SteerSettings:
    mode: str  # off, observe, prioritize or prune
    shape_pages: int  # barren pages in a row after which a URL shape is pruned
    paging_pages: int  # pages in a row without a new article link after which a list's paging stops
    probe_every: int  # one link in this many of a pruned shape is fetched all the same
    sites: int  # sites remembered
    links: int  # links remembered as seen (and pages awaiting their outcome)


def load_steer_settings(settings: Mapping[str, Any]) -> SteerSettings:
    """Validate the ``BODYTEXT_STEER*`` values of Scrapy ``settings``."""
    reader = _Reader(settings)
    return SteerSettings(
        mode=reader.get("BODYTEXT_STEER", _choice(STEER_MODES)),
        shape_pages=reader.get("BODYTEXT_STEER_SHAPE_PAGES", _integer(1)),
        paging_pages=reader.get("BODYTEXT_STEER_PAGING_PAGES", _integer(1)),
        probe_every=reader.get("BODYTEXT_STEER_PROBE_EVERY", _integer(1)),
        sites=reader.get("BODYTEXT_STEER_SITES", _integer(1)),
        links=reader.get("BODYTEXT_STEER_LINKS", _integer(1)),
    )
