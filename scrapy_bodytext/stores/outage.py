"""One guard per shared store: every call goes through it, so a store that fails, times out or answers
nonsense is one ``StoreUnavailable`` for the caller to meet with its fallback, never an error of the
item. An outage is said once (one WARNING when it begins, one INFO when the store answers again; a
store that keeps failing and answering says so at most once per ``quiet`` seconds, and sums it all up
at the close); after ``failures`` failed calls in a row, or one call that timed out (a frozen server: the next
call would wait as long), the guard stops calling for ``retry_after`` seconds (a frozen or lost
server then costs nothing per page), then tries one call again.

Only a store that cannot be reached is an outage. A store that answers but refuses the command (a
read-only replica, a full server, a missing permission) would refuse it again: one ERROR line, and the
store is off for the rest of the run. Any other exception is the caller's bug and is raised as it is."""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
#: where the guard's lines go: a logger, or a function ``(level, message, *args)`` (the crawl's, which
#: hands the line to the reactor thread)
Log = logging.Logger | logging.LoggerAdapter | Callable[..., None]

#: failed calls in a row after which the guard stops calling for a while
DEFAULT_FAILURES = 3
#: seconds within which a new outage (or recovery) of a flapping store is not said again
DEFAULT_QUIET = 60.0


class StoreUnavailable(Exception):
    """The shared store failed, timed out, is resting after repeated failures, or is off for the run."""


class Failure(enum.Enum):
    """What a failed call says of its store."""

    LOST = "lost"  # not reached now (connection, network, a server loading): may answer later
    TIMED_OUT = "timed out"  # waited its whole timeout: the next call would wait as long
    REFUSED = "refused"  # reached, and the command refused: the next one would be refused too


def failure_of(exc: BaseException) -> Failure | None:
    """The failure of a store reached through the network: a timeout, or an OS error (a refused or
    dropped connection); None for anything else (a bug of the caller, raised as it is)."""
    if isinstance(exc, TimeoutError):
        return Failure.TIMED_OUT
    if isinstance(exc, OSError):
        return Failure.LOST
    return None


class OutageGuard:
    """Calls into one shared store, counted: ``failures`` (calls that failed or timed out),
    ``skipped`` (calls not made while the store rests or is off), ``outages`` (runs of failures),
    ``recoveries``, ``refused`` (the store refused a command: off from then on), ``mismatched`` (the
    store holds keys of another configuration: off). ``what`` names the store in log lines ("site
    memory in Redis at ... (SETTING)"); ``failure(exc)`` says what an exception of a call means
    (``failure_of`` by default); ``log`` receives the lines and ``count(name, n)`` each count as it
    happens (the crawl's, which hand both to the reactor thread)."""

    def __init__(
        self,
        what: str,
        *,
        retry_after: float,
        failures: int = DEFAULT_FAILURES,
        quiet: float = DEFAULT_QUIET,
        fallback: str = "",
        failure: Callable[[BaseException], Failure | None] = failure_of,
        log: Log | None = None,
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
        self._failure = failure
        self._say = _log_function(log or logging.getLogger(__name__))
        self._count = count
        self._clock = clock
        self._lock = threading.Lock()
        self.counts = {"failures": 0, "skipped": 0, "outages": 0, "recoveries": 0, "refused": 0, "mismatched": 0}
        self.off: str | None = None  # why the store is off for the rest of the run (None: it is on)
        self._in_row = 0  # failed calls since the last success
        self._resting_until = 0.0
        self._outage_began: float | None = None
        self._outage_counts = (0, 0)  # failures and skipped at the outage's start
        self._said = {"outage": float("-inf"), "recovery": float("-inf")}  # when each line was last logged

    @property
    def in_outage(self) -> bool:
        return self._outage_began is not None

    def call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``function(*args, **kwargs)``; ``StoreUnavailable`` when the store fails, rests or is off
        (then nothing is called); any other exception (a bug) as it is."""
        with self._lock:
            if self.off is not None:
                self._add("skipped")
                raise StoreUnavailable(f"{self.what}: off for the rest of the run ({self.off})")
            if self._in_row >= self.failures_to_rest and self._clock() < self._resting_until:
                self._add("skipped")
                raise StoreUnavailable(f"{self.what}: resting after {self._in_row} failed calls in a row")
        try:
            value = function(*args, **kwargs)
        except Exception as exc:
            failure = self._failure(exc)
            if failure is None:
                raise
            said = f"{type(exc).__name__}: {exc}"
            if failure is Failure.REFUSED:
                self.turn_off(f"it refused a command ({said})", "refused")
            else:
                self._failed(exc, failure)
            raise StoreUnavailable(f"{self.what}: {said}") from exc
        self._succeeded()
        return value

    def turn_off(self, reason: str, counted: str = "refused") -> None:
        """Stops calling the store for the rest of the run, said once (one ERROR line with ``reason``
        and what callers do meanwhile) and counted under ``counted``; later calls are ``skipped``."""
        with self._lock:
            if self.off is not None:
                return
            self.off = reason
            self._outage_began = None  # said now: no "still unavailable" at the close
            self._add(counted)
            self._say(
                logging.ERROR,
                "%s is off for the rest of the run: %s%s",
                self.what,
                reason,
                f"; {self.fallback}" if self.fallback else "",
            )

    def close(self) -> None:
        """Says so when the store is still out at the end (one WARNING with the outage's counts), and
        sums up the outages of a run that had more than one (one INFO line)."""
        with self._lock:
            counts = self.counts
            if counts["outages"] > 1:
                self._say(
                    logging.INFO,
                    "%s: %d outages in all, %d failed calls, %d calls not made",
                    self.what,
                    counts["outages"],
                    counts["failures"],
                    counts["skipped"],
                )
            if self._outage_began is None:
                return
            failed, skipped = self._since_outage()
            self._say(
                logging.WARNING,
                "%s still unavailable after %.1f s (%d failed calls, %d not made)%s",
                self.what,
                self._clock() - self._outage_began,
                failed,
                skipped,
                f"; {self.fallback}" if self.fallback else "",
            )

    # ------------------------------------------------------------------------------------------
    def _failed(self, exc: BaseException, failure: Failure) -> None:
        with self._lock:
            self._add("failures")
            self._in_row += 1
            if failure is Failure.TIMED_OUT:  # the next call would wait as long: rest now
                self._in_row = max(self._in_row, self.failures_to_rest)
            if self._outage_began is None:
                self._outage_began = self._clock()
                self._outage_counts = (self.counts["failures"] - 1, self.counts["skipped"])
                self._add("outages")
                self._say(
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
            self._say(
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


def _log_function(log: Log) -> Callable[..., None]:
    """``log`` as a function ``(level, message, *args)``: a logger's ``log``, or ``log`` itself."""
    return log.log if isinstance(log, (logging.Logger, logging.LoggerAdapter)) else log
