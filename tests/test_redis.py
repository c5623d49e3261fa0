"""A distributed crawl through scrapy-redis: a real ``redis-server``, two crawler processes sharing its
scheduler queue and dupefilter, the plugin unchanged. Every article page is stored exactly once
across both feeds, non-articles are dropped, and nothing is lost."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import warnings
from collections import Counter
from urllib.parse import urlsplit

import pytest
import redis
from conftest import IN_CI
from crawl_runner import ADDON, Crawl, run_at_once, run_crawl
from crawl_spiders import SiteSpider
from http_server import SiteServer, site_pages
from redis_server import free_port, redis_server_command
from scrapy.exceptions import ScrapyDeprecationWarning
from scrapy.http import HtmlResponse

from scrapy_bodytext import extract

# scrapy-redis 0.9 still calls APIs Scrapy 2.19 deprecates (e.g. spider= to the stats collector): not
# this project's errors. The crawl processes import this module for their spider, so this filter is set
# where scrapy-redis runs, for its own modules only (the project's warnings stay errors there).
warnings.filterwarnings("ignore", category=ScrapyDeprecationWarning, module=r"scrapy_redis(\.|$)")
from scrapy_redis.spiders import RedisMixin  # noqa: E402 - after its warning filter

pytestmark = pytest.mark.redis

CRAWLERS = ("a", "b")
#: the seed page, linked from nowhere (a start URL is never filtered, so a linked one would be fetched twice)
SEED = "/"
#: the page the seed links to, which links to the rest of the site
HUB = "/index.html"
#: a page whose request carries a plugin Request.meta key through the Redis queue
SKIPPED = "/section-science.html"


class RedisSiteSpider(RedisMixin, SiteSpider):
    """SiteSpider taking its start URLs from Redis and waiting there for work until idle for
    ``MAX_IDLE_TIME_BEFORE_CLOSE`` seconds."""

    name = "redis_site"

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.setup_redis(crawler)
        return spider

    async def start(self):
        for request in self.next_requests():
            yield request


# --- a real redis-server -------------------------------------------------------------------------


def unavailable(message: str) -> None:
    if IN_CI:
        pytest.fail(message + "; CI must run the distributed-crawl test (.ci/run installs redis-server)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A redis-server of its own: a free port on 127.0.0.1, a temporary directory, no persistence."""
    binary = shutil.which("redis-server")
    if binary is None:
        unavailable("no redis-server on PATH")
    folder = tmp_path_factory.mktemp("redis")
    for _attempt in range(3):  # the free port may be taken between probe and start
        port = free_port()
        with open(folder / "redis.log", "wb") as log:
            server = subprocess.Popen(
                redis_server_command(binary, port, folder),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        client = redis.Redis(host="127.0.0.1", port=port)
        deadline = time.monotonic() + 10
        while server.poll() is None and time.monotonic() < deadline:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        else:
            server.kill()
            server.wait()
            continue
        try:
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            client.close()
            server.terminate()
            server.wait(10)
        return
    unavailable(f"redis-server could not be started: {(folder / 'redis.log').read_text(errors='replace')[-500:]}")


# --- the site ------------------------------------------------------------------------------------


class SharedWork:
    """Records which crawler (by User-Agent) asked for which page. The seed and the page it links to
    are answered at once; every later request waits until both crawlers have asked for a page (an
    idle crawler polls the shared queue every 5 s), so both take part whatever their start times."""

    def __init__(self):
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.both = threading.Event()

    def __call__(self, target: str, headers) -> None:
        with self.lock:
            self.requests.append((headers.get("User-Agent", ""), target))
            if len({agent for agent, _ in self.requests}) == len(CRAWLERS):
                self.both.set()
        if target not in (SEED, HUB):
            self.both.wait(30)


def core_verdict(site: SiteServer, url: str):
    """What extract() says of a served page, decoded as Scrapy decodes it."""
    body, content_type = site.pages[urlsplit(url).path]
    encoding = HtmlResponse(url, body=body, headers={"Content-Type": content_type}).encoding
    return extract(body, url=url, encoding=encoding, content_type=content_type)


def crawler_settings(name: str, redis_url: str) -> dict:
    """The add-on and scrapy-redis's scheduler and dupefilter; ``name`` goes into the User-Agent."""
    return {
        "ADDONS": ADDON,
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "SCHEDULER_PERSIST": True,  # the first crawler to finish must not clear the others' queue
        "REDIS_URL": redis_url,
        "MAX_IDLE_TIME_BEFORE_CLOSE": 15,
        "CONCURRENT_REQUESTS": 2,
        "USER_AGENT": f"crawler-{name}",
        "BODYTEXT_SITE_MEMORY": False,  # each page judged alone, as extract() judges it (tests/test_sites_crawl.py shares site memory)
    }


def test_two_crawlers_share_one_redis_queue_and_store_each_article_once(redis_url, tmp_path):
    work = SharedWork()
    pages = {**site_pages(), SEED: (f'<html><body><p><a href="{HUB}">News</a></p></body></html>'.encode(), "text/html")}
    with SiteServer(pages, on_request=work) as site:
        redis.Redis.from_url(redis_url).lpush("redis_site:start_urls", json.dumps({"url": site.url(SEED)}))

        def crawl(name: str) -> Crawl:
            folder = tmp_path / name
            folder.mkdir()
            return run_crawl(
                folder,
                spider="test_redis.RedisSiteSpider",
                timeout=90,
                settings=crawler_settings(name, redis_url),
                meta=json.dumps({SKIPPED: {"bodytext_skip": True}}),
            )

        crawls = run_at_once({name: lambda name=name: crawl(name) for name in CRAWLERS})

    for name, found in crawls.items():
        assert isinstance(found, Crawl), f"crawler {name}: {found!r}"
        assert found.returncode == 0 and found.stat("finish_reason") == "finished", found.log[-3000:]
        assert "Traceback" not in found.log and found.stat("log_count/ERROR") == 0, found.log[-3000:]
        assert found.stat("downloader/response_status_count/200") > 0, f"crawler {name} fetched no page"
    # one shared queue and dupefilter: every URL fetched once, by one crawler or the other
    fetched = Counter(target for _, target in work.requests)
    assert set(fetched.values()) == {1}, [target for target, count in fetched.items() if count > 1]
    assert {agent for agent, _ in work.requests} == {f"crawler-{name}" for name in CRAWLERS}
    served = {site.url(target) for target in fetched if urlsplit(target).path in pages}

    stored = Counter(item["url"] for found in crawls.values() for item in found.items)
    assert set(stored.values()) == {1}, "a page was stored twice"
    dropped = Counter(
        line.rsplit(" ", 1)[1]
        for found in crawls.values()
        for line in found.log.splitlines()
        if "Not an article (" in line
    )
    assert set(dropped.values()) == {1} and not stored.keys() & dropped.keys()
    assert stored.keys() | dropped.keys() == served  # nothing lost
    # the plugin's Request.meta key crossed the Redis queue: that page's item passed untouched
    assert next(item for found in crawls.values() for item in found.items if item["url"] == site.url(SKIPPED)) == {
        "url": site.url(SKIPPED),
        "kind": "dict",
    }
    # articles stored with the core's text and probability, exactly the pages the core judges articles
    extracted = served - {site.url(SKIPPED)}
    articles = {url for url in extracted if core_verdict(site, url).is_article}
    assert articles and extracted - articles  # both verdicts occur
    assert stored.keys() - {site.url(SKIPPED)} == articles and dropped.keys() == extracted - articles
    for found in crawls.values():
        for item in found.items:
            if item["url"] in articles:
                expected = core_verdict(site, item["url"])
                assert (item["main_text"], item["article_probability"]) == (expected.text, expected.article_probability)

    def total(stat: str) -> int:
        return sum(found.stat(stat) for found in crawls.values())

    # items in (one per page fetched with status 200) = stored + dropped, over both processes' stats
    assert (
        total("item_scraped_count") + total("item_dropped_count")
        == total("downloader/response_status_count/200")
        == len(served)
    )
    assert total("item_scraped_count") == len(articles) + 1 and total("bodytext/items/untagged") == 1
    assert total("bodytext/pages/articles") == len(articles)
    assert (
        total("bodytext/pages/non_articles")
        == total("item_dropped_reasons_count/NotAnArticle")
        == len(extracted - articles)
    )
    print(
        f"scrapy-redis crawl: crawler a fetched {sum(agent == 'crawler-a' for agent, _ in work.requests)} URLs, "
        f"crawler b {sum(agent == 'crawler-b' for agent, _ in work.requests)}; {len(served)} pages, "
        f"{len(articles)} articles stored once, {len(extracted - articles)} non-articles dropped, 1 skipped"
    )
