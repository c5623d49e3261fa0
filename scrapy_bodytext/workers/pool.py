"""A pool of worker processes that keeps every worker busy, and loses one job per lost worker.

One dispatcher thread drives every worker through non-blocking sockets. It keeps ``depth`` jobs at
each worker (the one it runs and the next, already in its socket), so a worker goes from page to
page without waiting for the crawl's process, whose Python threads share one GIL with Scrapy. Page
bodies travel raw (see ``wire``). A worker that dies or keeps one job past ``timeout`` costs that job
only: the jobs queued behind it go to its replacement. A worker is replaced after ``max_tasks`` jobs,
its successor started while it finishes its last ones. The thread sleeps in ``select`` whenever no
socket is ready, so it needs the GIL only when a job arrives or a reply does.
"""

from __future__ import annotations

import logging
import multiprocessing
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from . import wire

logger = logging.getLogger(__name__)

#: seconds a new worker process may take to say it is ready
STARTUP_TIMEOUT = 60.0
#: jobs each worker holds: the one it runs and this many more queued in its socket
QUEUED_PER_WORKER = 1
#: seconds a worker that closed its socket, or was told to stop, may take to exit before it is killed
EXIT_GRACE = 5.0
#: bytes read from a worker's socket at a time
RECEIVE_SIZE = 256 * 1024
#: after a worker fails to start, the next start waits 0.5 s, then twice as long each time, at most 30 s
RELAUNCH_DELAY, MAX_RELAUNCH_DELAY = 0.5, 30.0
#: failed starts in a row, with no worker up, after which waiting jobs fail instead of waiting
START_ATTEMPTS = 3


class WorkerLost(RuntimeError):
    """A worker process died or hung while running a job; only that job is lost."""

    reason = "error"

    def __init__(self, message: str, *, sent: bool = True):
        super().__init__(message)
        self.sent = sent  # False: the job never reached a worker (none could be started)


class WorkerDied(WorkerLost):
    reason = "error"


class WorkerTimeout(WorkerLost):
    reason = "time_limit"


class PoolShutDown(RuntimeError):
    """The pool was shut down before the job could run."""


@dataclass
class PoolCounts:
    """What happened to the pool's processes and jobs (read when the pool is shut down)."""

    started: int = 0  # worker processes launched, replacements included
    recycled: int = 0  # replaced after max_tasks jobs
    replaced: int = 0  # replaced after dying, hanging or failing to start
    lost_jobs: int = 0  # jobs that failed with their worker
    completed: int = 0  # jobs that got a reply


