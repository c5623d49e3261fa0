"""Nothing lost, nothing hung when Redis fails: real crawls of a generated blog on 127.0.0.1 with the site
memory and the duplicate index in a real redis-server, reached through a relay that drops connections
(a flaky network), or with the server frozen (SIGSTOP), killed, or the crawl stopped with SIGTERM while
Redis is frozen. Every item is stored or dropped, none ends in an error, the crawl closes by itself,
and each outage is one WARNING line, not one per page."""

from __future__ import annotations

import json
import re
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from blog_site import blog
from conftest import IN_CI
from crawl_runner import ADDON, Crawl, start_crawl
from fault_relay import FaultRelay
from http_server import AtRequest, SiteServer
from redis_server import RedisProcess

pytestmark = pytest.mark.redis

PAGES, KINDS = blog(60)
ARTICLES = {path for path, kind in KINDS.items() if kind == "article"}
#: a crawl that hangs is a failure of this file, not of the test run
CRAWL_TIMEOUT = 240
#: the log lines of the two guards (site memory, duplicate index) that say an outage began or lasted
OUTAGE_LINE = re.compile(r"WARNING: (site memory|the duplicate index) in Redis at \S+ \(BODYTEXT_\w+\) (failed|still)")


@contextmanager
def started_redis(folder: Path, **options) -> Iterator[RedisProcess]:
    """A redis-server of its own in ``folder`` (``options``: ``RedisProcess``'s), stopped on exit."""
    binary = shutil.which("redis-server")
    if binary is None:
        if IN_CI:
            pytest.fail("no redis-server on PATH; CI must run the Redis fault tests (.ci/run installs it)")
        pytest.skip("no redis-server on PATH")
    folder.mkdir(parents=True, exist_ok=True)
    with RedisProcess(binary, folder, **options) as server:
        if not server.start():
            pytest.fail(f"redis-server could not be started: {(folder / 'redis.log').read_text(errors='replace')}")
        yield server


#: a main server whose replicas get its data at once (not after the default 5 s of waiting for more replicas)
MAIN = ("--repl-diskless-sync-delay", "0")


@contextmanager
def read_only_replica(folder: Path, main: RedisProcess) -> Iterator[RedisProcess]:
    """A read-only replica of ``main`` (started with ``MAIN``), as after a failover: reads answer,
    writes are refused (READONLY); yielded once it holds ``main``'s data (its acknowledgement awaited)."""
    import redis

    options = ("--replicaof", "127.0.0.1", str(main.port), "--replica-read-only", "yes")
    with started_redis(folder, options=options) as replica:
        client = redis.Redis.from_url(main.url, socket_timeout=120)
        try:
            client.set("bodytext:test:synced", 1)
            assert client.wait(1, 120_000) == 1, "the replica did not follow its main"
        finally:
            client.close()
        yield replica


@pytest.fixture
def redis_process(tmp_path_factory):
    with started_redis(tmp_path_factory.mktemp("redis")) as server:
        yield server


def settings(url: str, **more) -> dict:
    """The add-on with the site memory and the duplicate index both in the Redis at ``url``."""
    return {
        "ADDONS": ADDON,
        "BODYTEXT_WORKERS": 0,
        "BODYTEXT_SITE_MEMORY_REDIS_URL": url,
        "BODYTEXT_DUPLICATE_REDIS_URL": url,
        "BODYTEXT_REDIS_RETRY_AFTER": 0.2,
        "CONCURRENT_REQUESTS": 4,
        **more,
    }


def crawl(folder, site: SiteServer, url: str, kinds: str = "dict", **more) -> Crawl:
    folder.mkdir(exist_ok=True)
    found = start_crawl(folder, settings=settings(url, **more), start=site.base_url + "/", kinds=kinds).finish(
        CRAWL_TIMEOUT
    )
    print(f"\n--- {folder.name}: {found.stored} stored, {found.dropped} dropped")
    print(json.dumps({**found.stats_under("bodytext/sites"), **found.stats_under("bodytext/duplicates")}))
    return found


#: the one ERROR a crawl may say: Redis not reachable at the start (a connection dropped then)
NOT_REACHABLE = " not reachable at the start, "


