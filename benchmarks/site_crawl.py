#!/usr/bin/env python
"""Whole sites crawled for real: what a Scrapy crawl with the add-on stores and drops on each site of a
site corpus, with site memory off, on, on with the pages in a shuffled order, and shared by two crawl
processes through a real redis-server.

    python benchmarks/site_crawl.py CORPUS_DIR [--sites a,b] [--modes off,on,shuffled,redis] [--seed N]
                                    [--concurrency N] [--workers N] [--parallel N] [--output FILE]
                                    [--json FILE] [--keep DIR]

CORPUS_DIR is a site corpus (``index.jsonl`` with ``site``, ``url``, ``is_article``, ``page_type``,
``listing_kind``, ``gold_text`` and ``file``: the format of ``shared/corpus/sites``); nothing here knows
any particular site.

Serving. Each site gets its own HTTP server on 127.0.0.1 (``tests/http_server.py``, a stdlib threaded
server in a thread of this process) on a port of its own, so every site keeps a distinct identity
(host:port) and its own URL paths: a record ``https://example.org/2019/05/post/`` is served at
``http://127.0.0.1:PORT/2019/05/post/``. A page links to its public host (absolute, ``http``, ``https``
or protocol-relative ``//``): at serve time, inside the markup's attribute values (``href="..."``,
``content="..."``: the text of the page is left as it is, so that URLs the article prints still match
its gold text), every origin of the site (with and without ``www.``) is rewritten to the local origin,
and links resolve locally with their paths unchanged (URL shapes are what site memory learns). The
site's origins are the hosts of its records' URLs, and any other host that the links of its start pages
use for at least ``ALIAS_PAGES`` of its pages (a build linking to the host it was deployed on, a copy
linking to the original's pages). A requested path maps to the record of the same path, else to the
record of the same path once percent-encoding is decoded, a trailing ``index.html`` and the trailing
slash dropped (a site that links to ``/blog/post`` reaches the record ``/blog/post/``); any other path
answers 404, and the 404s are counted. Nothing leaves 127.0.0.1: links to other hosts or ports are
never followed.

Crawl. One real Scrapy ``CrawlSpider`` per site and mode, in a process of its own (a
``CrawlerProcess``), with ``ADDONS = {"scrapy_bodytext.Addon": 0}`` and the plugin's defaults
otherwise; it yields one item per page (the URL and the record id) to a JSON Lines feed export, and
the plugin's review feed (``BODYTEXT_REJECTED_FEED``, every judged page with ``BODYTEXT_REVIEW_BAND =
1.0``) lists the pages dropped, so what was stored and what was dropped is read back from the two files. The crawl starts at the site's home page (the record
with ``listing_kind`` ``home``; a site without one starts at its listings with the fewest path segments)
and follows every local link (``Rule(LinkExtractor(allow_domains=["127.0.0.1"]), follow=True)``), links
to a record rewritten to the record's URL so each page is requested once. Breadth first and in page
order (``DEPTH_PRIORITY = 1``, FIFO queues; up to ``--concurrency`` requests at once, so answers may
come back in a slightly different order from run to run: ``--concurrency 1`` makes it exact). When the
crawl runs dry, the pages of the site it never reached are requested after, as a sitemap would list
them, and counted ("after"). Every page must be visited exactly once per run; the tables say how many
were.

Modes (memory off first):

* ``off``: ``BODYTEXT_SITE_MEMORY = False`` (in a build without site memory: the build as it is);
* ``on``: site memory on (the default), the crawl above;
* ``shuffled``: site memory on, every page of the site requested as a start request in a shuffled
  order (``random.Random(f"{seed}/{site}")``), links not followed: the order in which site memory sees
  the pages is the most unlike a crawl from the home page;
* ``redis``: site memory on and shared through a real ``redis-server`` (started here on a free port of
  127.0.0.1 without persistence, stopped after): two crawl processes at once, one requesting the pages at
  the even positions of the shuffled order and the other those at the odd positions, links not
  followed; each site under a Redis key prefix of its own (``BODYTEXT_SITE_MEMORY_REDIS_PREFIX``), so
  that sites stay apart whatever the memory keys on. The tables count the pages whose verdict (stored
  or dropped) differs from the single-process shuffled run.

In a build without site memory (``scrapy_bodytext.plugin.settings.DEFAULTS`` has no
``BODYTEXT_SITE_MEMORY``) the modes other than ``off`` are skipped with a line saying so.

Printed first, memory off beside memory on, row by row: for all sites and each site, and for each kind
of page (articles, non-articles, then the non-articles by page type and, for listings, by listing kind),
one row per mode, memory off first, with the pages, those stored, dropped and without a verdict (the
three add up to the pages) and the pages dropped less those dropped with memory off. Then, per site and
overall, each mode beside the others: articles stored and dropped (and %);
non-articles dropped by page type and, for listings, by listing kind; the shingle F1 of the stored
articles' main text against the gold text (``evaluation/metrics.py``; articles with gold text only) and
the stored articles that lost over half of their text (less than half the gold's shingles, as the
training harness counts them); the crawl, each site's modes in rows side by side: pages visited once,
reached by links, requested after, 404s, pages/s (pages / Scrapy's ``elapsed_time_seconds``, spider open to close; for all sites, pages / the
mode's wall time) and peak RSS (Scrapy's ``memusage/max`` of the crawl process). The date and the
machine line come first.

Speed: extraction runs in each crawl's own process (``--workers 0``, ``BODYTEXT_WORKERS = 0``) and
``--parallel`` crawls run at once (default: the usable CPUs), sites side by side; a worker pool per
crawl would pay its start-up once per site and mode, more than it gains on a few hundred pages. This is
a measurement script, not a test; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

REPO = Path(__file__).resolve().parent.parent
ADDON = {"scrapy_bodytext.Addon": 0}
MODES = ("off", "on", "shuffled", "redis")
MEMORY_SETTING = "BODYTEXT_SITE_MEMORY"
LOCAL_HOST = "127.0.0.1"
#: the verdicts of a page
STORED, DROPPED, LOST = "stored", "dropped", "lost"


# --- the corpus ---------------------------------------------------------------------------------


def read_sites(corpus: Path, chosen: Iterable[str] | None = None) -> dict[str, list[dict]]:
    """Site name -> its index records in id order (only the ``chosen`` sites when given)."""
    rows = [json.loads(line) for line in (corpus / "index.jsonl").read_text(encoding="utf-8").splitlines() if line]
    sites: dict[str, list[dict]] = defaultdict(list)
    for row in sorted(rows, key=lambda row: row["id"]):
        sites[row["site"]].append(row)
    if chosen is not None:
        wanted = list(chosen)
        unknown = sorted(set(wanted) - set(sites))
        if unknown:
            raise SystemExit(f"no such site in {corpus}: {', '.join(unknown)} (sites: {', '.join(sorted(sites))})")
        return {name: sites[name] for name in wanted}
    return dict(sorted(sites.items()))


def page_key(path: str) -> str:
    """A path however a link spells it: percent-encoding decoded, a trailing ``index.html`` and the
    trailing slash dropped."""
    path = unquote(path)
    for index in ("index.html", "index.htm"):
        if path.endswith("/" + index):
            path = path[: -len(index)]
    return path.rstrip("/") or "/"


def url_target(url: str) -> str:
    """The path (and query) of a URL: a record's path on the local server, or what a request names."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


