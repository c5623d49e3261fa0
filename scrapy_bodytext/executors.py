"""Where extraction runs, off the crawl's event loop: a bounded pool of threads or of worker processes.

Both pools take a picklable function and its arguments and return a ``concurrent.futures.Future``;
``wait_for`` awaits it from Scrapy code whatever the reactor. This module imports nothing from Scrapy
at load time, so worker processes stay light.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from .api import extract_with_config
from .config import ExtractConfig
from .result import ExtractionResult

logger = logging.getLogger(__name__)


class Executor(Protocol):
    """A bounded pool: ``start`` when the spider opens, ``submit`` per page, ``shutdown`` at close."""

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


class WorkerLost(RuntimeError):
    """A worker process died or hung while running a job; only that job is lost."""

    reason = "error"

    def __init__(self, message: str, *, sent: bool = True):
        super().__init__(message)
        self.sent = sent  # False: the worker was gone before it received the job


class WorkerDied(WorkerLost):
    reason = "error"


class WorkerTimeout(WorkerLost):
    reason = "time_limit"


#: seconds a new worker process may take to start
STARTUP_TIMEOUT = 60.0
#: most worker processes started by default: one crawl process rarely downloads more pages than
#: four workers extract (each extracts some tens of pages per second)
MAX_DEFAULT_WORKERS = 4


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity on this platform (macOS, Windows)
        return os.cpu_count() or 1


def default_workers() -> int:
    """Worker processes for this machine: one per usable CPU beyond the one the crawl itself keeps
    busy, at most ``MAX_DEFAULT_WORKERS``; 0 (threads of the crawl's process) on a single CPU."""
    return min(max(usable_cpus() - 1, 0), MAX_DEFAULT_WORKERS)


def start_method() -> str:
    """A start method that is safe next to a running reactor and its threads (never plain fork)."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


class ProcessExecutor:
    """``workers`` worker processes, each driven by one dispatcher thread of this process.

    A dispatcher sends one job at a time to its worker, so a worker that dies or exceeds ``timeout``
    seconds costs exactly that job: the worker is replaced and the next job goes on. Workers are
    replaced after ``max_tasks`` jobs to cap allocator growth (lxml heaps fragment over time).
    """

    def __init__(self, workers: int, *, max_tasks: int = 500, timeout: float = 60.0, method: str | None = None):
        self.workers = workers
        self.max_tasks = max_tasks
        self.timeout = timeout
        self.context = multiprocessing.get_context(method or start_method())
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._closed = False

    def start(self) -> None:
        if self._threads or self._closed:
            return
        if self.context.get_start_method() == "forkserver":
            self.context.set_forkserver_preload([__name__])
        for number in range(self.workers):
            thread = threading.Thread(target=self._dispatch, name=f"bodytext-worker-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future:
        if self._closed:
            raise RuntimeError("the worker pool is shut down")
        self.start()
        future: Future = Future()
        self._jobs.put((future, fn, args))
        return future

    def shutdown(self) -> None:
        self._closed = True
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job[0].cancel()
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout=self.timeout + 5)
        self._threads = []

    def _dispatch(self) -> None:
        worker: _Worker | None = None
        try:
            worker = _Worker(self.context)  # started now, with the spider, not with the first page
        except Exception:  # noqa: BLE001 - retried (and reported) with the first job
            logger.exception("Could not start an extraction worker")
        try:
            while (job := self._jobs.get()) is not None:
                future, fn, args = job
                if not future.set_running_or_notify_cancel():
                    continue
                if worker is not None and worker.done >= self.max_tasks:
                    worker.stop()
                    worker = None
                try:
                    worker, outcome = self._run(worker, fn, args)
                except Exception as exc:  # noqa: BLE001 - e.g. no process could be started
                    worker = None
                    outcome = _Failure(exc)
                if isinstance(outcome, _Failure):
                    future.set_exception(outcome.exception)
                else:
                    future.set_result(outcome)
        finally:
            if worker is not None:
                worker.stop()

    def _run(self, worker: _Worker | None, fn: Callable[..., Any], args: tuple) -> tuple[_Worker | None, Any]:
        """Run one job; a worker found dead before it received the job is replaced once."""
        for _attempt in range(2):
            worker = worker or _Worker(self.context)
            outcome = worker.run(fn, args, self.timeout)
            lost = outcome.exception if isinstance(outcome, _Failure) else None
            if not isinstance(lost, WorkerLost):
                return worker, outcome
            logger.warning("Extraction worker %s; starting a new one", lost)
            worker.kill()
            worker = None
            if lost.sent:
                break
        return None, outcome


class _Failure:
    """An exception raised by the job itself (the worker is fine)."""

    def __init__(self, exception: BaseException):
        self.exception = exception


class _Worker:
    """One worker process and the pipe to it."""

    def __init__(self, context: Any):
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(child,), name="bodytext-worker", daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self.done = 0

    def run(self, fn: Callable[..., Any], args: tuple, timeout: float) -> Any:
        if not self.ready:  # the job's time starts once the worker is up, however slow its start
            try:
                self.ready = self.connection.poll(STARTUP_TIMEOUT) and self.connection.recv() == "ready"
            except (OSError, EOFError):
                pass
            if not self.ready:
                return _Failure(WorkerDied(f"did not start (exit code {self.process.exitcode})", sent=False))
        self.done += 1
        try:
            self.connection.send((fn, args))
        except (OSError, EOFError):
            return _Failure(WorkerDied(f"died before the job (exit code {self.process.exitcode})", sent=False))
        except Exception as exc:  # the job could not be pickled: the worker never saw it
            return _Failure(exc)
        try:
            if not self.connection.poll(timeout):
                return _Failure(WorkerTimeout(f"exceeded {timeout:g} s and was stopped"))
            ok, value = self.connection.recv()
        except (OSError, EOFError):
            self.process.join(1)
            return _Failure(WorkerDied(f"died during the job (exit code {self.process.exitcode})"))
        return value if ok else _Failure(value)

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except (OSError, EOFError):
            pass
        self.process.join(2)
        self.kill()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
            self.process.join(2)
        self.connection.close()


def _worker_main(connection: Any) -> None:
    """Loop of a worker process: say it is ready, then run each job received, send back (ok, value)."""
    connection.send("ready")
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if job is None:
            return
        fn, args = job
        try:
            reply = (True, fn(*args))
        except Exception as exc:  # noqa: BLE001 - reported to the caller, the worker goes on
            reply = (False, exc)
        try:
            connection.send(reply)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
            connection.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


def make_executor(threads: int, workers: int, *, max_tasks: int, timeout: float) -> Executor:
    """Worker processes when ``workers`` > 0, else a pool of ``threads`` threads."""
    if workers > 0:
        return ProcessExecutor(workers, max_tasks=max_tasks, timeout=timeout)
    return ThreadExecutor(threads)