def nothing_lost(found: Crawl, items_per_page: int = 1, error: str = NOT_REACHABLE) -> None:
    """The crawl closed by itself, every item of every page was stored or dropped, none in an error;
    the only ERROR lines are those containing ``error``."""
    assert found.returncode == 0, found.log[-3000:]
    assert found.stat("finish_reason") == "finished"
    items = found.stat("response_received_count") * items_per_page
    assert found.stored + found.dropped == items == found.stat("bodytext/items/extracted")
    assert found.stat("bodytext/items/unreleased") == 0
    assert "Error processing" not in found.log and "Traceback" not in found.log, found.log[-3000:]
    errors = re.findall(r"\] ERROR: (.*)", found.log)
    assert all(error in line for line in errors), errors


def outage_warnings(found: Crawl) -> int:
    return len(OUTAGE_LINE.findall(found.log))


def one_warning_per_outage(found: Crawl) -> None:
    """A store that had outages says so in one WARNING (a flapping one once a minute at most: these
    crawls take less), and once more when it is still out at the close; no page has a line of its own."""
    stores = [name for name in ("sites", "duplicates") if found.stat(f"bodytext/{name}/redis/outages")]
    still_out = len(re.findall(r"in Redis at \S+ \(BODYTEXT_\w+\) still unavailable", found.log))
    assert outage_warnings(found) == len(stores) + still_out
    assert "Site memory failed" not in found.log and "Duplicate check failed" not in found.log


@pytest.mark.parametrize(("drop", "kinds"), [(0.03, "dict"), (0.15, "dict"), (0.1, "dict,dict")])
def test_dropped_connections_lose_no_item(tmp_path, redis_process, drop, kinds):
    with SiteServer(PAGES) as site, FaultRelay(("127.0.0.1", redis_process.port), drop=drop, seed=7) as relay:
        found = crawl(tmp_path / "crawl", site, relay.url, kinds=kinds)
    assert relay.dropped > 0  # the fault happened
    nothing_lost(found, items_per_page=len(kinds.split(",")))
    assert found.stat("bodytext/sites/redis/failures") + found.stat("bodytext/duplicates/redis/failures") > 0
    one_warning_per_outage(found)
    assert found.stat("bodytext/sites/judged") > 0  # the memory still worked between the faults


def test_a_frozen_redis_holds_up_no_page_and_is_used_again_when_it_thaws(tmp_path, redis_process):
    """Redis is frozen at the 10th page's request and thawed after eight calls have met it frozen."""
    frozen = {}

    def on_chunk(count: int) -> None:
        if "at" in frozen and count == frozen["at"] + 8:
            redis_process.thaw()

    def freeze() -> None:
        frozen["at"] = relay.chunks
        redis_process.freeze()

    with (
        FaultRelay(("127.0.0.1", redis_process.port), on_chunk=on_chunk) as relay,
        SiteServer(PAGES, on_request=AtRequest({10: freeze})) as site,
    ):
        try:
            found = crawl(tmp_path / "crawl", site, relay.url)
        finally:
            redis_process.thaw()
    assert relay.chunks >= frozen["at"] + 8  # the thaw came from the crawl's own calls
    nothing_lost(found)
    assert found.stat("bodytext/sites/redis/outages") >= 1
    assert found.stat("bodytext/sites/redis/skipped") > 0  # pages decided without waiting on Redis
    assert found.stat("bodytext/sites/redis/recoveries") >= 1
    assert "answers again after" in found.log
    # used again after the thaw: more pages judged than the freeze's request and those in flight then
    assert found.stat("bodytext/sites/judged") > 10 + settings(relay.url)["CONCURRENT_REQUESTS"]
    one_warning_per_outage(found)


def test_a_killed_redis_is_one_warning_and_every_page_keeps_its_own_verdict(tmp_path, redis_process):
    at = AtRequest({10: redis_process.kill})
    with SiteServer(PAGES, on_request=at) as site:
        found = crawl(tmp_path / "crawl", site, redis_process.url)
    nothing_lost(found)
    assert found.stat("bodytext/sites/redis/outages") == 1
    assert found.stat("bodytext/duplicates/redis/outages") <= 1
    assert found.stat("bodytext/sites/redis/recoveries") == 0
    assert "site memory in Redis at" in found.log and "still unavailable" in found.log
    one_warning_per_outage(found)


