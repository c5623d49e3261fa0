"""Why a page got the outcome it did: the reasons every layer reports, and the bound a page can pass."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from enum import Enum

#: the wall-clock guard of a page's time budget is this many times the budget (see ``Deadline``)
WALL_GUARD_FACTOR = 12


class Reason(str, Enum):
    """Why an extraction produced what it did; machine-readable, also used as a stats key."""

    OK = "ok"
    EMPTY = "empty"  # no bytes or no text at all
    NOT_HTML = "not_html"  # binary or obviously not markup
    TOO_LARGE = "too_large"  # body above the size limit
    TOO_MANY_NODES = "too_many_nodes"  # tree above the node limit
    UNDECODABLE = "undecodable"  # nothing readable after decoding
    TIME_LIMIT = "time_limit"  # the per-page time budget ran out
    NO_MAIN_TEXT = "no_main_text"  # parsed fine, the method found no main text
    ERROR = "error"  # an unexpected exception inside an extractor (a bug; reported, not raised)


#: reasons that mean the page was never looked at by an extractor
SKIP_REASONS = frozenset({Reason.EMPTY, Reason.NOT_HTML, Reason.TOO_LARGE, Reason.TOO_MANY_NODES, Reason.UNDECODABLE})


class LimitExceeded(Exception):
    """A page is skipped before any method weighs it: it passed a configured bound, or holds nothing
    to read. ``reason`` says which; ``encoding`` is the one used, once known."""

    def __init__(self, reason: Reason, detail: str, encoding: str | None = None):
        if not isinstance(reason, Reason):
            raise TypeError(f"reason must be a Reason, got {reason!r}")
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.encoding = encoding


@dataclass(frozen=True, slots=True)
class Deadline:
    """When a page's time budget runs out. The budget counts the CPU time of the thread extracting
    the page (``time.thread_time()``), which other threads and a busy machine cannot use up, so a
    page gets the same outcome under any load; a wall-clock guard ``WALL_GUARD_FACTOR`` times longer
    stops a page that blocks without computing. A thread's CPU time never outruns the wall clock, so
    the CPU clock (a system call, where a busy machine may take the CPU away) is read only once the
    page has taken longer than its budget in wall-clock time."""

    cpu: float  # ``time.thread_time()`` past which the budget has run out
    wall: float  # ``time.perf_counter()`` past which the guard stops the page
    earliest: float = -math.inf  # ``time.perf_counter()`` before which the budget cannot have run out

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline of a budget of ``seconds`` starting now, in the calling thread."""
        now = time.perf_counter()
        return cls(time.thread_time() + seconds, now + WALL_GUARD_FACTOR * seconds, now + seconds)

    def passed(self) -> bool:
        """True once the budget (or the wall-clock guard) has run out; call it from the extracting thread."""
        now = time.perf_counter()
        return now > self.wall or (now > self.earliest and time.thread_time() > self.cpu)