class SitePaths:
    """The pages of one site by path: the exact path first, else its ``page_key``."""

    def __init__(self, pages: Iterable[tuple[str, str]]):  # (record id, path)
        self.exact: dict[str, str] = {}
        self.loose: dict[str, str] = {}
        for page_id, path in pages:
            self.exact.setdefault(path, page_id)
            self.loose.setdefault(page_key(urlsplit(path).path), page_id)

    def find(self, target: str) -> str | None:
        """The record id a requested path (and query) names, or None."""
        return self.exact.get(target) or self.loose.get(page_key(urlsplit(target).path))


def start_rows(rows: list[dict]) -> list[dict]:
    """Where a crawl of the site starts: its home page, else its listings with the fewest path segments."""
    homes = [row for row in rows if row.get("listing_kind") == "home"]
    if homes:
        return homes
    listings = [row for row in rows if row.get("page_type") == "listing"] or rows
    depth = min(page_key(urlsplit(row["url"]).path).count("/") for row in listings)
    return [row for row in listings if page_key(urlsplit(row["url"]).path).count("/") == depth]


def shuffled_rows(rows: list[dict], seed: int, site: str) -> list[dict]:
    order = list(rows)
    random.Random(f"{seed}/{site}").shuffle(order)
    return order


# --- serving a site -----------------------------------------------------------------------------


#: a host other than the records' is another name of the site when the links to it on the site's start
#: pages name at least this many of the site's pages (an old domain or a mirror the build links to)
ALIAS_PAGES = 3
ABSOLUTE_LINK = re.compile(rb"""href\s*=\s*["']?\s*((?:https?:)?//[^\s"'<>]+)""", re.IGNORECASE)


def page_bytes(corpus: Path, row: dict) -> bytes:
    data = (corpus / row["file"]).read_bytes()
    return gzip.decompress(data) if row["file"].endswith(".gz") else data


def site_hosts(corpus: Path, rows: list[dict], paths: SitePaths) -> set[str]:
    """The hosts of the site, lowercased without ``www.``: those of its records' URLs, and any other
    host that the links of its start pages use for at least ``ALIAS_PAGES`` of its pages."""
    hosts = {urlsplit(row["url"]).netloc.lower().removeprefix("www.") for row in rows}
    named: dict[str, set[str]] = defaultdict(set)
    for row in start_rows(rows):
        for link in ABSOLUTE_LINK.findall(page_bytes(corpus, row)):
            parts = urlsplit(link.decode("latin-1"))
            page_id = paths.find(url_target(link.decode("latin-1")))
            if page_id is not None:
                named[parts.netloc.lower().removeprefix("www.")].add(page_id)
    return hosts | {host for host, pages in named.items() if len(pages) >= ALIAS_PAGES}


