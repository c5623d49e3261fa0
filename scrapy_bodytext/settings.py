"""Every ``BODYTEXT_*`` setting with its default, and their validation into one frozen object.

An invalid value raises :class:`BodyTextSettingError` (a ``ValueError``) naming the setting, when the
components are built at crawl start, so a misconfigured crawl stops before it fetches anything.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import NotConfigured

from . import extractors
from .config import (
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_MAX_NODES,
    DEFAULT_THRESHOLD,
    DEFAULT_TIME_BUDGET,
    ExtractConfig,
)
from .executors import default_workers

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: outcomes of a page the extractor could not handle (BODYTEXT_ON_FAILURE)
ON_FAILURE_CHOICES = ("drop", "store")


DEFAULTS: dict[str, Any] = {
    "BODYTEXT_ENABLED": True,
    "BODYTEXT_EXTRACTOR": extractors.DEFAULT_EXTRACTOR,
    "BODYTEXT_EXTRACTOR_OPTIONS": {},
    "BODYTEXT_ARTICLE_THRESHOLD": DEFAULT_THRESHOLD,
    "BODYTEXT_DROP_NON_ARTICLES": True,
    "BODYTEXT_ON_FAILURE": "drop",
    "BODYTEXT_TEXT_FIELD": "main_text",
    "BODYTEXT_PROBABILITY_FIELD": "article_probability",
    "BODYTEXT_MAX_BODY_SIZE": DEFAULT_MAX_BODY_SIZE,
    "BODYTEXT_MAX_NODES": DEFAULT_MAX_NODES,
    "BODYTEXT_TIME_BUDGET": DEFAULT_TIME_BUDGET,
    "BODYTEXT_STATUS_CODES": [200],
    "BODYTEXT_CONTENT_TYPES": ["text/html", "application/xhtml+xml"],
    "BODYTEXT_THREADS": 1,
    "BODYTEXT_WORKERS": "auto",
    "BODYTEXT_WORKER_MAX_TASKS": 500,
    "BODYTEXT_WORKER_TIMEOUT": 60.0,
}


class BodyTextSettingError(ValueError):
    """A ``BODYTEXT_*`` setting has an invalid value; the message names the setting."""


@dataclass(frozen=True)
class BodyTextSettings:
    """The validated plugin configuration of one crawler; ``extract`` is what the extractor needs."""

    enabled: bool
    extract: ExtractConfig
    drop_non_articles: bool
    on_failure: str
    text_field: str | None
    probability_field: str | None
    status_codes: frozenset[int]
    content_types: frozenset[str]
    threads: int
    workers: int
    worker_max_tasks: int
    worker_timeout: float

    @property
    def fields(self) -> tuple[str, ...]:
        """The item fields the plugin writes (a field set to None or "" is not written)."""
        return tuple(name for name in (self.text_field, self.probability_field) if name)


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
    try:
        config = ExtractConfig(
            extractor=extractor, threshold=threshold, max_body_size=max_body_size, max_nodes=max_nodes,
            time_budget=time_budget, options=options,
        )
    except ValueError as exc:  # options of an extractor: the config names the extractor and option
        raise BodyTextSettingError(f"BODYTEXT_EXTRACTOR_OPTIONS: {exc}") from None
    return BodyTextSettings(
        enabled=enabled,
        extract=config,
        drop_non_articles=reader.get("BODYTEXT_DROP_NON_ARTICLES", _boolean),
        on_failure=reader.get("BODYTEXT_ON_FAILURE", _choice(ON_FAILURE_CHOICES)),
        text_field=reader.get("BODYTEXT_TEXT_FIELD", _field_name),
        probability_field=reader.get("BODYTEXT_PROBABILITY_FIELD", _field_name),
        status_codes=frozenset(reader.get("BODYTEXT_STATUS_CODES", _list_of(_status_code))),
        content_types=frozenset(reader.get("BODYTEXT_CONTENT_TYPES", _list_of(_media_type))),
        threads=reader.get("BODYTEXT_THREADS", _integer(1)),
        workers=reader.get("BODYTEXT_WORKERS", _workers),
        worker_max_tasks=reader.get("BODYTEXT_WORKER_MAX_TASKS", _integer(1)),
        worker_timeout=reader.get("BODYTEXT_WORKER_TIMEOUT", _number(0.0, None, open_low=True)),
    )


def crawler_settings(crawler: Crawler) -> BodyTextSettings:
    """The validated settings of a crawler's components; ``NotConfigured`` when the plugin is off."""
    loaded = load_settings(crawler.settings)
    if not loaded.enabled:
        raise NotConfigured("BODYTEXT_ENABLED is False")
    return loaded


class _Reader:
    """Reads one setting, falling back to its default, and names it in any validation error."""

    def __init__(self, settings: Mapping[str, Any]):
        self.settings = settings

    def get(self, name: str, convert: Callable[[Any], Any]) -> Any:
        value = self.settings[name] if name in self.settings else DEFAULTS[name]
        try:
            return convert(value)
        except (TypeError, ValueError, ImportError) as exc:
            raise BodyTextSettingError(f"{name}: {exc} (got {value!r})") from None


# Converters: return the clean value or raise ValueError saying what is expected. Strings are
# accepted where Scrapy's command line (-s NAME=value) can only pass strings.

def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        return value.strip().lower() in ("1", "true", "yes", "on")
    raise ValueError("expected True or False")


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
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not value.isidentifier():
        raise ValueError("expected an item field name (an identifier), or None not to write the field")
    return value


def _list_of(convert: Callable[[Any], Any]) -> Callable[[Any], list]:
    def convert_all(value: Any) -> list:
        if isinstance(value, str):
            value = [part for part in value.split(",") if part.strip()]
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise ValueError("expected a list")
        return [convert(item) for item in value]
    return convert_all


def _status_code(value: Any) -> int:
    code = _integer(100)(value)
    if code > 599:
        raise ValueError("expected HTTP status codes (100-599)")
    return code


def _media_type(value: Any) -> str:
    if not isinstance(value, str) or "/" not in value:
        raise ValueError("expected media types such as 'text/html'")
    return value.strip().lower()