@pytest.mark.parametrize("server", ["read-only replica", "out of memory"])
def test_a_redis_that_refuses_writes_is_one_error_per_store_and_every_page_keeps_its_own_verdict(tmp_path, server):
    """Reads answer, writes are refused (READONLY on a replica after a failover, OOM on a full server):
    each store says so in one ERROR line naming its server and setting, and is off for the crawl; no
    outage is said, nothing is lost, and every page is decided on its own verdict."""
    from test_redis import core_verdict

    with started_redis(tmp_path / "main", options=MAIN) as main:
        if server == "read-only replica":
            refusing = read_only_replica(tmp_path / "store", main)
        else:
            refusing = started_redis(
                tmp_path / "store", options=("--maxmemory", "1", "--maxmemory-policy", "noeviction")
            )
        with refusing as store, SiteServer(PAGES) as site:
            found = crawl(tmp_path / "crawl", site, store.url)
    nothing_lost(found, error=" is off for the rest of the run: it refused a command (")
    refused = "ReadOnlyError" if server == "read-only replica" else "OutOfMemoryError"
    errors = re.findall(r"\] ERROR: (.*)", found.log)
    assert sorted(line.split(" is off ")[0] for line in errors) == [
        f"site memory in Redis at {store.url} (BODYTEXT_SITE_MEMORY_REDIS_URL)",
        f"the duplicate index in Redis at {store.url} (BODYTEXT_DUPLICATE_REDIS_URL)",
    ]
    assert all(f"it refused a command ({refused}: " in line for line in errors), errors
    for name in ("sites", "duplicates"):
        assert found.stat(f"bodytext/{name}/redis/refused") == 1
        assert found.stat(f"bodytext/{name}/redis/failures") == found.stat(f"bodytext/{name}/redis/outages") == 0
    assert outage_warnings(found) == 0 and "Site memory failed" not in found.log
    assert found.stat("bodytext/duplicates/checked") == 0  # stored unchecked
    articles = {url for url in (site.url(path) for path in PAGES) if core_verdict(site, url).is_article}
    assert {item["url"] for item in found.items} == articles  # each page its own verdict


def test_sigterm_closes_a_crawl_whose_redis_is_frozen_with_every_item_decided(tmp_path, redis_process):
    folder = tmp_path / "crawl"
    folder.mkdir()
    running = {}

    def stop_the_crawl() -> None:
        running["crawl"].process.send_signal(signal.SIGTERM)

    at = AtRequest({8: redis_process.freeze, 20: stop_the_crawl})
    with SiteServer(PAGES, on_request=at) as site:
        try:
            running["crawl"] = start_crawl(
                folder, settings=settings(redis_process.url), start=site.base_url + "/", kinds="dict"
            )
            found = running["crawl"].finish(CRAWL_TIMEOUT)
        finally:
            redis_process.thaw()
    assert at.done.is_set()
    assert found.returncode == 0, found.log[-3000:]
    assert found.stat("finish_reason") == "shutdown"
    assert found.stored + found.dropped == found.stat("bodytext/items/extracted") > 0
    assert found.stat("bodytext/items/unreleased") == 0
    assert "Error processing" not in found.log and "Traceback" not in found.log, found.log[-3000:]


def test_the_command_line_stops_with_a_clear_error_when_its_redis_does_not_answer(tmp_path, redis_process):
    import subprocess
    import sys

    page = tmp_path / "post.html"
    page.write_bytes(PAGES[sorted(ARTICLES)[0]][0])
    redis_process.kill()
    done = subprocess.run(
        [sys.executable, "-m", "scrapy_bodytext", "extract", "--duplicates", "flag",
         "--duplicate-redis-url", redis_process.url, str(page)],
        capture_output=True, text=True, timeout=CRAWL_TIMEOUT,
    )  # fmt: skip
    assert done.returncode != 0 and "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("scrapy-bodytext extract: duplicate index: the duplicate index in Redis at ")
    assert redis_process.url in last and "Connection refused" in last