def origin_pattern(hosts: Iterable[str]) -> re.Pattern[bytes]:
    """The site's origins (each host with and without ``www.``; ``http:``, ``https:`` or
    protocol-relative) at the start of an attribute value."""
    names = {name for host in hosts for name in (host, "www." + host)}
    alternatives = b"|".join(re.escape(name.encode()) for name in sorted(names, key=len, reverse=True))
    return re.compile(rb"""(=\s*["']?\s*)(?:https?:)?//(?:""" + alternatives + rb")(?![\w.:-])", re.IGNORECASE)


class LocalSite:
    """One site served on 127.0.0.1 (a port of its own), started with ``with``; counts the 404s."""

    def __init__(self, corpus: Path, rows: list[dict], on_request: Any = None):
        sys.path.insert(0, str(REPO / "tests"))
        from http_server import SiteServer

        self.corpus = corpus
        self.rows = {row["id"]: row for row in rows}
        self.paths = SitePaths((row["id"], url_target(row["url"])) for row in rows)
        self.hosts = site_hosts(corpus, rows, self.paths)
        self.pattern = origin_pattern(self.hosts)
        self.not_found: Counter[str] = Counter()
        self.server = SiteServer({}, resolve=self.resolve, on_request=on_request)
        self.base_url = self.server.base_url

    def resolve(self, target: str) -> tuple[bytes, str] | None:
        page_id = self.paths.find(target)
        if page_id is None:
            self.not_found[target] += 1
            return None
        row = self.rows[page_id]
        body = page_bytes(self.corpus, row)
        content_type = f"text/html; charset={row['charset']}" if row.get("charset") else "text/html"
        return self.pattern.sub(rb"\g<1>" + self.base_url.encode(), body), content_type

    def __enter__(self) -> LocalSite:
        self.server.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.__exit__(*exc_info)


# --- the spider (runs in the crawl's process) ---------------------------------------------------


class SiteCrawlSpider(CrawlSpider):
    """Crawls one local site from its start pages following its links (or requests the given pages
    without following, ``follow`` false); one item per page: its URL and record id. Pages never reached
    are requested once the crawl runs dry."""

    name = "site_crawl"
    allowed_domains = [LOCAL_HOST]

    def __init__(self, spec: str, *args: Any, **kwargs: Any):
        config = json.loads(Path(spec).read_text(encoding="utf-8"))
        self.base_url: str = config["base_url"]
        self.local = urlsplit(self.base_url).netloc
        self.pages: list[tuple[str, str]] = [tuple(page) for page in config["pages"]]  # (id, path)
        self.paths = SitePaths(self.pages)
        self.path_of = dict(self.pages)
        self.start_paths: list[str] = config["start"]
        self.follow: bool = config["follow"]
        self.items_per_page: int = config.get("items", 1)  # items yielded per page (copies numbered)
        self.visits_file = Path(config["visits_file"])
        self.visits: Counter[str] = Counter()
        self.late: list[str] = []
        self.late_done = False
        self.unknown = 0
        if self.follow:
            extractor = LinkExtractor(allow_domains=[self.local])  # host:port: this site only
            self.rules = (Rule(extractor, callback="page_item", follow=True, process_links="local_links"),)
        super().__init__(*args, **kwargs)

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SiteCrawlSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.request_unreached, signal=signals.spider_idle)
        return spider

    async def start(self):  # noqa: ANN201 - Scrapy's start() is an async generator of requests
        for path in self.start_paths:
            yield scrapy.Request(self.base_url + path, callback=None if self.follow else self.page_item)

    def parse_start_url(self, response: scrapy.http.Response) -> list[dict]:
        return self.page_item(response)

    def local_links(self, links: list) -> list:
        """The links, a link to a record spelled as the record's URL (so each page is requested once)."""
        for link in links:
            page_id = self.paths.find(url_target(link.url))
            if page_id is not None:
                link.url = self.record_url(page_id)
        return links

    def record_url(self, page_id: str) -> str:
        return self.base_url + self.path_of[page_id]

    def page_item(self, response: scrapy.http.Response) -> list[dict]:
        page_id = self.paths.find(url_target(response.url))
        if page_id is None:
            self.unknown += 1
            return []
        self.visits[page_id] += 1
        if self.items_per_page == 1:
            return [{"url": response.url, "id": page_id}]
        return [{"url": response.url, "id": page_id, "copy": copy} for copy in range(self.items_per_page)]

    def request_unreached(self) -> None:
        """Once, when the crawl runs dry: request the pages it never reached (as a sitemap lists them)."""
        if self.late_done:
            return
        self.late_done = True
        self.late = [page_id for page_id, _ in self.pages if not self.visits[page_id]]
        for page_id in self.late:
            request = scrapy.Request(self.record_url(page_id), callback=self.page_item, dont_filter=True)
            self.crawler.engine.crawl(request)
        if self.late:
            raise DontCloseSpider

    def closed(self, reason: str) -> None:
        record = {"visits": dict(self.visits), "late": self.late, "unknown": self.unknown, "reason": reason}
        self.visits_file.write_text(json.dumps(record), encoding="utf-8")