def start_method() -> str:
    """A start method that is safe next to a running reactor and its threads (never plain fork)."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


class _Job:
    """One submitted call: its future, its frame, and how much of the frame a worker has."""

    __slots__ = ("future", "frame", "running")

    def __init__(self, future: Future, frame: list[memoryview]):
        self.future = future
        self.frame = frame
        self.running = False  # the future was set running (it may go back to the queue after a loss)


class _Slot:
    """One worker process, the parent's end of its socket, and the jobs it holds (oldest first:
    the one it runs)."""

    def __init__(self, context: Any, number: int, target: Callable[[socket.socket], None]):
        self.number = number
        self.sock, child = socket.socketpair()
        try:
            self.process = context.Process(target=target, args=(child,), daemon=True, name=f"bodytext-worker-{number}")
            self.process.start()
        except BaseException:
            self.sock.close()
            raise
        finally:
            child.close()
        self.sock.setblocking(False)
        self.launched = time.monotonic()
        self.ready = False
        self.retiring = False  # gets no new job; closed once its jobs are done
        self.closed_at: float | None = None  # socket closed (or found closed): the process is exiting
        self.jobs: deque[_Job] = deque()
        self.unsent: deque[memoryview] = deque()  # what is left to write of the jobs' frames
        self.inbox = bytearray()
        self.given = 0  # jobs given to this worker (for recycling)
        self.since = 0.0  # when the oldest job started (the previous reply came back)

    @property
    def exit_code(self) -> int | None:
        self.process.join(0)
        return self.process.exitcode


class ProcessExecutor:
    """``workers`` worker processes fed by one dispatcher thread (see the module's docstring)."""

    #: what each worker process runs, given its end of the socket
    worker_main: Callable[[socket.socket], None] = staticmethod(wire.worker_main)

    def __init__(
        self,
        workers: int,
        *,
        max_tasks: int = 500,
        timeout: float = 60.0,
        method: str | None = None,
        queued: int = QUEUED_PER_WORKER,
        preload: Sequence[str] = (),
    ):
        """``preload``: modules the forkserver imports once before it forks workers (forkserver only)."""
        if workers < 1:
            raise ValueError(f"a process pool needs at least one worker, got {workers}")
        self.workers = workers
        self.max_tasks = max_tasks
        self.timeout = timeout
        self.depth = 1 + queued
        self.preload = list(preload)
        self.context = multiprocessing.get_context(method or start_method())
        self.counts = PoolCounts()
        self._lock = threading.Lock()
        self._submitted: deque[_Job] = deque()  # handed over to the dispatcher under the lock
        self._closed = False
        self._broken: str | None = None  # why the dispatcher stopped, if it failed
        self._woken = False
        self._thread: threading.Thread | None = None
        # owned by the dispatcher thread
        self._waiting: deque[_Job] = deque()
        self._slots: list[_Slot] = []  # live workers, retiring ones included
        self._exiting: list[_Slot] = []  # workers told to stop or killed, not yet reaped
        self._launched = 0
        self._start_failures = 0  # failed starts since a worker last came up
        self._next_launch = 0.0  # no start before this time.monotonic() (after a failed one)
        self._buffer = bytearray(RECEIVE_SIZE)

    def describe(self) -> str:
        return (
            f"{self.workers} worker process{'es' if self.workers != 1 else ''} ({self.context.get_start_method()} "
            f"start, {self.depth - 1} page{'s' if self.depth != 2 else ''} queued per worker, each replaced after "
            f"{self.max_tasks} pages or after {self.timeout:g} s on one page)"
        )

    # --- the caller's side ---------------------------------------------------------------------

    def start(self) -> None:
        """Launch the workers now (with the spider), not with the first job."""
        with self._lock:
            if self._thread is not None or self._closed:
                return
            if self.context.get_start_method() == "forkserver" and self.preload:
                self.context.set_forkserver_preload(self.preload)
            self._wake_reader, self._wake_writer = socket.socketpair()  # submit -> dispatcher
            self._wake_reader.setblocking(False)
            self._selector = selectors.DefaultSelector()
            self._thread = threading.Thread(target=self._dispatch, name="bodytext-dispatcher", daemon=True)
            self._thread.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Future:
        """Queue ``fn(*args)`` for a worker; its future fails with ``WorkerLost`` if the worker is lost."""
        if self._closed:
            raise RuntimeError("the worker pool is shut down")
        self.start()
        future: Future = Future()
        try:
            job = _Job(future, wire.encode_job(fn, args))
        except Exception as exc:  # noqa: BLE001 - the job cannot be pickled: it never reaches a worker
            future.set_exception(exc)
            return future
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker pool is shut down")
            if self._broken is not None:
                future.set_exception(PoolShutDown(self._broken))
                return future
            self._submitted.append(job)
            wake, self._woken = not self._woken, True
        if wake:
            self._wake_writer.send(b"\0")
        return future

    def shutdown(self) -> None:
        """Cancel the jobs no worker holds, let the workers finish theirs, stop them, and return."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
        if thread is None:
            return
        try:
            self._wake_writer.send(b"\0")
        except OSError:
            pass
        thread.join(self.timeout + STARTUP_TIMEOUT + 2 * EXIT_GRACE)
        for job in self._take_submitted():  # never started
            _abandon(job)
        self._wake_writer.close()
        self._wake_reader.close()

    # --- the dispatcher thread ---------------------------------------------------------------------

    def _dispatch(self) -> None:
        try:
            self._selector.register(self._wake_reader, selectors.EVENT_READ, None)
            self._fill()
            while not (self._closed and not any(slot.jobs for slot in self._slots)):
                self._cycle()
        except Exception as exc:  # noqa: BLE001 - a bug here must fail the jobs, not hang the crawl
            logger.exception("The extraction worker pool failed")
            with self._lock:
                self._broken = broken = f"the worker pool failed: {type(exc).__name__}: {exc}"
            held = [job for slot in self._slots for job in slot.jobs]
            for job in held + list(self._waiting) + self._take_submitted():
                if job.running or job.future.set_running_or_notify_cancel():
                    _settle(job, PoolShutDown(broken))
            for slot in self._slots:
                slot.jobs.clear()
            self._waiting.clear()
        finally:
            for job in self._waiting:
                _abandon(job)
            self._waiting.clear()
            self._stop_all()
            self._selector.close()

    def _cycle(self) -> None:
        """Wait for a socket or the next deadline, then act on what happened."""
        for key, _events in self._selector.select(self._wait_seconds()):
            kind, slot = key.data or ("wake", None)
            if kind == "wake":
                self._on_wake()
            elif kind == "socket":
                self._on_socket(slot, _events)
            else:
                self._on_exit(slot)
        self._check_deadlines()
        self._fill()

    def _on_wake(self) -> None:
        try:
            while self._wake_reader.recv(4096):
                pass
        except BlockingIOError:
            pass
        self._waiting.extend(self._take_submitted())
        if self._closed:
            for job in self._waiting:
                _abandon(job)
            self._waiting.clear()

    def _take_submitted(self) -> list[_Job]:
        with self._lock:
            jobs = list(self._submitted)
            self._submitted.clear()
            self._woken = False
        return jobs

    def _fill(self) -> None:
        """Launch missing workers and give waiting jobs to the least busy ready worker."""
        self._launch_missing()
        if self._start_failures >= START_ATTEMPTS and not any(slot.ready for slot in self._slots):
            for job in self._waiting:  # no worker can be started: fail pages rather than hold them
                if job.running or job.future.set_running_or_notify_cancel():
                    _settle(job, WorkerDied(f"could not be started ({self._start_failures} attempts)", sent=False))
                    self.counts.lost_jobs += 1
            self._waiting.clear()
        while self._waiting:
            open_slots = [
                slot
                for slot in self._slots
                if slot.ready and not slot.retiring and slot.closed_at is None and len(slot.jobs) < self.depth
            ]
            if not open_slots:
                break
            slot = min(open_slots, key=lambda slot: len(slot.jobs))
            job = self._waiting.popleft()
            if not job.running:
                if not job.future.set_running_or_notify_cancel():
                    continue
                job.running = True
            self._give(slot, job)
        self._launch_missing()  # successors of the workers that just got their last job

    def _launch_missing(self) -> None:
        while self._missing() and time.monotonic() >= self._next_launch:
            self._launch()

    def _missing(self) -> int:
        """Workers to launch to make up the pool (none once it is shut down)."""
        return 0 if self._closed else self.workers - sum(not slot.retiring for slot in self._slots)

    def _launch(self) -> None:
        self._launched += 1
        try:
            slot = _Slot(self.context, self._launched, self.worker_main)
        except Exception as exc:  # noqa: BLE001 - e.g. no memory for a process, a broken forkserver
            self._start_failed(f"could not be started ({type(exc).__name__}: {exc})")
            return
        self.counts.started += 1
        self._slots.append(slot)
        self._selector.register(slot.sock, selectors.EVENT_READ, ("socket", slot))
        self._selector.register(slot.process.sentinel, selectors.EVENT_READ, ("exit", slot))

    def _give(self, slot: _Slot, job: _Job) -> None:
        if not slot.jobs:
            slot.since = time.monotonic()
        slot.jobs.append(job)
        slot.unsent.extend(job.frame)
        slot.given += 1
        self._send(slot)
        if slot.given >= self.max_tasks:  # its successor starts at once (``_fill``), while it finishes
            slot.retiring = True
            self.counts.recycled += 1

    def _send(self, slot: _Slot) -> None:
        """Write what the socket takes now; the rest when it is writable again."""
        while slot.unsent:
            try:
                sent = slot.sock.sendmsg(slot.unsent)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:  # the worker is gone: its exit tells how
                self._closed_by_worker(slot)
                return
            while sent:
                first = slot.unsent[0]
                if sent >= first.nbytes:
                    sent -= first.nbytes
                    slot.unsent.popleft()
                else:
                    slot.unsent[0] = first[sent:]
                    sent = 0
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if slot.unsent else 0)
        if self._selector.get_key(slot.sock).events != events:
            self._selector.modify(slot.sock, events, ("socket", slot))

    def _on_socket(self, slot: _Slot, events: int) -> None:
        if events & selectors.EVENT_WRITE:
            self._send(slot)
            if slot.closed_at is not None:
                return
        if events & selectors.EVENT_READ:
            self._receive(slot)
        if slot.retiring and not slot.jobs and slot in self._slots:
            self._retire(slot)

    def _receive(self, slot: _Slot, *, until_empty: bool = False) -> None:
        """Read what the worker sent (all of it with ``until_empty``) and settle the replies in it."""
        while slot.closed_at is None:
            try:
                received = slot.sock.recv_into(self._buffer)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                received = 0
            if not received:
                self._closed_by_worker(slot)
                return
            slot.inbox += memoryview(self._buffer)[:received]
            for payload in wire.take_replies(slot.inbox):
                if not slot.ready:  # the first frame says the worker is up
                    slot.ready = True
                    self._start_failures, self._next_launch = 0, 0.0
                elif slot.jobs:
                    self._on_reply(slot, payload)
                else:
                    self._lose(slot, "sent a reply to no job")
                    return
            if not until_empty:
                return

    def _on_reply(self, slot: _Slot, payload: bytes) -> None:
        job = slot.jobs.popleft()
        slot.since = time.monotonic()
        self.counts.completed += 1
        ok, value = wire.decode_reply(payload)
        if ok:
            job.future.set_result(value)
        else:
            job.future.set_exception(value)

    def _closed_by_worker(self, slot: _Slot) -> None:
        """The worker's end of the socket closed: it is exiting; its exit (code) decides what is lost."""
        if slot.closed_at is None:
            slot.closed_at = time.monotonic()
            self._selector.unregister(slot.sock)

    def _on_exit(self, slot: _Slot) -> None:
        code = slot.exit_code
        if slot not in self._exiting:
            self._receive(slot, until_empty=True)  # replies it sent before it died still count
            if slot not in self._slots:
                pass  # lost while reading
            elif not slot.ready:
                self._lose(slot, f"did not start (exit code {code})")
            elif slot.jobs:
                self._lose(slot, WorkerDied(f"died during the job (exit code {code})"))
            else:
                self._lose(slot, f"died while idle (exit code {code})")
        self._reap(slot)

    def _check_deadlines(self) -> None:
        now = time.monotonic()
        for slot in list(self._slots):
            if not slot.ready and now - slot.launched > STARTUP_TIMEOUT:
                self._lose(slot, f"did not start within {STARTUP_TIMEOUT:g} s")
            elif slot.jobs and now - slot.since > self.timeout:
                self._lose(slot, WorkerTimeout(f"exceeded {self.timeout:g} s and was stopped"))
            elif slot.closed_at is not None and now - slot.closed_at > EXIT_GRACE:
                self._lose(slot, WorkerDied(f"closed its connection (exit code {slot.exit_code})"))
        for slot in list(self._exiting):
            if slot.closed_at is not None and now - slot.closed_at > EXIT_GRACE:
                slot.process.kill()
                slot.closed_at = now  # killed: reaped when its exit shows

    def _wait_seconds(self) -> float | None:
        """Seconds until the next deadline (None: nothing to time)."""
        deadlines = []
        for slot in self._slots:
            if not slot.ready:
                deadlines.append(slot.launched + STARTUP_TIMEOUT)
            if slot.jobs:
                deadlines.append(slot.since + self.timeout)
            if slot.closed_at is not None:
                deadlines.append(slot.closed_at + EXIT_GRACE)
        deadlines += [slot.closed_at + EXIT_GRACE for slot in self._exiting if slot.closed_at is not None]
        if self._missing():
            deadlines.append(self._next_launch)
        return max(0.0, min(deadlines) - time.monotonic() + 0.001) if deadlines else None

    def _lose(self, slot: _Slot, why: WorkerLost | str) -> None:
        """Replace a worker that died, hung or never started. A ``WorkerLost`` fails the job it ran;
        the jobs queued behind it wait for another worker."""
        self._detach(slot, kill=True)
        self.counts.replaced += 0 if slot.retiring else 1
        if isinstance(why, WorkerLost) and slot.jobs:
            _settle(slot.jobs.popleft(), why)
            self.counts.lost_jobs += 1
        self._waiting.extendleft(reversed(slot.jobs))
        slot.jobs.clear()
        if slot.ready:
            logger.warning("Extraction worker %s; starting a new one", why)
        else:
            self._start_failed(str(why))

    def _start_failed(self, why: str) -> None:
        """A worker could not be started: the next start waits longer each time (see ``_fill`` for
        the waiting jobs when none can be started)."""
        self._start_failures += 1
        delay = min(MAX_RELAUNCH_DELAY, RELAUNCH_DELAY * 2 ** (self._start_failures - 1))
        self._next_launch = time.monotonic() + delay
        if not self._closed:
            logger.warning("Extraction worker %s; next attempt in %g s", why, delay)

    def _retire(self, slot: _Slot) -> None:
        """A recycled worker has answered its last job: close its socket, so it exits."""
        self._detach(slot, kill=False)

    def _detach(self, slot: _Slot, *, kill: bool) -> None:
        """Take a worker out of the pool; it is reaped when its exit shows."""
        self._slots.remove(slot)
        if slot.closed_at is None:
            self._selector.unregister(slot.sock)
        slot.closed_at = time.monotonic()
        slot.sock.close()
        if kill:
            slot.process.kill()
        self._exiting.append(slot)

    def _reap(self, slot: _Slot) -> None:
        self._selector.unregister(slot.process.sentinel)
        self._exiting.remove(slot)
        slot.process.join(0)
        slot.process.close()

    def _stop_all(self) -> None:
        """At shutdown: close every socket (the workers exit), wait a little, kill what remains."""
        for slot in list(self._slots):
            self._detach(slot, kill=False)
        deadline = time.monotonic() + EXIT_GRACE
        for slot in list(self._exiting):
            slot.process.join(max(0.0, deadline - time.monotonic()))
            if slot.process.exitcode is None:
                slot.process.kill()
                slot.process.join(EXIT_GRACE)
            try:
                self._selector.unregister(slot.process.sentinel)
            except (KeyError, ValueError):
                pass
            self._exiting.remove(slot)
            if slot.process.exitcode is not None:
                slot.process.close()


def _settle(job: _Job, error: BaseException) -> None:
    if not job.future.done():
        job.future.set_exception(error)


def _abandon(job: _Job) -> None:
    """A job the pool will not run: cancelled, or failed if it was already running (its worker was
    lost at shutdown)."""
    if not job.future.cancel():
        _settle(job, PoolShutDown("the worker pool was shut down before this job ran"))
