"""Grouped cross-validation folds: no source and no site is ever both fitted and scored.

``source`` folds leave one source out at a time (the pages of the left-out source are scored by a
model fitted on the other sources); pages of the same site in other sources are left out of that
fit too, so a site never helps to score itself. ``mixed`` folds leave small sources out whole and
split each large source into groups of its sites (a left-out group is scored by a model that has
seen the rest of its source, never its sites): the models then know every kind of page the corpus
has, not the sites they score. ``site`` folds split every source into groups of sites.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Protocol


class Grouped(Protocol):
    source: str
    site: str


#: fold modes, the strictest first
MODES = ("source", "mixed", "site")
#: sources smaller than this are taken together (one fold when left out, one group when weighed)
SMALL_SOURCE = 30
#: sources with at least this many pages are split into site groups in ``mixed`` folds
LARGE_SOURCE = 80


def assign_folds(pages: Sequence[Grouped], mode: str = "source", *, site_folds: int = 5) -> list[str]:
    """A fold name per page: its source (``source``), or source and one of ``site_folds`` groups of
    its sites, chosen by a stable hash of the site (``site``; ``mixed`` for large sources only)."""
    if mode not in MODES:
        raise ValueError(f"unknown fold mode {mode!r}; choose one of {', '.join(MODES)}")
    sizes: dict[str, int] = {}
    for page in pages:
        sizes[page.source] = sizes.get(page.source, 0) + 1
    folds = []
    for page in pages:
        if mode == "source" or mode == "mixed" and sizes[page.source] < LARGE_SOURCE:
            folds.append(page.source)
        else:
            folds.append(f"{page.source}/{zlib.crc32(page.site.encode()) % site_folds}")
    return folds


def training_indices(pages: Sequence[Grouped], folds: Sequence[str], fold: str) -> list[int]:
    """Indices of the pages a model scoring ``fold`` may be fitted on: other folds, other sites."""
    held_sites = {page.site for page, name in zip(pages, folds) if name == fold}
    return [i for i, (page, name) in enumerate(zip(pages, folds)) if name != fold and page.site not in held_sites]


def source_groups(pages: Sequence[Grouped]) -> list[str]:
    """A group per page for weighing sources alike: its source, or ``small sources`` for the pages
    of sources under ``SMALL_SOURCE`` pages (one page alone must not weigh as much as a source)."""
    sizes: dict[str, int] = {}
    for page in pages:
        sizes[page.source] = sizes.get(page.source, 0) + 1
    return [page.source if sizes[page.source] >= SMALL_SOURCE else "small sources" for page in pages]
