"""The shared stores' boundary: Redis URLs checked with errors that say what is wrong, clients with the
timeouts asked for and no hidden retries, the outage guard (one WARNING per outage, calls paused after
repeated failures, one INFO on recovery, counts; a refused command one ERROR and the store off; a bug
raised as it is), and the serial thread store calls run in."""

from __future__ import annotations

import logging
import threading

import pytest
from redis import exceptions as errors

from scrapy_bodytext.stores import OutageGuard, RedisLink, StoreUnavailable, check_redis_url
from scrapy_bodytext.stores.outage import Failure
from scrapy_bodytext.stores.redis_link import redacted, redis_failure
from scrapy_bodytext.workers.serial import SerialWork


@pytest.mark.parametrize(
    "url",
    [
        "redis://localhost:6379/0",
        "redis://h",
        "rediss://user:pw@h:6380/15",
        "unix:///run/redis.sock?db=2",
        " redis://h/3 ",
    ],
)
def test_complete_redis_urls_pass(url):
    assert check_redis_url(url) == url.strip()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://host:notaport/0", "port is not a number"),
        ("redis://host:0/0", "port is not a number"),
        ("redis://host:70000/0", "port is not a number"),
        ("redis://host/notadb", "database 'notadb' is not a number"),
        ("redis://host/0?db=x", "database 'x' is not a number"),
        ("redis://", "names no host"),
        ("http://host:6379/0", "starting redis://, rediss:// or unix://"),
        ("unix://", "socket's path"),
        ("", "expected a Redis URL"),
    ],
)
def test_incomplete_redis_urls_say_what_is_wrong(url, message):
    with pytest.raises(ValueError, match=message):
        check_redis_url(url)


def test_a_link_names_its_server_without_the_password_and_bounds_every_call():
    link = RedisLink(
        "redis://user:secret@cache.internal:6379/2", setting="BODYTEXT_SITE_MEMORY_REDIS_URL", timeout=0.25
    )
    assert link.describe("site memory") == (
        "site memory at redis://user:***@cache.internal:6379/2 (BODYTEXT_SITE_MEMORY_REDIS_URL)"
    )
    assert redacted("redis://h:1/0") == "redis://h:1/0"
    assert redacted("redis://:pw@[::1]:6379/0") == "redis://:***@[::1]:6379/0"  # an IPv6 host keeps its brackets
    assert redacted("redis://:pw@[::1") == "redis://:pw@[::1"  # not a URL: shown as given
    kwargs = link.client("site memory").connection_pool.connection_kwargs
    assert kwargs["socket_timeout"] == 0.25 and kwargs["socket_connect_timeout"] == link.connect_timeout
    assert kwargs["retry"].get_retries() == 0  # a call is made once: the caller's fallback, not a retry
    with pytest.raises(ValueError, match="timeout must be > 0"):
        RedisLink("redis://h", timeout=0)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def failing() -> None:
    raise ConnectionError("connection closed")


def test_the_guard_says_an_outage_once_rests_after_repeated_failures_and_says_the_recovery(caplog):
    clock, counted = Clock(), []
    guard = OutageGuard(
        "memory at redis://h (SETTING)",
        retry_after=5,
        failures=3,
        fallback="pages keep their own verdicts",
        clock=clock,
        count=lambda name, n: counted.append(name),
    )
    caplog.set_level(logging.DEBUG)
    assert guard.call(lambda: "fine") == "fine"
    for _ in range(3):
        with pytest.raises(StoreUnavailable, match="ConnectionError: connection closed"):
            guard.call(failing)
    calls = []
    for _ in range(10):  # resting: nothing is called
        with pytest.raises(StoreUnavailable, match="resting"):
            guard.call(calls.append, 1)
    assert calls == [] and guard.in_outage
    clock.now += 5  # rested: one call tries again
    assert guard.call(lambda: "back") == "back" and not guard.in_outage
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    infos = [r for r in caplog.records if r.levelno == logging.INFO]
    assert len(warnings) == 1 and "memory at redis://h (SETTING) failed" in warnings[0].getMessage()
    assert "pages keep their own verdicts" in warnings[0].getMessage()
    assert (
        len(infos) == 1 and "answers again after 5.0 s (3 failed calls, 10 not made meanwhile)" in infos[0].getMessage()
    )
    assert guard.counts == {"failures": 3, "skipped": 10, "outages": 1, "recoveries": 1, "refused": 0, "mismatched": 0}
    assert counted.count("skipped") == 10 and counted.count("outages") == 1


def test_a_flapping_store_is_said_once_a_quiet_period_and_summed_up_at_the_close(caplog):
    clock = Clock()
    guard = OutageGuard("memory", retry_after=1, failures=3, quiet=60, clock=clock)
    caplog.set_level(logging.DEBUG)
    for _ in range(5):  # fails once, answers, fails again ... within a minute
        with pytest.raises(StoreUnavailable):
            guard.call(failing)
        guard.call(lambda: None)
        clock.now += 2
    clock.now += 60
    with pytest.raises(StoreUnavailable):
        guard.call(failing)  # a minute later: said again
    guard.close()
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.levelno >= logging.INFO]
    assert [level for level, _ in said].count(logging.WARNING) == 3  # two outages said, one still out at close
    assert [level for level, _ in said].count(logging.INFO) == 2  # one recovery said, the summary
    assert any("6 outages in all, 6 failed calls" in message for _, message in said)
    assert any("still unavailable" in message for level, message in said if level == logging.WARNING)


