"""Worker pools: results identical to in-process extraction; a dead or hung worker costs one job."""

from __future__ import annotations

import operator
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import CancelledError
from pathlib import Path

import pytest

from scrapy_bodytext import ExtractConfig, extract
from scrapy_bodytext.workers.executors import (
    ProcessExecutor,
    ThreadExecutor,
    WorkerDied,
    WorkerTimeout,
    extract_timed,
    make_executor,
)
from scrapy_bodytext.workers.pool import START_ATTEMPTS

SITE = Path(__file__).parent / "site"
PAGES = sorted(SITE.glob("*.html"))


@pytest.fixture
def processes():
    pools = []

    def make(workers=1, **kwargs):
        pool = ProcessExecutor(workers, **kwargs)
        pool.start()
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.shutdown()


def extract_all(pool):
    config = ExtractConfig()
    futures = [pool.submit(extract_timed, path.read_bytes(), config, path.name, None, "text/html") for path in PAGES]
    return [future.result(timeout=60)[0] for future in futures]


def test_pools_return_what_in_process_extraction_returns(processes):
    expected = [extract(path.read_bytes(), url=path.name, content_type="text/html") for path in PAGES]
    threads = ThreadExecutor(2)
    try:
        assert extract_all(threads) == expected
    finally:
        threads.shutdown()
    assert extract_all(processes(2)) == expected


def test_a_job_that_kills_its_worker_costs_that_job_only(processes):
    pool = processes(1)
    first = pool.submit(os.getpid).result(timeout=30)
    killed = pool.submit(os._exit, 3)
    after = [pool.submit(os.getpid) for _ in range(3)]
    with pytest.raises(WorkerDied, match="exit code 3"):
        killed.result(timeout=30)
    pids = {future.result(timeout=30) for future in after}
    assert len(pids) == 1 and first not in pids  # a new worker took over


def test_a_hung_job_is_stopped_after_the_timeout(processes, tmp_path):
    pool = processes(1, timeout=0.5)
    hung = pool.submit(wait_for_file, str(tmp_path / "never"))  # never ends on its own: only the timeout stops it
    with pytest.raises(WorkerTimeout):
        hung.result(timeout=60)
    assert pool.submit(sum, [1, 2]).result(timeout=30) == 3


def test_an_exception_in_a_job_keeps_the_worker(processes):
    pool = processes(1)
    pid = pool.submit(os.getpid).result(timeout=30)
    with pytest.raises(ValueError):
        pool.submit(int, "x").result(timeout=30)
    assert pool.submit(os.getpid).result(timeout=30) == pid


def test_workers_are_recycled_after_max_tasks(processes):
    pool = processes(1, max_tasks=2)
    pids = [pool.submit(os.getpid).result(timeout=30) for _ in range(6)]
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4] == pids[5]


def test_shutdown_cancels_queued_jobs_and_refuses_new_ones(processes, tmp_path):
    """The running job runs until the jobs behind it were cancelled: the worker holds it and at most
    the next one, the others wait in the pool when the shutdown comes, whatever the speed of the machine."""
    flag = tmp_path / "go"
    pool = processes(1)
    running = pool.submit(wait_for_file, str(flag))
    queued = [pool.submit(os.getpid) for _ in range(20)]
    while not running.running():
        time.sleep(0.01)
    closing = threading.Thread(target=pool.shutdown)
    closing.start()
    try:
        deadline = time.monotonic() + 60
        while not queued[-1].done() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert queued[-1].cancelled()
    finally:
        flag.write_text("")
        closing.join(120)
    assert not closing.is_alive()
    assert isinstance(running.result(timeout=1), int)  # the job the worker ran: finished
    cancelled = 0
    for future in queued:
        try:
            future.result(timeout=1)
        except CancelledError:
            cancelled += 1
    assert cancelled >= len(queued) - 1  # all but the one the worker may hold beside the running one
    with pytest.raises(RuntimeError):
        pool.submit(os.getpid)


def test_the_settings_choose_the_pool():
    assert isinstance(make_executor(2, 0, max_tasks=10, timeout=5), ThreadExecutor)
    pool = make_executor(1, 3, max_tasks=10, timeout=5)
    assert isinstance(pool, ProcessExecutor) and pool.workers == 3
    assert pool.context.get_start_method() in ("forkserver", "spawn")


# --- pipelining and the wire -------------------------------------------------------------------------


def wait_for_file(path: str) -> int:
    """A job that runs until ``path`` exists (deterministic stand-in for a long page)."""
    while not os.path.exists(path):
        time.sleep(0.01)
    return os.getpid()


