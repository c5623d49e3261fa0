"""Where a shared store's calls run: one at a time and in order, in a thread of their own for a store
across the network (Redis: a slow or frozen server then never holds up the crawl's event loop, its
downloads or its other pages), or at once in the caller for a store in this process."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class SerialWork:
    """``submit`` runs a function after every one submitted before it; its ``Future`` has the result
    or the exception. ``threaded=False`` runs it at once (the future is done on return)."""

    def __init__(self, name: str, *, threaded: bool) -> None:
        self.name = name
        self._executor = ThreadPoolExecutor(1, thread_name_prefix=name) if threaded else None
        self._closed = False

    @property
    def threaded(self) -> bool:
        return self._executor is not None

    def submit(self, function: Callable[..., Any], /, *args: Any) -> Future:
        """The future of ``function(*args)``; after ``shutdown`` it runs at once in the caller, so a
        late call still gets its answer."""
        if self._executor is not None and not self._closed:
            return self._executor.submit(function, *args)
        done: Future = Future()
        try:
            done.set_result(function(*args))
        except Exception as exc:  # noqa: BLE001 - handed to whoever awaits the future
            done.set_exception(exc)
        return done

    def shutdown(self) -> None:
        """Lets the calls already submitted finish; later ones run in the caller."""
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True)
