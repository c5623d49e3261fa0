"""Scrapy's stats and log counters belong to the reactor thread: a store's worker thread hands its
counts and log lines to the reactor (``callFromThread``) instead of touching them itself, so no
increment is lost and no stats key is added while the reactor reads the stats."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from twisted.python import threadable


def on_reactor(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
    """Calls ``function`` now on the reactor thread, or queues it there from any other thread (calls
    queued from one thread run in the order they were made, before anything that thread queues later).
    Before a reactor runs (a component driven by hand), the main thread calls at once."""
    if threadable.isInIOThread() or (
        threadable.ioThread is None and threading.current_thread() is threading.main_thread()
    ):
        function(*args, **kwargs)
    else:
        # imported here, not with the module: the first import of the reactor installs one, and the
        # crawl installs its own (asyncio) after the plugin is loaded
        from twisted.internet import reactor

        reactor.callFromThread(function, *args, **kwargs)


class ReactorCounts:
    """A component's counter and log calls, safe from any thread: ``count(name, n)`` increments
    ``{prefix}/{name}`` in the crawl's stats and ``log(level, message, *args)`` logs, both on the reactor."""

    def __init__(self, stats: Any, prefix: str, log: Callable[..., None]) -> None:
        self._stats = stats
        self._prefix = prefix.rstrip("/")
        self._log = log

    def count(self, name: str, count: int = 1) -> None:
        on_reactor(self._stats.inc_value, f"{self._prefix}/{name}", count)

    def max_value(self, name: str, value: int) -> None:
        on_reactor(self._stats.max_value, f"{self._prefix}/{name}", value)

    def set_value(self, name: str, value: Any) -> None:
        on_reactor(self._stats.set_value, f"{self._prefix}/{name}", value)

    def log(self, level: int, message: str, *args: Any) -> None:
        on_reactor(self._log, level, message, *args)