def run_crawl_process(spec_path: str, spider: type = SiteCrawlSpider) -> None:
    """The crawl's process: one CrawlerProcess, its stats written to a file after."""
    from scrapy.crawler import CrawlerProcess

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    process = CrawlerProcess(spec["settings"])
    crawler = process.create_crawler(spider)
    process.crawl(crawler, spec=spec_path)
    process.start()
    Path(spec["stats_file"]).write_text(json.dumps(crawler.stats.get_stats(), default=str), encoding="utf-8")


# --- running the crawls (this process) ----------------------------------------------------------


def memory_available() -> bool:
    """Whether this build has site memory (its setting is among the plugin's defaults)."""
    from scrapy_bodytext.plugin.settings import DEFAULTS

    return MEMORY_SETTING in DEFAULTS


def crawl_settings(folder: Path, concurrency: int, workers: str, extra: dict[str, Any]) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "ADDONS": ADDON,
        "FEEDS": {str(folder / "items.jsonl"): {"format": "jsonlines", "encoding": "utf8", "overwrite": True}},
        "BODYTEXT_REJECTED_FEED": {str(folder / "review.jsonl"): {"format": "jsonlines", "overwrite": True}},
        "BODYTEXT_REVIEW_BAND": 1.0,  # every judged page in the review feed, the dropped ones among them
        "LOG_FILE": str(folder / "crawl.log"),
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "MEMUSAGE_CHECK_INTERVAL_SECONDS": 0.5,
        **extra,
    }
    if workers != "default":
        settings["BODYTEXT_WORKERS"] = workers
    return settings


