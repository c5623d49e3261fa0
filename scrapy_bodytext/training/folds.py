"""Grouped cross-validation folds: no source and no site is ever both fitted and scored.

``source`` folds leave one source out at a time (the pages of the left-out source are scored by a
model fitted on the other sources); pages of the same site in other sources are left out of that
fit too, so a site never helps to score itself. ``site`` folds split every source into groups of
sites instead (for a second opinion: conventions of the source are then seen, its sites never).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Protocol


class Grouped(Protocol):
    source: str
    site: str


def assign_folds(pages: Sequence[Grouped], mode: str = "source", *, site_folds: int = 5) -> list[str]:
    """A fold name per page: its source (``source``), or source and one of ``site_folds`` groups of
    its sites, chosen by a stable hash of the site (``site``)."""
    if mode == "source":
        return [page.source for page in pages]
    if mode == "site":
        return [f"{page.source}/{zlib.crc32(page.site.encode()) % site_folds}" for page in pages]
    raise ValueError(f"unknown fold mode {mode!r}; choose 'source' or 'site'")


def training_indices(pages: Sequence[Grouped], folds: Sequence[str], fold: str) -> list[int]:
    """Indices of the pages a model scoring ``fold`` may be fitted on: other folds, other sites."""
    held_sites = {page.site for page, name in zip(pages, folds) if name == fold}
    return [i for i, (page, name) in enumerate(zip(pages, folds)) if name != fold and page.site not in held_sites]