def test_each_worker_holds_the_job_it_runs_and_the_next_one(processes, tmp_path):
    """The next job is already at the worker while it runs one, so it never waits for the dispatcher."""
    flag = tmp_path / "go"
    pool = processes(1)
    first = pool.submit(wait_for_file, str(flag))
    second, third = pool.submit(os.getpid), pool.submit(os.getpid)
    deadline = time.monotonic() + 30
    while not second.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first.running() and second.running()  # handed to the worker
    assert not third.running() and not third.done()  # waits in the pool
    flag.write_text("")
    assert first.result(timeout=30) == second.result(timeout=30) == third.result(timeout=30)


def test_a_large_body_reaches_the_job_as_the_same_bytes(processes):
    body = os.urandom(300_000)
    pool = processes(1)
    assert pool.submit(type, body).result(timeout=30) is bytes
    assert pool.submit(bytes.hex, body).result(timeout=30) == body.hex()
    assert pool.submit(operator.add, b"small", body[:10]).result(timeout=30) == b"small" + body[:10]


class NeedsTwoArguments(Exception):
    """Pickles, but cannot be rebuilt from its args (a common mistake in third-party exceptions)."""

    def __init__(self, first, second):
        super().__init__(first)
        self.second = second


def raise_needs_two_arguments() -> None:
    raise NeedsTwoArguments("a", "b")


def test_answers_that_cannot_travel_fail_their_job_only(processes):
    pool = processes(1)
    pid = pool.submit(os.getpid).result(timeout=30)
    with pytest.raises(Exception, match="could not be pickled|Can't pickle|pickle"):
        pool.submit(lambda: 0).result(timeout=30)  # the job itself: never sent
    with pytest.raises(RuntimeError, match="result could not be sent back"):
        pool.submit(eval, "lambda: 0").result(timeout=30)  # its result
    with pytest.raises(RuntimeError, match="reply could not be read"):
        pool.submit(raise_needs_two_arguments).result(timeout=30)  # its exception, on this side
    assert pool.submit(os.getpid).result(timeout=30) == pid  # the same worker all along
    assert pool.counts.replaced == 0


def test_a_worker_killed_while_idle_is_replaced_and_no_job_is_lost(processes):
    pool = processes(1)
    pid = pool.submit(os.getpid).result(timeout=30)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while pool.counts.replaced == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.counts.replaced == 1
    assert pool.submit(os.getpid).result(timeout=30) not in (pid, None)
    assert pool.counts.lost_jobs == 0


def test_the_jobs_queued_behind_a_lost_one_are_not_lost(processes, tmp_path):
    flag = tmp_path / "never"
    pool = processes(1, timeout=1.0)
    hung = pool.submit(wait_for_file, str(flag))
    behind = [pool.submit(os.getpid) for _ in range(4)]
    with pytest.raises(WorkerTimeout, match="exceeded 1 s"):
        hung.result(timeout=30)
    assert len({future.result(timeout=30) for future in behind}) == 1
    assert (pool.counts.lost_jobs, pool.counts.replaced) == (1, 1)


def test_the_forkserver_preload_loads_every_method_once():
    """What the forkserver imports before forking workers (``WORKER_PRELOAD``) leaves every method's
    module and the stop-word lists loaded, so forked workers start warm."""
    check = (
        "import sys; from scrapy_bodytext.workers.executors import WORKER_PRELOAD; "
        "[__import__(name) for name in WORKER_PRELOAD]; "
        "from scrapy_bodytext import extractors; "
        "print(all(path in sys.modules for path in extractors.EXTRACTORS.values()), 'stopwordsiso' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.split() == ["True", "True"]


def exit_before_ready(connection) -> None:
    os._exit(3)


class NeverStarts(ProcessExecutor):
    """Workers that exit before they say they are ready (a broken environment)."""

    worker_main = staticmethod(exit_before_ready)


def test_when_no_worker_can_start_the_jobs_fail_instead_of_waiting_forever(caplog):
    pool = NeverStarts(1)
    pool.start()
    try:
        futures = [pool.submit(os.getpid) for _ in range(3)]
        for future in futures:
            with pytest.raises(WorkerDied, match="could not be started"):
                future.result(timeout=60)
        assert pool.counts.started >= START_ATTEMPTS and pool.counts.lost_jobs == 3
        assert any(
            "did not start (exit code 3); next attempt in 0.5 s" in record.getMessage() for record in caplog.records
        )
    finally:
        pool.shutdown()


def test_a_worker_finishes_its_job_when_ctrl_c_reaches_it(processes, tmp_path):
    """A terminal sends SIGINT to the whole process group: the crawl's process decides what stops."""
    flag = tmp_path / "go"
    pool = processes(1)
    pid = pool.submit(os.getpid).result(timeout=30)
    running = pool.submit(wait_for_file, str(flag))
    while not running.running():
        time.sleep(0.01)
    os.kill(pid, signal.SIGINT)
    flag.write_text("")
    assert running.result(timeout=30) == pid
    assert pool.counts.replaced == 0