def start_crawl(
    folder: Path,
    site: LocalSite,
    rows: list[dict],
    start: list[dict],
    follow: bool,
    settings: dict[str, Any],
    items: int = 1,
    script: Path | None = None,
) -> subprocess.Popen:
    """One crawl process over ``rows`` of a served site, starting at ``start``; ``items`` per page;
    ``script``: the benchmark whose ``--crawl`` runs it (this one by default)."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = {
        "base_url": site.base_url,
        "pages": [[row["id"], url_target(row["url"])] for row in rows],
        "start": [url_target(row["url"]) for row in start],
        "follow": follow,
        "items": items,
        "visits_file": str(folder / "visits.json"),
        "stats_file": str(folder / "stats.json"),
        "settings": settings,
    }
    (folder / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
    command = [sys.executable, str(script or Path(__file__).resolve()), "--crawl", str(folder / "spec.json")]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish_crawl(folder: Path, process: subprocess.Popen) -> dict[str, Any]:
    """What one crawl left: its verdicts per page, visits, stats; an error if it did not finish."""
    output, _ = process.communicate()
    stats_file, visits_file = folder / "stats.json", folder / "visits.json"
    if process.returncode != 0 or not stats_file.exists() or not visits_file.exists():
        log = (
            (folder / "crawl.log").read_text(encoding="utf-8", errors="replace")
            if (folder / "crawl.log").exists()
            else ""
        )
        raise RuntimeError(f"crawl in {folder} failed ({process.returncode}):\n{output[-2000:]}\n{log[-3000:]}")
    stats = json.loads(stats_file.read_text(encoding="utf-8"))
    visits = json.loads(visits_file.read_text(encoding="utf-8"))
    return {
        "stats": stats,
        "visits": visits,
        "items": read_jsonl(folder / "items.jsonl"),
        "review": read_jsonl(folder / "review.jsonl"),
    }


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class RedisServer:
    """A redis-server of its own on a free port of 127.0.0.1, no persistence; stopped on exit."""

    def __init__(self, folder: Path):
        import redis

        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("no redis-server on PATH")
        sys.path.insert(0, str(REPO / "tests"))
        from redis_server import free_port, redis_server_command

        port = free_port()
        command = redis_server_command(binary, port, folder)
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"redis://{LOCAL_HOST}:{port}/0"
        client = redis.Redis(host=LOCAL_HOST, port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        client.close()

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.process.terminate()
        self.process.wait(10)


def mode_settings(mode: str, memory: bool, redis_url: str | None, site: str) -> dict[str, Any]:
    if mode == "off":
        return {MEMORY_SETTING: False} if memory else {}
    settings: dict[str, Any] = {MEMORY_SETTING: True}
    if mode == "redis":
        settings["BODYTEXT_SITE_MEMORY_REDIS_URL"] = redis_url
        settings["BODYTEXT_SITE_MEMORY_REDIS_PREFIX"] = f"bodytext:sites:{site}"
    return settings


def crawl_site(
    mode: str,
    name: str,
    rows: list[dict],
    folder: Path,
    options: argparse.Namespace,
    memory: bool,
    redis: RedisServer | None,
) -> dict[str, Any]:
    """Crawl one site in one mode (two processes at once for ``redis``); the merged outcome."""
    settings = mode_settings(mode, memory, redis.url if redis else None, name)
    order = shuffled_rows(rows, options.seed, name)
    if mode in ("off", "on"):
        plans = [(rows, start_rows(rows), True)]
    elif mode == "shuffled":
        plans = [(order, order, False)]
    else:
        plans = [(order[part::2], order[part::2], False) for part in (0, 1)]
    with LocalSite(options.corpus, rows) as site:
        started = time.perf_counter()
        running = []
        for number, (pages, start, follow) in enumerate(plans):
            part = folder / f"{mode}-{name}-{number}"
            part_settings = crawl_settings(part, options.concurrency, options.workers, settings)
            running.append((part, start_crawl(part, site, pages, start, follow, part_settings)))
        crawls = [finish_crawl(part, process) for part, process in running]
        wall = time.perf_counter() - started
        not_found = sum(site.not_found.values())
    return merge_crawls(crawls, site.paths, wall, not_found)


def merge_crawls(crawls: list[dict], paths: SitePaths, wall: float, not_found: int) -> dict[str, Any]:
    """One site's outcome in one mode: the verdict of every page, and the crawl's figures."""
    verdicts: dict[str, dict[str, Any]] = {}
    visits: Counter[str] = Counter()
    late: list[str] = []
    unknown = 0
    for crawl in crawls:
        visits.update(crawl["visits"]["visits"])
        late += crawl["visits"]["late"]
        unknown += crawl["visits"]["unknown"]
        for record in crawl["review"]:
            if record["outcome"] == DROPPED:
                page_id = paths.find(url_target(record["url"])) or record["url"]
                verdicts[page_id] = {
                    "verdict": DROPPED,
                    "reason": record["reason"],
                    "page_type": record["page_type"],
                    "article_probability": record["article_probability"],
                }
        for item in crawl["items"]:
            verdicts[item["id"]] = {
                "verdict": STORED,
                "main_text": item.get("main_text") or "",
                "article_probability": item.get("article_probability"),
                "page_type": item.get("page_type"),
            }
    seconds = sum(float(crawl["stats"].get("elapsed_time_seconds", 0.0)) for crawl in crawls)
    return {
        "verdicts": verdicts,
        "visits": dict(visits),
        "late": late,
        "unknown": unknown,
        "not_found": not_found,
        "elapsed": max(float(crawl["stats"].get("elapsed_time_seconds", 0.0)) for crawl in crawls),
        "busy_seconds": seconds,
        "wall": wall,
        "peak_rss_mb": sum(float(crawl["stats"].get("memusage/max", 0)) for crawl in crawls) / 2**20,
        "stats": [crawl["stats"] for crawl in crawls],
    }


# --- figures ------------------------------------------------------------------------------------


def kind_of(row: dict) -> str:
    """A non-article's row in the by-type table: its page type, a listing with its kind."""
    if row.get("page_type") == "listing":
        return f"listing: {row.get('listing_kind') or 'unknown'}"
    return str(row.get("page_type") or "unknown")


def site_figures(rows: list[dict], outcome: dict[str, Any]) -> dict[str, Any]:
    """What one crawl of a site stored and dropped, against the labels, and how it crawled."""
    from scrapy_bodytext.evaluation.metrics import shingle_match
    from scrapy_bodytext.training.crossval import RECALL_FAILURE

    verdicts = outcome["verdicts"]

    def verdict(row: dict) -> str:
        return verdicts.get(row["id"], {}).get("verdict", LOST)

    articles = [row for row in rows if row["is_article"]]
    others = [row for row in rows if not row["is_article"]]
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # kind -> [pages, stored, dropped]
    for row in others:
        kinds[kind_of(row)][0] += 1
        kinds[kind_of(row)][1] += verdict(row) == STORED
        kinds[kind_of(row)][2] += verdict(row) == DROPPED
    matches = [
        shingle_match(verdicts[row["id"]]["main_text"], row["gold_text"])
        for row in articles
        if row.get("gold_text") and verdict(row) == STORED
    ]
    visits = outcome["visits"]
    return {
        "pages": len(rows),
        "articles": len(articles),
        "articles_stored": sum(verdict(row) == STORED for row in articles),
        "articles_dropped": sum(verdict(row) == DROPPED for row in articles),
        "non_articles": len(others),
        "non_articles_stored": sum(verdict(row) == STORED for row in others),
        "non_articles_dropped": sum(verdict(row) == DROPPED for row in others),
        "lost": sum(verdict(row) == LOST for row in rows),
        "kinds": {
            kind: {"pages": pages, "stored": stored, "dropped": dropped}
            for kind, (pages, stored, dropped) in sorted(kinds.items())
        },
        "matches": matches,
        "text_lost": sum(match.recall is not None and match.recall < RECALL_FAILURE for match in matches),
        "visited_once": sum(visits.get(row["id"], 0) == 1 for row in rows),
        "not_visited": sum(not visits.get(row["id"], 0) for row in rows),
        "visited_again": sum(visits.get(row["id"], 0) > 1 for row in rows),
        "requested_after": len(outcome["late"]),
        "not_found": outcome["not_found"],
        "elapsed": outcome["elapsed"],
        "wall": outcome["wall"],
        "peak_rss_mb": outcome["peak_rss_mb"],
    }


