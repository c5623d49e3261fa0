"""Registry of extraction methods, one module per method.

Each module defines ``NAME``, a frozen ``Options`` dataclass whose fields are the method's documented
parameters (with defaults), and ``extract(doc: Document, options: Options) -> Extraction``.

A method says WHAT it selected (the text slots of the ``Document``), never how it reads: ``extract()``
writes the selection once, in the output format asked for (plain text, Markdown or HTML).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType

#: the method ``extract()`` and the plugin use when nothing is configured
DEFAULT_EXTRACTOR = "bodytext"

#: name -> module path; modules are imported on first use
EXTRACTORS: dict[str, str] = {
    "bodytext": "scrapy_bodytext.extractors.bodytext",
    "bte": "scrapy_bodytext.extractors.bte",
    "ttr": "scrapy_bodytext.extractors.ttr",
    "ctd": "scrapy_bodytext.extractors.ctd",
    "pvalue": "scrapy_bodytext.extractors.pvalue",
    "wuyang": "scrapy_bodytext.extractors.wuyang",
}


@dataclass(slots=True)
class Extraction:
    """What a method returns: the main text as the ascending indices of the ``Document`` text slots
    it selected (a ``range`` will do; empty: no main text), an article probability in [0, 1], an
    optional one-line explanation and debug figures (kept out of logs), the slots of reader
    comments where the method tells them apart (never part of the main text), and the page type
    where the method judges one."""

    slots: Sequence[int]
    probability: float
    detail: str = ""
    language: str | None = None
    debug: dict = field(default_factory=dict)
    comment_slots: Sequence[int] = ()
    page_type: str | None = None  # the method's page type (``None``: it tells only articles apart)
    caption_slots: Sequence[int] = ()  # the article's captions and picture credits, where told apart
    template: str = ""  # the template signature (``page.signature``), for site memory; "" when not made
    links: tuple[str, ...] = ()  # absolute URLs of the links inside the selection, for site memory
    page_type_probability: float | None = None  # the probability of ``page_type`` (None: not judged)
    signals: tuple[str, ...] = ()  # page-level signals (``page.signature.page_signals``), for site memory


def names() -> list[str]:
    return list(EXTRACTORS)


def load(name: str) -> ModuleType:
    """The module implementing ``name``; a clear ``ValueError`` for unknown names."""
    try:
        path = EXTRACTORS[name]
    except KeyError:
        raise ValueError(f"unknown extractor {name!r}; choose one of: {', '.join(EXTRACTORS)}") from None
    return importlib.import_module(path)
