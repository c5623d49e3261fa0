"""One guard per shared store: every call goes through it, so a store that fails, times out or answers
nonsense is one ``StoreUnavailable`` for the caller to meet with its fallback, never an error of the
item. An outage is said once (one WARNING when it begins, one INFO when the store answers again; a
store that keeps failing and answering says so at most once per ``quiet`` seconds, and sums it all up
at the close); after ``failures`` failed calls in a row, or one call that timed out (a frozen server: the next
call would wait as long), the guard stops calling for ``retry_after`` seconds (a frozen or lost
server then costs nothing per page), then tries one call again."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

#: failed calls in a row after which the guard stops calling for a while
DEFAULT_FAILURES = 3
#: seconds within which a new outage (or recovery) of a flapping store is not said again
DEFAULT_QUIET = 60.0


class StoreUnavailable(Exception):
    """The shared store failed, timed out, or is resting after repeated failures."""


class OutageGuard:
    """Calls into one shared store, counted: ``failures`` (calls that raised or timed out),
    ``skipped`` (calls not made while the store rests), ``outages`` (runs of failures),
    ``recoveries``. ``what`` names the store in log lines ("site memory in Redis at ... (SETTING)");
    ``count(name, n)`` receives each count as it happens (the crawl's stats)."""

    def __init__(
        self,
        what: str,
        *,
        retry_after: float,
        failures: int = DEFAULT_FAILURES,
        quiet: float = DEFAULT_QUIET,
        fallback: str = "",
        timed_out: Callable[[BaseException], bool] = lambda exc: isinstance(exc, TimeoutError),
        log: logging.Logger | None = None,
        count: Callable[[str, int], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failures < 1:
            raise ValueError(f"failures must be at least 1, got {failures}")
        if retry_after < 0:
            raise ValueError(f"retry_after must be >= 0, got {retry_after}")
        self.what = what
        self.retry_after = retry_after
        self.failures_to_rest = failures
        self.quiet = quiet
        self.fallback = fallback  # what callers do meanwhile, for the log line ("pages keep their own verdicts")
        self._timed_out = timed_out  # whether a failure was a call that waited its whole timeout
        self._log = log or logging.getLogger(__name__)
        self._count = count
        self._clock = clock
        self._lock = threading.Lock()
        self.counts = {"failures": 0, "skipped": 0, "outages": 0, "recoveries": 0}
        self._in_row = 0  # failed calls since the last success
        self._resting_until = 0.0
        self._outage_began: float | None = None
        self._outage_counts = (0, 0)  # failures and skipped at the outage's start
        self._said = {"outage": float("-inf"), "recovery": float("-inf")}  # when each line was last logged

    @property
    def in_outage(self) -> bool:
        return self._outage_began is not None

    def call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``function(*args, **kwargs)``, or ``StoreUnavailable`` when it raises or the store rests."""
        with self._lock:
            if self._in_row >= self.failures_to_rest and self._clock() < self._resting_until:
                self._add("skipped")
                raise StoreUnavailable(f"{self.what}: resting after {self._in_row} failed calls in a row")
        try:
            value = function(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - any failure of the store is the store's outage
            self._failed(exc)
            raise StoreUnavailable(f"{self.what}: {type(exc).__name__}: {exc}") from exc
        self._succeeded()
        return value

    def close(self) -> None:
        """Says so when the store is still out at the end (one WARNING with the outage's counts), and
        sums up the outages of a run that had more than one (one INFO line)."""
        with self._lock:
            counts = self.counts
            if counts["outages"] > 1:
                self._log.info(
                    "%s: %d outages in all, %d failed calls, %d calls not made",
                    self.what,
                    counts["outages"],
                    counts["failures"],
                    counts["skipped"],
                )
            if self._outage_began is None:
                return
            failed, skipped = self._since_outage()
            self._log.warning(
                "%s still unavailable after %.1f s (%d failed calls, %d not made)%s",
                self.what,
                self._clock() - self._outage_began,
                failed,
                skipped,
                f"; {self.fallback}" if self.fallback else "",
            )

    # ------------------------------------------------------------------------------------------
    def _failed(self, exc: BaseException) -> None:
        with self._lock:
            self._add("failures")
            self._in_row += 1
            if self._timed_out(exc):  # the next call would wait as long: rest now
                self._in_row = max(self._in_row, self.failures_to_rest)
            if self._outage_began is None:
                self._outage_began = self._clock()
                self._outage_counts = (self.counts["failures"] - 1, self.counts["skipped"])
                self._add("outages")
                self._log.log(
                    self._level("outage", logging.WARNING),
                    "%s failed (%s: %s)%s; after a timeout or %d failed calls in a row it is left alone for %g s, "
                    "then tried again",
                    self.what,
                    type(exc).__name__,
                    exc,
                    f": {self.fallback}" if self.fallback else "",
                    self.failures_to_rest,
                    self.retry_after,
                )
            if self._in_row >= self.failures_to_rest:
                self._resting_until = self._clock() + self.retry_after

    def _succeeded(self) -> None:
        with self._lock:
            self._in_row = 0
            if self._outage_began is None:
                return
            failed, skipped = self._since_outage()
            self._add("recoveries")
            self._log.log(
                self._level("recovery", logging.INFO),
                "%s answers again after %.1f s (%d failed calls, %d not made meanwhile)",
                self.what,
                self._clock() - self._outage_began,
                failed,
                skipped,
            )
            self._outage_began = None

    def _level(self, line: str, level: int) -> int:
        """``level`` for a line not said within ``quiet`` seconds, DEBUG for a repeat (a flapping store)."""
        now = self._clock()
        if now - self._said[line] < self.quiet:
            return logging.DEBUG
        self._said[line] = now
        return level

    def _since_outage(self) -> tuple[int, int]:
        return (
            self.counts["failures"] - self._outage_counts[0],
            self.counts["skipped"] - self._outage_counts[1],
        )

    def _add(self, name: str) -> None:
        self.counts[name] += 1
        if self._count is not None:
            self._count(name, 1)