def total_figures(per_site: list[dict[str, Any]]) -> dict[str, Any]:
    """Every site's figures summed (the shingle matches pooled, the peak the largest)."""
    total: dict[str, Any] = {"kinds": defaultdict(lambda: {"pages": 0, "stored": 0, "dropped": 0}), "matches": []}
    for figures in per_site:
        for name, value in figures.items():
            if name == "kinds":
                for kind, counts in value.items():
                    for count in ("pages", "stored", "dropped"):
                        total["kinds"][kind][count] += counts[count]
            elif name == "matches":
                total["matches"] += value
            elif name == "peak_rss_mb":
                total[name] = max(total.get(name, 0.0), value)
            else:
                total[name] = total.get(name, 0) + value
    total["kinds"] = dict(sorted(total["kinds"].items()))
    return total


def text_f1(figures: dict[str, Any]) -> float | None:
    from scrapy_bodytext.evaluation.metrics import shingle_prf

    return shingle_prf(figures["matches"])[2] if figures["matches"] else None


def differing(first: dict[str, Any], second: dict[str, Any]) -> int:
    """Pages whose verdict (stored, dropped, lost) differs between two crawls of a site."""
    ids = set(first["verdicts"]) | set(second["verdicts"])

    def verdict(outcome: dict[str, Any], page_id: str) -> str:
        return outcome["verdicts"].get(page_id, {}).get("verdict", LOST)

    return sum(verdict(first, page_id) != verdict(second, page_id) for page_id in ids)


# --- the report ---------------------------------------------------------------------------------


def share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.1f} %)" if whole else "-"


OFF_BESIDE_ON_HEADERS = ["site", "pages of", "pages", "mode", "stored", "dropped", "no verdict", "vs off"]


def page_kinds(one: dict[str, Any]) -> dict[str, dict[str, int]]:
    """A site's (or all sites') pages counted by kind: articles, non-articles, then the non-articles by
    page type and listing kind; each kind's pages, stored and dropped."""
    found = {
        "articles": {"pages": one["articles"], "stored": one["articles_stored"], "dropped": one["articles_dropped"]},
        "non-articles": {
            "pages": one["non_articles"],
            "stored": one["non_articles_stored"],
            "dropped": one["non_articles_dropped"],
        },
    }
    return found | {kind: dict(counts) for kind, counts in one["kinds"].items()}


def off_beside_on_rows(figures: dict[str, dict[str, Any]], modes: list[str], names: list[str]) -> list[list[str]]:
    """For each site and kind of page, one row per mode (memory off first, as the modes run): pages,
    stored, dropped, no verdict and the change in pages dropped from memory off."""
    rows = []
    for name in names:
        kinds = {mode: page_kinds(figures[mode][name]) for mode in modes}
        for kind, first in kinds[modes[0]].items():
            off = kinds["off"][kind]["dropped"] if "off" in kinds else None
            for mode in modes:
                counts = kinds[mode][kind]
                lost = counts["pages"] - counts["stored"] - counts["dropped"]
                change = "" if mode == "off" else "-" if off is None else f"{counts['dropped'] - off:+d}"
                rows.append(
                    [
                        name,
                        kind,
                        str(first["pages"]),
                        mode,
                        str(counts["stored"]),
                        share(counts["dropped"], counts["pages"]),
                        str(lost),
                        change,
                    ]
                )
    return rows


