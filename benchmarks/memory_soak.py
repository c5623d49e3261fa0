#!/usr/bin/env python
"""Peak memory over a long run: flat, not growing with the number of pages.

    python benchmarks/memory_soak.py [DIR] [--pages 20000] [--every 1000] [--part extract|crawl|both]
                                     [--extractor NAME]

DIR defaults to ../shared/corpus/dev next to the checkout; its pages are cycled up to ``--pages``.

* ``extract``: ``extract()`` in a loop in this process, printing the resident set size (VmRSS) and
  its peak so far (VmHWM) every ``--every`` pages.
* ``crawl``: a real Scrapy crawl with the add-on (default settings, a JSON Lines feed in a temporary
  folder) of ``--pages`` URLs served by an HTTP server on 127.0.0.1 in this process, each URL one of
  the corpus pages; the crawl runs in its own process, whose spider prints the same figures every
  ``--every`` responses. (Scrapy's MEMUSAGE stats read ``ru_maxrss``, which Linux carries over from
  the launching process, so /proc figures are used instead.)

Each part ends with one line: start, max and end RSS in MB. This is a measurement script, not a test.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "dev"


def memory() -> tuple[int, int]:
    """(VmRSS, VmHWM) of this process in MB, read from /proc/self/status."""
    found = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                name, value = line.split(":", 1)
                found[name] = int(value.split()[0]) // 1024
    return found["VmRSS"], found["VmHWM"]


class Tracker:
    """Prints RSS every ``every`` pages and keeps start, max and end figures."""

    def __init__(self, label: str, every: int):
        self.label, self.every = label, every
        self.start = self.max = self.end = memory()[0]
        self.started = time.perf_counter()
        print(f"{label}: page 0 rss {self.start} MB", flush=True)

    def page(self, count: int) -> None:
        if count % self.every:
            return
        rss, hwm = memory()
        self.max, self.end = max(self.max, rss), rss
        elapsed = time.perf_counter() - self.started
        print(f"{self.label}: page {count} rss {rss} MB peak {hwm} MB ({elapsed:.0f} s)", flush=True)

    def summary(self) -> None:
        print(
            f"{self.label}: start {self.start} MB, max {self.max} MB, end {self.end} MB (peak VmHWM {memory()[1]} MB)",
            flush=True,
        )


def corpus_bodies(folder: Path) -> list[bytes]:
    bodies = []
    with open(folder / "index.jsonl", encoding="utf-8") as index:
        for line in index:
            if line.strip():
                path = folder / json.loads(line)["file"]
                data = path.read_bytes()
                bodies.append(gzip.decompress(data) if path.suffix == ".gz" else data)
    return bodies


def cycled(bodies: list[bytes], pages: int) -> Iterator[bytes]:
    for number in range(pages):
        yield bodies[number % len(bodies)]


def soak_extract(bodies: list[bytes], pages: int, every: int, extractor: str | None) -> None:
    from scrapy_bodytext import extract

    tracker = Tracker("extract", every)
    reasons: dict[str, int] = {}
    for count, body in enumerate(cycled(bodies, pages), 1):
        reason = extract(body, extractor=extractor).reason.value
        reasons[reason] = reasons.get(reason, 0) + 1
        tracker.page(count)
    tracker.summary()
    print(f"extract: reasons {json.dumps(reasons, sort_keys=True)}", flush=True)


# ----------------------------------------------------------------------------- the crawl
def soak_crawl(bodies: list[bytes], pages: int, every: int, extractor: str | None) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from http_server import SiteServer  # the crawl tests' server: stdlib, 127.0.0.1, port 0

    served = {f"/page/{number}": (body, "text/html") for number, body in enumerate(bodies)}
    with SiteServer(served) as server, tempfile.TemporaryDirectory() as folder:
        settings = {
            "ADDONS": {"scrapy_bodytext.Addon": 0},
            "FEEDS": {str(Path(folder) / "items.jsonl"): {"format": "jsonlines", "encoding": "utf8"}},
            "LOG_LEVEL": "WARNING",
            "TELNETCONSOLE_ENABLED": False,
            "ROBOTSTXT_OBEY": False,
            **({"BODYTEXT_EXTRACTOR": extractor} if extractor else {}),
        }
        spec = {
            "base": server.url("/page/"),
            "count": len(bodies),
            "pages": pages,
            "every": every,
            "settings": settings,
            "stats": str(Path(folder) / "stats.json"),
        }
        spec_path = Path(folder) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        child = subprocess.run([sys.executable, __file__, "--crawl-child", str(spec_path)], cwd=REPO)
        stats = json.loads(Path(spec["stats"]).read_text()) if Path(spec["stats"]).exists() else {}
    if child.returncode:
        raise SystemExit(f"the crawl process failed (exit {child.returncode})")
    print(
        f"crawl: responses {stats.get('response_received_count')}, items stored "
        f"{stats.get('item_scraped_count', 0)}, dropped {stats.get('item_dropped_count', 0)}, "
        f"finish reason {stats.get('finish_reason')}",
        flush=True,
    )


def crawl_child(spec_path: str) -> None:
    """Runs in the crawl's own process: a spider requesting every page and reporting RSS."""
    import scrapy
    from scrapy.crawler import CrawlerProcess

    spec = json.loads(Path(spec_path).read_text())

    class SoakSpider(scrapy.Spider):
        name = "soak"
        custom_settings = {"CONCURRENT_REQUESTS": 16}

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.tracker = Tracker("crawl", spec["every"])
            self.responses = 0

        async def start(self):
            for number in range(spec["pages"]):
                # a fresh URL per request (no duplicate filtering), cycling over the served pages
                yield scrapy.Request(f"{spec['base']}{number % spec['count']}?n={number}")

        def parse(self, response):
            self.responses += 1
            self.tracker.page(self.responses)
            yield {"url": response.url}

        def closed(self, reason):
            self.tracker.summary()

    process = CrawlerProcess(spec["settings"])
    crawler = process.create_crawler(SoakSpider)
    process.crawl(crawler)
    process.start()
    Path(spec["stats"]).write_text(json.dumps(crawler.stats.get_stats(), default=str))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=os.environ.get("BODYTEXT_CORPUS", str(DEFAULT_CORPUS)))
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--every", type=int, default=1_000)
    parser.add_argument("--part", choices=("extract", "crawl", "both"), default="both")
    parser.add_argument("--extractor", default=None, help="extractor name (default: the recommended one)")
    parser.add_argument("--crawl-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.crawl_child:
        crawl_child(args.crawl_child)
        return 0
    bodies = corpus_bodies(Path(args.corpus))
    print(f"{len(bodies)} corpus pages cycled to {args.pages} pages", flush=True)
    if args.part in ("extract", "both"):
        soak_extract(bodies, args.pages, args.every, args.extractor)
    if args.part in ("crawl", "both"):
        soak_crawl(bodies, args.pages, args.every, args.extractor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
