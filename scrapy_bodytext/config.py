"""Frozen, picklable configuration of an extraction, so it can travel to worker processes."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import extractors
from .output.formats import OUTPUT_FORMATS

#: defaults shared by the Python API, the command line and the Scrapy settings
DEFAULT_THRESHOLD = 0.5
DEFAULT_MAX_BODY_SIZE = 10 * 1024 * 1024
DEFAULT_MAX_NODES = 200_000
DEFAULT_TIME_BUDGET = 5.0
#: how the main text is written: plain text, Markdown or cleaned HTML (see ``formats``)
DEFAULT_OUTPUT_FORMAT = "text"
#: where the article's picture captions and credits go: the result's ``captions`` ("apart") or the
#: main text, where they stand ("inline"; docs/methods.md#what-main-text-is)
CAPTION_CHOICES = ("apart", "inline")
DEFAULT_CAPTIONS = "apart"


@dataclass(frozen=True)
class ExtractConfig:
    """Everything that decides an extraction's outcome.

    ``options`` maps an extractor name to a mapping of its options (see each extractor's
    ``Options``); unknown names or options raise ``ValueError`` here, at configuration time.
    ``output_format`` (one of ``OUTPUT_FORMATS``) says how the selected main text is written;
    ``links`` writes its links (Markdown ``[text](url)``, HTML ``<a href>``) in those two formats.
    ``comments`` writes the page's reader comments, where the method tells them apart (the default
    method does), to the result's ``comments`` in the same format; they are never main text.
    ``metadata`` reads the page's metadata (title, dates, authors, ...) into the result; off, those
    values stay empty (``language`` is then read from ``<html lang>`` and ``content-language`` only,
    else detected) and the page costs less.
    ``captions`` says where the article's picture captions and credits go, where the method tells
    them apart (the default method does): "apart" to the result's ``captions``, never main text;
    "inline" into the main text where they stand (in Markdown and HTML as figure captions), the
    result's ``captions`` then empty.
    ``plain_text`` also writes the selection as plain text to the result's ``plain_text`` when
    ``output_format`` is another (for item shapes that hold both, such as Zyte's ``Article``).
    """

    extractor: str = extractors.DEFAULT_EXTRACTOR
    threshold: float = DEFAULT_THRESHOLD
    max_body_size: int = DEFAULT_MAX_BODY_SIZE
    max_nodes: int = DEFAULT_MAX_NODES
    time_budget: float = DEFAULT_TIME_BUDGET
    options: Mapping[str, Any] = field(default_factory=dict)
    output_format: str = DEFAULT_OUTPUT_FORMAT
    links: bool = False
    comments: bool = False
    metadata: bool = True
    plain_text: bool = False
    captions: str = DEFAULT_CAPTIONS
    #: the ``Options`` instance of ``extractor``, resolved once here (not per page)
    extractor_options: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        extractors.load(self.extractor)
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be within [0, 1], got {self.threshold!r}")
        for name, minimum in (("max_body_size", 1), ("max_nodes", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or value < minimum:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not self.time_budget > 0:
            raise ValueError(f"time_budget must be a positive number of seconds, got {self.time_budget!r}")
        if self.output_format not in OUTPUT_FORMATS:
            raise ValueError(f"output_format must be one of {', '.join(OUTPUT_FORMATS)}, got {self.output_format!r}")
        if not isinstance(self.links, bool):
            raise ValueError(f"links must be True or False, got {self.links!r}")
        if not isinstance(self.comments, bool):
            raise ValueError(f"comments must be True or False, got {self.comments!r}")
        if self.captions not in CAPTION_CHOICES:
            raise ValueError(f"captions must be one of {', '.join(CAPTION_CHOICES)}, got {self.captions!r}")
        for name in ("metadata", "plain_text"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        built = {}
        for name, values in dict(self.options).items():
            built[name] = build_options(name, values)
        object.__setattr__(self, "options", built)
        object.__setattr__(self, "extractor_options", self.options_for(self.extractor))

    def options_for(self, name: str):
        """The ``Options`` instance of extractor ``name`` (defaults where none were given)."""
        found = self.options.get(name)
        return found if found is not None else build_options(name, None)

    def replace(self, **changes: Any) -> ExtractConfig:
        return dataclasses.replace(self, **changes)


def build_options(name: str, values: Mapping[str, Any] | Any | None):
    """Validate ``values`` against extractor ``name``'s ``Options`` and return an instance."""
    options_cls = extractors.load(name).Options
    if values is None:
        return options_cls()
    if isinstance(values, options_cls):
        return values
    if not isinstance(values, Mapping):
        raise ValueError(f"options of extractor {name!r} must be a mapping, got {type(values).__name__}")
    known = {f.name for f in dataclasses.fields(options_cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} for extractor {name!r}; known: {', '.join(sorted(known))}"
        )
    try:
        return options_cls(**values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"invalid options for extractor {name!r}: {exc}") from None
