"""From command-line arguments to an ``ExtractConfig``: extractor, threshold and ``--option`` values."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from .. import extractors
from ..config import ExtractConfig

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class UsageError(ValueError):
    """A bad command-line value; the message is shown to the user as is."""


def parse_value(text: str, default: object) -> object:
    """``text`` converted to the type of the option's default (JSON for other types)."""
    kind = type(default)
    if kind is bool:
        lowered = text.lower()
        if lowered in _TRUE | _FALSE:
            return lowered in _TRUE
        raise ValueError(f"expected true or false, got {text!r}")
    if kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            raise ValueError(f"expected {'an integer' if kind is int else 'a number'}, got {text!r}") from None
    if kind is str:
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_options(items: Sequence[str], extractor_names: Sequence[str]) -> dict[str, dict[str, object]]:
    """``[NAME.]KEY=VALUE`` items into ``{extractor: {option: value}}``. Without ``NAME.`` the option
    belongs to the only extractor selected."""
    options: dict[str, dict[str, object]] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--option expects KEY=VALUE or EXTRACTOR.KEY=VALUE, got {item!r}")
        name, dot, key = key.rpartition(".")
        if not dot:
            if len(extractor_names) != 1:
                raise UsageError(f"--option {item!r}: several extractors selected; write EXTRACTOR.{key}=VALUE")
            name = extractor_names[0]
        try:
            module = extractors.load(name)
        except (ValueError, ImportError) as exc:
            raise UsageError(f"--option {item!r}: {exc}") from None
        fields = {f.name: f for f in dataclasses.fields(module.Options)}
        if key not in fields:
            raise UsageError(
                f"--option {item!r}: extractor {name!r} has no option {key!r}; known: {', '.join(sorted(fields)) or 'none'}"
            )
        default = fields[key].default
        if default is dataclasses.MISSING and fields[key].default_factory is not dataclasses.MISSING:
            default = fields[key].default_factory()
        try:
            value = parse_value(text, default)
        except ValueError as exc:
            raise UsageError(f"--option {item!r}: {exc}") from None
        options.setdefault(name, {})[key] = value
    return options


def build_config(
    extractor: str,
    *,
    threshold: float | None,
    time_limit: float | None,
    options: dict[str, dict[str, object]],
    output_format: str | None = None,
    links: bool = False,
    comments: bool = False,
    captions: str | None = None,
) -> ExtractConfig:
    """A validated configuration; every invalid value becomes a ``UsageError`` with the reason."""
    changes: dict[str, object] = {"extractor": extractor, "options": options, "links": links, "comments": comments}
    if output_format is not None:
        changes["output_format"] = output_format
    if captions is not None:
        changes["captions"] = captions
    if threshold is not None:
        changes["threshold"] = threshold
    if time_limit is not None:
        changes["time_budget"] = time_limit
    try:
        return ExtractConfig(**changes)
    except ImportError as exc:
        raise UsageError(f"extractor {extractor!r} is registered but cannot be loaded: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc)) from None
