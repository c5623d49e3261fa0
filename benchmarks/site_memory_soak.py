#!/usr/bin/env python
"""A crawl of a generated blog of 20,000 pages with the site memory and waiting on: it finishes
without stalling, with memory and waiting within their bounds.

    python benchmarks/site_memory_soak.py [--pages 20000] [--wait-pages 16] [--wait-seconds 30]
                                          [--concurrency 16] [--redis-url URL]

The blog (``tests/blog_site.py``: posts under dated URLs, tag, date and page-number listings showing
excerpts or whole posts, service pages) is served by an HTTP server on 127.0.0.1 in this process; a
real Scrapy crawl with the add-on follows its links from the home page in a process of its own
(``tests/crawl_runner.py``, extraction in one thread of it: ``BODYTEXT_WORKERS = 0``). Printed: pages
per second, the crawl process's peak resident memory (VmHWM), the most pages that waited at once,
the memory's size, every ``bodytext/sites/`` stat, and whether every item was stored or dropped. This
is a measurement script, not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from blog_site import blog  # noqa: E402 - the tests' helpers, found above
from crawl_runner import ADDON, run_crawl  # noqa: E402
from http_server import SiteServer  # noqa: E402

from scrapy_bodytext.evaluation.report import machine_description  # noqa: E402

#: pages of the blog per post, about (posts and their tag, date and page-number listings)
PAGES_PER_POST = 3.5


def blog_of(pages: int) -> tuple[dict, dict]:
    """The smallest generated blog of at least ``pages`` pages (posts grown 2 % at a time)."""
    posts = int(pages / PAGES_PER_POST)
    while True:
        served, kinds = blog(posts)
        if len(served) >= pages:
            return served, kinds
        posts = int(posts * 1.02) + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--wait-pages", type=int, default=16)
    parser.add_argument("--wait-seconds", type=float, default=30.0)
    parser.add_argument("--concurrency", type=int, default=16, help="CONCURRENT_REQUESTS")
    parser.add_argument("--redis-url", default=None, help="keep the site memory in this Redis")
    options = parser.parse_args()

    machine = machine_description()
    print(f"# Site memory soak, {machine['date']}\n")
    print(f"machine: {machine['summary']}\n")
    started = time.perf_counter()
    served, kinds = blog_of(options.pages)
    print(f"blog: {len(served)} pages {dict(Counter(kinds.values()))}, built in {time.perf_counter() - started:.1f} s")
    settings = {
        "ADDONS": ADDON,
        "BODYTEXT_WORKERS": 0,
        "CONCURRENT_REQUESTS": options.concurrency,
        "BODYTEXT_SITE_WAIT_PAGES": options.wait_pages,
        "BODYTEXT_SITE_WAIT_SECONDS": options.wait_seconds,
        "BODYTEXT_SITE_MEMORY_REDIS_URL": options.redis_url,
        "LOG_LEVEL": "WARNING",
    }
    print(f"settings: {json.dumps({k: v for k, v in settings.items() if k != 'ADDONS'})}\n")
    with SiteServer(served) as server, tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        crawl = run_crawl(
            Path(folder), "crawl_spiders.MeasuredSpider", settings, timeout=4 * 3600, start=server.url("/")
        )
        seconds = time.perf_counter() - started
    if crawl.returncode != 0:
        print(crawl.log[-3000:])
        raise SystemExit(f"the crawl failed (exit status {crawl.returncode})")
    responses = crawl.stat("response_received_count")
    stored_kinds = Counter(kinds[urlsplit(item["url"]).path] for item in crawl.items)
    print("| figure | value |\n|---|---|")
    rows = {
        "pages crawled": responses,
        "wall time (s)": f"{seconds:.1f}",
        "pages/s": f"{responses / seconds:.1f}",
        "peak memory of the crawl process (VmHWM, MB)": crawl.stat("process/peak_rss_mb"),
        "most pages waiting at once": crawl.stat("bodytext/sites/waiting_max"),
        "sites in the memory at the end": crawl.stat("bodytext/sites/sites_remembered"),
        "items stored": crawl.stored,
        "items dropped": crawl.dropped,
        "items in = stored + dropped": crawl.stored + crawl.dropped == responses,
        "finish reason": crawl.stats.get("finish_reason"),
    }
    for name, value in rows.items():
        print(f"| {name} | {value} |")
    print("\nstored by kind of page:", dict(sorted(stored_kinds.items())))
    print("\n| stat | value |\n|---|---|")
    for name, value in sorted(crawl.stats_under("bodytext/sites/").items()):
        print(f"| `{name}` | {value} |")


if __name__ == "__main__":
    main()