def report(results: dict[str, dict[str, Any]], sites: dict[str, list[dict]], header: list[str]) -> str:
    """The Markdown tables: each mode beside the others, per site and for all sites."""
    from scrapy_bodytext.evaluation.report import fmt, markdown_table

    modes = list(results)
    names = [*sites, "all"]
    figures = {mode: {**results[mode]["figures"], "all": results[mode]["total"]} for mode in modes}
    out = [*header, ""]

    out += ["## Memory off beside memory on", ""]
    out += [
        "per site (all sites first) and per kind of page (articles, non-articles, and the non-articles by page "
        "type and listing kind), one row per mode, memory off first; stored + dropped + no verdict = pages; "
        "vs off: pages dropped less those dropped with memory off",
        "",
    ]
    out += [markdown_table(OFF_BESIDE_ON_HEADERS, off_beside_on_rows(figures, modes, ["all", *sites]))]
    out += ["", "## Articles stored and dropped", ""]
    rows = []
    for name in names:
        first = figures[modes[0]][name]
        cells = [name, str(first["articles"])]
        for mode in modes:
            one = figures[mode][name]
            cells += [str(one["articles_stored"]), share(one["articles_dropped"], one["articles"])]
        rows.append(cells)
    out += [markdown_table(["site", "articles", *[f"{m}: {c}" for m in modes for c in ("stored", "dropped")]], rows)]

    out += ["", "## Non-articles dropped", ""]
    rows = [
        [name, str(figures[modes[0]][name]["non_articles"])]
        + [share(figures[mode][name]["non_articles_dropped"], figures[mode][name]["non_articles"]) for mode in modes]
        for name in names
    ]
    out += [markdown_table(["site", "non-articles", *[f"{mode}: dropped" for mode in modes]], rows)]

    out += ["", "## Non-articles dropped by page type and listing kind", ""]
    rows = []
    for name in ["all", *sites]:
        for kind, counts in figures[modes[0]][name]["kinds"].items():
            rows.append(
                [name, kind, str(counts["pages"])]
                + [share(figures[mode][name]["kinds"][kind]["dropped"], counts["pages"]) for mode in modes]
            )
    out += [markdown_table(["site", "page type", "pages", *[f"{mode}: dropped" for mode in modes]], rows)]

    out += ["", "## Stored articles' text against the gold", ""]
    out += [
        "shingle F1 over the stored articles that have gold text (their number in brackets); lost: of them, "
        "those whose text holds less than half of the gold's shingles",
        "",
    ]
    rows = []
    for name in names:
        cells = [name]
        for mode in modes:
            one = figures[mode][name]
            cells += [f"{fmt(text_f1(one))} ({len(one['matches'])})", str(one["text_lost"])]
        rows.append(cells)
    out += [markdown_table(["site", *[f"{m}: {c}" for m in modes for c in ("F1", "lost")]], rows)]

    out += ["", "## The crawls", ""]
    rows = []
    for name in names:
        for mode in modes:
            one = figures[mode][name]
            reached = one["visited_once"] + one["visited_again"] - one["requested_after"]
            rows.append(
                [
                    name,
                    mode,
                    str(one["pages"]),
                    str(one["visited_once"]),
                    str(one["visited_again"]),
                    str(one["not_visited"]),
                    str(reached),
                    str(one["requested_after"]),
                    str(one["not_found"]),
                    str(one["lost"]),
                    f"{one['elapsed']:.1f}",
                    f"{one['pages'] / one['elapsed']:.1f}" if one["elapsed"] else "-",
                    f"{one['peak_rss_mb']:.0f}",
                ]
            )
    headers = [
        "site",
        "mode",
        "pages",
        "visited once",
        "visited again",
        "not visited",
        "reached",
        "after",
        "404s",
        "no verdict",
        "seconds",
        "pages/s",
        "peak RSS MB",
    ]
    out += [markdown_table(headers, rows)]
    for mode in modes:
        if "differs" in results[mode]:
            out += [
                "",
                f"pages whose verdict differs from the single-process {results[mode]['compared_with']} run: "
                + ", ".join(f"{name} {count}" for name, count in results[mode]["differs"].items()),
            ]
    out += [
        "",
        "reached: pages reached by links from the start pages (or requested as start requests); after: "
        "pages requested once the crawl ran dry (as a sitemap lists them); seconds: spider open to close "
        "(for redis, the longer of the two processes; for all sites, the mode's wall time, sites crawled "
        "at once); peak RSS: Scrapy's memusage/max of the crawl process (for redis, both processes summed; "
        "for all sites, the largest)",
    ]
    return "\n".join(out) + "\n"


# --- the command ----------------------------------------------------------------------------------


