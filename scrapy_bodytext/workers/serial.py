"""Where a shared store's calls run: one at a time and in order, in a thread of their own for a store
across the network (Redis: a slow or frozen server then never holds up the crawl's event loop, its
downloads or its other pages), or at once in the caller for a store in this process."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..stores import StoreUnavailable


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
        """The future of ``function(*args)``. After ``shutdown`` a threaded store's call is not made:
        ``StoreUnavailable`` at once (the caller meets it with its fallback; a store across the network
        is never called on the caller's thread, the crawl's event loop)."""
        if self._executor is not None:
            if not self._closed:
                try:
                    return self._executor.submit(function, *args)
                except RuntimeError:  # shut down by another thread meanwhile
                    pass
            raise StoreUnavailable(f"{self.name}: shut down, the call is not made")
        done: Future = Future()
        try:
            done.set_result(function(*args))
        except Exception as exc:  # noqa: BLE001 - handed to whoever awaits the future
            done.set_exception(exc)
        return done

    def shutdown(self) -> None:
        """Lets the calls already submitted finish; a threaded store's later calls are refused."""
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True)
