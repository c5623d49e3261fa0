"""One run's duplicate check, as the command line and the datatrove step use it: each article's
result is claimed in the index; a copy of a stored article is flagged or dropped by ``mode``."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..result import ExtractionResult, Reason
from ..stores import StoreUnavailable
from .choice import make_index
from .defaults import DEFAULT_CAPACITY, DEFAULT_SIMILARITY, MODES
from .index import DuplicateIndex, Match
from .shingles import fingerprint, plain_text_of

if TYPE_CHECKING:
    from ..stores import OutageGuard, RedisLink


class Deduplicator:
    """Claims every article of a run in one index (in memory, or Redis at ``redis_url``); ``counts``
    has ``checked``, ``indexed``, ``duplicate``, ``no_text`` and ``unchecked`` (the shared index was
    unavailable: stored unchecked)."""

    def __init__(
        self,
        mode: str = "flag",
        similarity: float = DEFAULT_SIMILARITY,
        *,
        redis_url: RedisLink | str | None = None,
        prefix: str = "bodytext:duplicates",
        capacity: int = DEFAULT_CAPACITY,
        guard: OutageGuard | None = None,
    ):
        if mode not in MODES:
            raise ValueError(f"duplicates must be one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode
        self.counts: Counter = Counter()
        self.index: DuplicateIndex | None = None
        if mode != "off":
            self.index = make_index(similarity, redis_url=redis_url, prefix=prefix, capacity=capacity, guard=guard)

    @property
    def dropping(self) -> bool:
        return self.mode == "drop"

    def check(self, url: str, result: ExtractionResult) -> Match | None:
        """The stored article ``result`` repeats (None: the first copy, now indexed). Only articles are
        looked up: a page that is not stored never makes a later one a copy."""
        return self.claim(url, result)[1]

    def claim(self, url: str, result: ExtractionResult) -> tuple[str, Match | None]:
        """``check`` with what happened: "skipped" (not an article, or off), "no_text", "unchecked"
        (the shared index is unavailable), "indexed" or "duplicate" (counted in ``counts``, but
        "skipped")."""
        if self.index is None or not result.is_article or result.reason is not Reason.OK:
            return "skipped", None
        print_ = fingerprint(plain_text_of(result))
        if not print_.words:
            self.counts["no_text"] += 1
            return "no_text", None
        try:
            match = self.index.claim(url, print_)
        except StoreUnavailable:  # the shared index failed (its guard said so once): stored unchecked
            self.counts["unchecked"] += 1
            return "unchecked", None
        self.counts["checked"] += 1
        outcome = "indexed" if match is None else "duplicate"
        self.counts[outcome] += 1
        return outcome, match

    def close(self) -> None:
        if self.index is not None:
            self.index.close()