def default_parallel() -> int:
    from scrapy_bodytext.workers.cpus import usable_cpus

    return max(1, usable_cpus().count)


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, metavar="CORPUS_DIR", help="a site corpus (index.jsonl + pages)")
    parser.add_argument("--sites", help="comma-separated sites to crawl (default: every site)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument("--seed", type=int, default=1, help="the shuffled order's seed")
    parser.add_argument("--concurrency", type=int, default=8, help="CONCURRENT_REQUESTS of each crawl")
    parser.add_argument(
        "--workers", default="0", help="BODYTEXT_WORKERS of each crawl (default 0: extraction in the crawl's process)"
    )
    parser.add_argument(
        "--parallel", type=int, default=default_parallel(), help="crawl processes at once (default: usable CPUs)"
    )
    parser.add_argument("--output", type=Path, help="also write the tables to this Markdown file")
    parser.add_argument("--json", type=Path, help="also write the figures and every page's verdict here")
    parser.add_argument("--keep", type=Path, help="keep each crawl's feeds, stats and log in this folder")
    options = parser.parse_args(argv)
    options.modes = [mode.strip() for mode in options.modes.split(",") if mode.strip()]
    unknown = sorted(set(options.modes) - set(MODES))
    if unknown or not options.modes:
        parser.error(f"--modes: expected some of {', '.join(MODES)}, got {', '.join(unknown) or 'none'}")
    options.modes = [mode for mode in MODES if mode in options.modes]
    if options.concurrency < 1 or options.parallel < 1:
        parser.error("--concurrency and --parallel must be at least 1")
    return options


def run_mode(
    mode: str, options: argparse.Namespace, sites: dict[str, list[dict]], folder: Path, memory: bool
) -> dict[str, Any]:
    """Every site crawled in one mode, ``--parallel`` crawl processes at once: the outcome and the
    figures per site, and for all sites."""
    from concurrent.futures import ThreadPoolExecutor

    outcomes, figures = {}, {}
    redis = RedisServer(folder) if mode == "redis" else None
    at_once = max(1, options.parallel // 2) if redis else options.parallel  # redis: two processes a site
    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(at_once) as pool:
            running = {
                name: pool.submit(crawl_site, mode, name, rows, folder, options, memory, redis)
                for name, rows in sites.items()
            }
            for name, future in running.items():
                outcomes[name] = future.result()
                figures[name] = one = site_figures(sites[name], outcomes[name])
                print(
                    f"{mode} {name}: {one['pages']} pages, {one['articles_dropped']} of {one['articles']} articles "
                    f"and {one['non_articles_dropped']} of {one['non_articles']} non-articles dropped, "
                    f"{one['elapsed']:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        if redis is not None:
            redis.__exit__()
    total = total_figures(list(figures.values()))
    total["elapsed"] = time.perf_counter() - started  # the sites crawled at once: the mode's wall time
    return {"outcomes": outcomes, "figures": figures, "total": total, "seconds": total["elapsed"]}


def main(argv: list[str] | None = None) -> int:
    from datetime import UTC, datetime

    from scrapy_bodytext.evaluation.report import machine_description

    options = parse_arguments(argv)
    sites = read_sites(options.corpus, options.sites.split(",") if options.sites else None)
    memory = memory_available()
    modes = options.modes if memory else [mode for mode in options.modes if mode == "off"]
    machine = machine_description()
    header = [
        f"# Whole sites crawled: {options.corpus}",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {machine['summary']}",
        "",
        f"{len(sites)} sites, {sum(map(len, sites.values()))} pages; modes {', '.join(modes)}; seed {options.seed}; "
        f"concurrency {options.concurrency}; BODYTEXT_WORKERS {options.workers}; {options.parallel} crawl processes at once",
    ]
    skipped = [mode for mode in options.modes if mode not in modes]
    if skipped:
        header += ["", f"site memory not available in this build: {', '.join(skipped)} skipped"]
        print(header[-1], file=sys.stderr, flush=True)
    results: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="site-crawl-") as temporary:
        folder = options.keep or Path(temporary)
        for mode in modes:
            results[mode] = run_mode(mode, options, sites, folder, memory)
    if "redis" in results:
        compared = "shuffled" if "shuffled" in results else "on" if "on" in results else None
        if compared is not None:
            results["redis"]["compared_with"] = compared
            results["redis"]["differs"] = {
                name: differing(results["redis"]["outcomes"][name], results[compared]["outcomes"][name])
                for name in sites
            }
    header += [
        "",
        "wall time per mode: "
        + ", ".join(f"{m} {r['seconds']:.0f} s" for m, r in results.items())
        + f"; all {time.perf_counter() - started:.0f} s",
    ]
    text = report(results, sites, header)
    print(text, end="")
    if options.output:
        options.output.write_text(text, encoding="utf-8")
    if options.json:
        options.json.write_text(json.dumps(json_record(results, machine, options, skipped), indent=1), encoding="utf-8")
    return 0


def json_record(
    results: dict[str, dict[str, Any]], machine: dict[str, Any], options: argparse.Namespace, skipped: list[str]
) -> dict[str, Any]:
    """The figures (shingle F1 in place of the matches) and every page's verdict, per mode and site."""

    def plain(figures: dict[str, Any]) -> dict[str, Any]:
        kept = {name: value for name, value in figures.items() if name != "matches"}
        return {**kept, "text_f1": text_f1(figures), "articles_with_gold_stored": len(figures["matches"])}

    record: dict[str, Any] = {
        "machine": machine,
        "corpus": str(options.corpus),
        "seed": options.seed,
        "concurrency": options.concurrency,
        "workers": options.workers,
        "skipped": skipped,
        "modes": {},
    }
    for mode, result in results.items():
        record["modes"][mode] = {
            "seconds": result["seconds"],
            "total": plain(result["total"]),
            "sites": {name: plain(figures) for name, figures in result["figures"].items()},
            "differs": result.get("differs"),
            "verdicts": {
                name: {
                    page_id: {key: value for key, value in verdict.items() if key != "main_text"}
                    for page_id, verdict in outcome["verdicts"].items()
                }
                for name, outcome in result["outcomes"].items()
            },
            "visits": {name: outcome["visits"] for name, outcome in result["outcomes"].items()},
            "requested_after": {name: outcome["late"] for name, outcome in result["outcomes"].items()},
        }
    return record


if __name__ == "__main__":
    if sys.argv[1:2] == ["--crawl"]:
        run_crawl_process(sys.argv[2])
        sys.exit(0)
    sys.exit(main())