def test_serial_work_runs_calls_in_order_off_the_caller_and_at_once_without_a_thread():
    threaded = SerialWork("test", threaded=True)
    order, threads = [], set()

    def record(number: int) -> int:
        order.append(number)
        threads.add(threading.current_thread().name)
        return number * 2

    futures = [threaded.submit(record, number) for number in range(20)]
    assert [future.result(timeout=10) for future in futures] == [n * 2 for n in range(20)]
    assert order == list(range(20)) and threads and threading.current_thread().name not in threads
    threaded.shutdown()
    with pytest.raises(StoreUnavailable, match="shut down"):  # never run on the caller's thread
        threaded.submit(record, 99)
    assert 99 not in order
    inline = SerialWork("test", threaded=False)
    failed = inline.submit(failing)
    assert failed.done() and isinstance(failed.exception(), ConnectionError)
    inline.shutdown()
    assert inline.submit(record, 3).result() == 6  # a store in this process is called in the caller as before


@pytest.mark.parametrize(
    ("error", "failure"),
    [
        (errors.ConnectionError("Error 111 connecting"), Failure.LOST),
        (errors.BusyLoadingError("Redis is loading the dataset in memory"), Failure.LOST),
        (errors.InvalidResponse("Protocol error"), Failure.LOST),
        (errors.ResponseError("BUSY Redis is busy running a script"), Failure.LOST),
        (errors.TryAgainError("Multiple keys request during rehashing of slot"), Failure.LOST),
        (ConnectionResetError("reset by peer"), Failure.LOST),
        (errors.TimeoutError("Timeout reading from socket"), Failure.TIMED_OUT),
        (TimeoutError("timed out"), Failure.TIMED_OUT),
        (errors.ReadOnlyError("You can't write against a read only replica."), Failure.REFUSED),
        (errors.OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), Failure.REFUSED),
        (errors.NoPermissionError("this user has no permissions to run the 'hset' command"), Failure.REFUSED),
        (errors.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"), Failure.REFUSED),
        (errors.AuthenticationError("invalid username-password pair"), Failure.REFUSED),
        (errors.DataError("Invalid input of type: 'dict'"), None),
        (TypeError("unsupported operand"), None),
        (AttributeError("'NoneType' object has no attribute 'decode'"), None),
    ],
)
def test_only_a_server_not_reached_is_an_outage_a_refusal_is_its_own_and_a_bug_is_none(error, failure):
    assert redis_failure(error) is failure


def test_a_bug_in_a_call_is_raised_as_it_is_and_counts_nothing():
    guard = RedisLink("redis://h").guard("memory")
    with pytest.raises(TypeError):
        guard.call(lambda: None + 1)
    assert guard.counts["failures"] == 0 and not guard.in_outage and guard.off is None


def test_the_guard_logs_through_a_function_and_counts_through_another():
    lines, counted = [], []
    guard = OutageGuard(
        "memory",
        retry_after=5,
        log=lambda level, message, *args: lines.append((level, message % args)),
        count=lambda name, n: counted.append((name, n)),
    )
    with pytest.raises(StoreUnavailable):
        guard.call(failing)
    assert [level for level, _ in lines] == [logging.WARNING] and lines[0][1].startswith(
        "memory failed (ConnectionError"
    )
    assert counted == [("failures", 1), ("outages", 1)]


@pytest.mark.redis
@pytest.mark.parametrize(
    "server",
    [
        pytest.param({"options": ("--maxmemory", "1", "--maxmemory-policy", "noeviction")}, id="oom"),
        pytest.param({"replica": True}, id="read-only-replica"),
    ],
)
def test_a_server_that_refuses_writes_is_one_error_and_the_store_off_while_reads_still_answer(tmp_path, server, caplog):
    from test_redis_faults import MAIN, read_only_replica, started_redis

    with started_redis(tmp_path / "main", options=MAIN) as main:
        if server.get("replica"):
            refusing = read_only_replica(tmp_path / "store", main)
        else:
            refusing = started_redis(tmp_path / "store", options=server["options"])
        with refusing as store:
            link = RedisLink(store.url, setting="BODYTEXT_SITE_MEMORY_REDIS_URL")
            counted: list[str] = []
            guard = link.guard(
                "memory", fallback="pages keep their own verdicts", count=lambda name, n: counted.append(name)
            )
            client = link.client("memory")
            assert guard.call(client.hmget, "site", ["a"]) == [None]  # reads answer
            caplog.set_level(logging.DEBUG)
            with pytest.raises(StoreUnavailable, match="OutOfMemoryError|ReadOnlyError"):
                guard.call(client.hset, "site", "a", 1)
            calls: list[int] = []
            for _ in range(5):  # off: nothing is called, at once
                with pytest.raises(StoreUnavailable, match="off for the rest of the run"):
                    guard.call(calls.append, 1)
            guard.close()
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.levelno >= logging.INFO]
    assert len(said) == 1 and said[0][0] == logging.ERROR, said
    assert said[0][1].startswith(
        f"memory at {store.url} (BODYTEXT_SITE_MEMORY_REDIS_URL) is off for the rest of the run: "
    )
    assert "pages keep their own verdicts" in said[0][1]
    assert calls == [] and counted == ["refused"] + ["skipped"] * 5
    assert guard.counts["failures"] == guard.counts["outages"] == 0 and not guard.in_outage
