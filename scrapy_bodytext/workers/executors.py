"""Where extraction runs, off the crawl's event loop: a bounded pool of threads or of worker processes
(``pool``), and how many workers "auto" means on this machine.

Both pools take a picklable function and its arguments and return a ``concurrent.futures.Future``;
``wait_for`` awaits it from Scrapy code whatever the reactor. This module imports nothing from Scrapy
at load time, so worker processes stay light.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from ..api import extract_with_config
from ..config import ExtractConfig
from ..result import ExtractionResult
from .cpus import UsableCpus, usable_cpus
from .pool import ProcessExecutor, WorkerDied, WorkerLost, WorkerTimeout, start_method

__all__ = [
    "Executor",
    "ProcessExecutor",
    "ThreadExecutor",
    "WorkerDied",
    "WorkerLost",
    "WorkerTimeout",
    "announce",
    "default_workers",
    "extract_timed",
    "make_executor",
    "pool_sizing",
    "start_method",
    "usable_cpus",
    "wait_for",
]

logger = logging.getLogger(__name__)


class Executor(Protocol):
    """A bounded pool: ``start`` when the spider opens, ``submit`` per page, ``shutdown`` at close
    (the pools here also have ``describe()``: what they are in a few words, for the log)."""

    def start(self) -> None: ...

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future: ...

    def shutdown(self) -> None: ...


def extract_timed(
    body: bytes, config: ExtractConfig, url: str | None, encoding: str | None, content_type: str | None
) -> tuple[ExtractionResult, float]:
    """The job a pool runs for one page: the extraction and the seconds it took."""
    started = time.perf_counter()
    result = extract_with_config(body, config, url=url, encoding=encoding, content_type=content_type)
    return result, time.perf_counter() - started


async def wait_for(future: Future) -> Any:
    """Await a pool's future on asyncio (Scrapy's default) or on any other Twisted reactor."""
    from scrapy.utils.asyncio import is_asyncio_available

    if is_asyncio_available():
        return await asyncio.wrap_future(future)
    from twisted.internet import reactor
    from twisted.internet.defer import Deferred

    settled: Deferred = Deferred()

    def settle(done: Future) -> None:  # runs in the pool's thread
        reactor.callFromThread(_fire, settled, done)  # type: ignore[attr-defined]

    future.add_done_callback(settle)
    return await settled


def _fire(deferred: Any, done: Future) -> None:
    if done.cancelled():
        deferred.cancel()
        return
    exception = done.exception()
    if exception is None:
        deferred.callback(done.result())
    else:
        deferred.errback(exception)


class ThreadExecutor:
    """A dedicated pool of ``threads`` threads (not the loop's default pool, shared with DNS)."""

    def __init__(self, threads: int):
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None

    def describe(self) -> str:
        return f"{self.threads} thread{'s' if self.threads != 1 else ''} of the crawl's process"

    def start(self) -> None:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="bodytext")

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future:
        self.start()
        assert self._pool is not None
        return self._pool.submit(fn, *args)

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def default_workers(cpus: UsableCpus | None = None) -> int:
    """Worker processes for ``"auto"``: one per usable CPU (the crawl's own process shares them with
    the workers); 0 (a thread of the crawl's process) on a single CPU, where a worker process would
    only add the cost of sending pages to it."""
    count = (cpus or usable_cpus()).count
    return count if count >= 2 else 0


def pool_sizing(requested: Any) -> str:
    """Why the pool has its size: the ``BODYTEXT_WORKERS`` value, and for "auto" what was found."""
    if requested is None or (isinstance(requested, str) and requested.strip().lower() == "auto"):
        return f'BODYTEXT_WORKERS = "auto": {usable_cpus()}'
    return f"BODYTEXT_WORKERS = {requested!r}"


def announce(executor: Executor, requested: Any) -> None:
    """The one INFO line at spider open: where pages are extracted, and why the pool has its size."""
    describe = getattr(executor, "describe", None)  # optional for pools made elsewhere
    logger.info("Extraction in %s (%s)", describe() if describe else type(executor).__name__, pool_sizing(requested))


#: what the forkserver imports before forking workers: the job's module, and a warm-up of every method
WORKER_PRELOAD = ("scrapy_bodytext.workers.executors", "scrapy_bodytext.workers.preload")


def make_executor(threads: int, workers: int, *, max_tasks: int, timeout: float) -> Executor:
    """Worker processes when ``workers`` > 0, else a pool of ``threads`` threads."""
    if workers > 0:
        return ProcessExecutor(workers, max_tasks=max_tasks, timeout=timeout, preload=WORKER_PRELOAD)
    return ThreadExecutor(threads)
