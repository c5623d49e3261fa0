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


def nothing_lost(found: Crawl, items_per_page: int = 1) -> None:
    """The crawl closed by itself, every item of every page was stored or dropped, none in an error."""
    assert found.returncode == 0, found.log[-3000:]
    assert found.stat("finish_reason") == "finished"
    items = found.stat("response_received_count") * items_per_page
    assert found.stored + found.dropped == items == found.stat("bodytext/items/extracted")
    assert found.stat("bodytext/items/unreleased") == 0
    assert "Error processing" not in found.log and "Traceback" not in found.log, found.log[-3000:]
    # the one ERROR a crawl may say: Redis not reachable at the start (a connection dropped then)
    errors = re.findall(r"\] ERROR: (.*)", found.log)
    assert all(" not reachable at the start, " in line for line in errors), errors


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