def test_a_redis_lost_during_a_run_leaves_articles_unchecked_and_pages_their_own_verdicts(redis_process):
    """The front doors other than the crawl (extract(memory=...), the command line, datatrove) call the
    core directly: a Redis lost after the start costs the checks, never a page."""
    from scrapy_bodytext import extract
    from scrapy_bodytext.duplicates import Deduplicator
    from scrapy_bodytext.sites import RedisSiteMemory

    posts = sorted(ARTICLES)[:4]
    results = {path: extract(PAGES[path][0], url=f"https://blog.example.org{path}") for path in posts}
    deduplicator = Deduplicator("flag", redis_url=redis_process.url, prefix="test:lost")
    memory = RedisSiteMemory(redis_process.url, prefix="test:lost-sites")
    first = posts[0]
    assert deduplicator.claim(first, results[first])[0] == "indexed"
    redis_process.kill()
    for path in posts[1:]:
        assert deduplicator.claim(path, results[path]) == ("unchecked", None)
        verdict = memory.decide(f"https://blog.example.org{path}", results[path])
        assert verdict.probability == results[path].article_probability and "unavailable" in verdict.evidence
        assert memory.strip_boilerplate(f"https://blog.example.org{path}", results[path].text) == results[path].text
    assert deduplicator.counts["unchecked"] == 3


def duplicate_check(url: str):
    """The pipeline's duplicate check with its index in the Redis at ``url``, opened (no crawl: driven
    here by hand, so that the page's items can be awaited, cancelled and answered one by one)."""
    from scrapy import Spider
    from scrapy.utils.misc import build_from_crawler
    from scrapy.utils.test import get_crawler

    from scrapy_bodytext import BodyTextPipeline

    crawler = get_crawler(
        Spider,
        settings_dict={
            "ADDONS": ADDON,
            "BODYTEXT_WORKERS": 0,
            "BODYTEXT_SITE_MEMORY": False,
            "BODYTEXT_DUPLICATE_REDIS_URL": url,
            "BODYTEXT_DUPLICATE_REDIS_PREFIX": "test:futures",
        },
    )
    crawler.spider = crawler._create_spider("test")
    crawler.stats.open_spider()
    check = build_from_crawler(BodyTextPipeline, crawler).duplicates
    check.open()
    return check


def test_an_items_cancellation_leaves_the_pages_other_items_their_answer_and_a_late_page_is_answered(
    redis_process, caplog
):
    """Three items of one page await its one question to the index; the first is cancelled while the
    question waits its turn: the other two get the answer and the article is indexed. After the close
    a page's question cannot be asked: its items are answered at once (stored unchecked), counted."""
    import asyncio
    import logging
    import threading

    import redis

    from scrapy_bodytext import extract
    from scrapy_bodytext.plugin.spidermiddlewares import Page

    path = sorted(ARTICLES)[0]
    body = PAGES[path][0]
    result = extract(body, url=f"https://blog.example.org{path}")
    assert result.is_article
    check = duplicate_check(redis_process.url)

    def page(url: str) -> Page:
        return Page(url=url, body=body, encoding="utf-8", content_type="text/html")

    async def items_of_one_page() -> list:
        gate = threading.Event()
        check._work.submit(gate.wait)  # the index's thread is busy: the page's question waits its turn
        first = page("https://blog.example.org/first")
        items = [asyncio.ensure_future(check.verdict(first, result)) for _ in range(3)]
        await asyncio.sleep(0)  # each item is now awaiting the page's answer
        items[0].cancel()
        gate.set()
        return await asyncio.gather(*items, return_exceptions=True)

    answers = asyncio.run(items_of_one_page())
    assert isinstance(answers[0], asyncio.CancelledError) and answers[1:] == [None, None]
    check.close()
    assert redis.Redis.from_url(redis_process.url).hlen("test:futures:url") == 1  # the question was asked

    late = page("https://blog.example.org/late")
    with caplog.at_level(logging.WARNING):
        assert asyncio.run(asyncio.wait_for(check.verdict(late, result), 60)) is None
        assert asyncio.run(asyncio.wait_for(check.verdict(late, result), 60)) is None  # its other item
    assert check.stats.get_value("bodytext/duplicates/errors") == 1
    lines = [r.getMessage() for r in caplog.records if "Duplicate check not made" in r.getMessage()]
    assert len(lines) == 1 and "shut down" in lines[0]
