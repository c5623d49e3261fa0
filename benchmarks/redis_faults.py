#!/usr/bin/env python
"""What a crawl does when its Redis fails: one site of a site corpus crawled for real (the add-on, site
memory and the duplicate index both in a real redis-server), once undisturbed and once per fault, with
the figures that say whether anything was lost or hung.

    python benchmarks/redis_faults.py CORPUS_DIR [--site NAME] [--faults drop2,drop10,drop2x2,freeze,kill]
                                      [--freeze-seconds 20] [--seed N] [--output FILE] [--keep DIR]

Faults (each a crawl of its own, the site served on 127.0.0.1 as ``site_crawl.py`` serves it, crawled
from its home page by the same spider):

* ``dropN``: Redis reached through a relay on 127.0.0.1 (``tests/fault_relay.py``) that closes the
  connection on N % of the chunks the client sends (a flaky network or proxy); ``dropNx2``: the same,
  two items per page;
* ``freeze``: the redis-server stopped (SIGSTOP) at the 20th request of the crawl and resumed
  ``--freeze-seconds`` later;
* ``kill``: the redis-server killed at the 20th request, not restarted.

Per crawl: items in (the items the spider yielded: pages visited × items per page), stored + dropped,
item errors (Scrapy's "Error processing" lines), items never decided (in, less stored, dropped and
errors), whether the crawl closed by itself and its wall time, the WARNING lines of the Redis guards,
and, for the freeze, the items decided while Redis was frozen and the longest wait between two
decisions then, beside the longest wait between two decisions over the whole crawl (from the log's
millisecond timestamps; stored and dropped items each have a DEBUG line).
A crawl that has not closed after ``--timeout`` seconds gets SIGTERM, then SIGKILL: "hung".
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from site_crawl import REPO, LocalSite, crawl_settings, read_sites, start_crawl, start_rows

sys.path.insert(0, str(REPO / "tests"))
from fault_relay import FaultRelay  # noqa: E402 - the tests' helpers
from http_server import AtRequest  # noqa: E402
from redis_server import RedisProcess  # noqa: E402

FAULTS = ("none", "drop2", "drop10", "drop2x2", "freeze", "kill")
#: the request of the crawl at which Redis is frozen or killed
FAULT_AT_REQUEST = 20
LOG_FORMAT = "%(asctime)s.%(msecs)03d [%(name)s] %(levelname)s: %(message)s"
DECIDED = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[scrapy\.core\.scraper\] DEBUG: (Scraped from|Dropped:)", re.MULTILINE
)
GUARD_WARNING = re.compile(r"WARNING: (site memory|the duplicate index) in Redis at ")


def crawl_once(fault: str, rows: list[dict], options: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """One crawl of the site with ``fault``; the figures of the table."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is needed (apt-get install redis-server)")
    items = 2 if fault.endswith("x2") else 1
    drop = float(re.match(r"drop(\d+)", fault).group(1)) / 100 if fault.startswith("drop") else 0.0
    part = folder / fault
    part.mkdir(parents=True, exist_ok=True)
    (part / "redis").mkdir(exist_ok=True)
    frozen: dict[str, float] = {}
    with RedisProcess(binary, part / "redis") as server:
        if not server.start():
            raise SystemExit("redis-server did not start")
        relay = FaultRelay(("127.0.0.1", server.port), drop=drop, seed=options.seed) if drop else None
        url = relay.url if relay else server.url

        def freeze() -> None:
            frozen["from"] = time.time()
            server.freeze()

            def thaw() -> None:
                server.thaw()
                frozen["to"] = time.time()

            threading.Timer(options.freeze_seconds, thaw).start()

        hook = {"freeze": AtRequest({FAULT_AT_REQUEST: freeze}), "kill": AtRequest({FAULT_AT_REQUEST: server.kill})}
        extra = {
            "BODYTEXT_SITE_MEMORY_REDIS_URL": url,
            "BODYTEXT_DUPLICATE_REDIS_URL": url,
            "BODYTEXT_WORKERS": 0,
            "LOG_LEVEL": "DEBUG",
            "LOG_FORMAT": LOG_FORMAT,
        }
        settings = crawl_settings(part, options.concurrency, "default", extra)
        settings.pop("BODYTEXT_REJECTED_FEED", None)
        with LocalSite(options.corpus, rows, on_request=hook.get(fault)) as site:
            started = time.monotonic()
            process = start_crawl(part, site, rows, start_rows(rows), True, settings, items=items)
            closed = "by itself"
            try:
                process.communicate(timeout=options.timeout)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGTERM)
                try:
                    process.communicate(timeout=60)
                    closed = "hung; closed on SIGTERM"
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.communicate()
                    closed = "hung; killed"
            wall = time.monotonic() - started
        if relay is not None:
            relay.close()
        server.thaw()
    return figures(part, items, closed, wall, frozen, relay)


def figures(part: Path, items: int, closed: str, wall: float, frozen: dict, relay: Any) -> dict[str, Any]:
    log = (part / "crawl.log").read_text(encoding="utf-8", errors="replace")
    stats = json.loads((part / "stats.json").read_text()) if (part / "stats.json").exists() else {}
    visits = json.loads((part / "visits.json").read_text()) if (part / "visits.json").exists() else {"visits": {}}
    items_in = sum(visits["visits"].values()) * items
    stored, dropped = stats.get("item_scraped_count", 0), stats.get("item_dropped_count", 0)
    errors = log.count("Error processing")
    found: dict[str, Any] = {
        "items in": items_in,
        "stored + dropped": stored + dropped,
        "item errors": errors,
        "never decided": items_in - stored - dropped - errors,
        "crawl": f"{closed}, {wall:.0f} s",
        "Redis WARNING lines": len(GUARD_WARNING.findall(log)),
        "outages": stats.get("bodytext/sites/redis/outages", 0) + stats.get("bodytext/duplicates/redis/outages", 0),
        "calls not made": stats.get("bodytext/sites/redis/skipped", 0)
        + stats.get("bodytext/duplicates/redis/skipped", 0),
    }
    if relay is not None:
        found["chunks dropped"] = f"{relay.dropped} of {relay.chunks}"
    times = [datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S.%f").timestamp() for stamp, _ in DECIDED.findall(log)]
    found["longest wait between decisions"] = f"{max((b - a for a, b in zip(times, times[1:])), default=0):.2f} s"
    if "from" in frozen:
        end = frozen.get("to", frozen["from"] + 1e9)
        during = sorted(t for t in times if frozen["from"] <= t <= end)
        edges = [frozen["from"], *during, min(end, max(times, default=end))]
        found["decided while frozen"] = len(during)
        found["longest wait while frozen"] = f"{max(b - a for a, b in zip(edges, edges[1:])):.2f} s"
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a site corpus (index.jsonl, pages/)")
    parser.add_argument("--site", help="the site to crawl (default: the one with the most pages)")
    parser.add_argument("--faults", default=",".join(FAULTS), help=f"comma-separated, of {', '.join(FAULTS)}")
    parser.add_argument("--freeze-seconds", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a crawl counts as hung")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, help="also write the table (Markdown) here")
    parser.add_argument("--keep", type=Path, help="keep the crawls' folders (logs, feeds, stats) here")
    options = parser.parse_args(argv)
    sites = read_sites(options.corpus)
    name = options.site or max(sites, key=lambda site: (len(sites[site]), site))
    faults = [fault for fault in options.faults.split(",") if fault]
    for fault in faults:
        if fault not in FAULTS and not re.fullmatch(r"drop\d+(x2)?", fault):
            parser.error(f"unknown fault {fault!r}")
    folder = options.keep or Path(tempfile.mkdtemp(prefix="redis-faults-"))
    rows = []
    for fault in faults:
        print(f"crawling {name} with fault {fault} ...", file=sys.stderr, flush=True)
        rows.append((fault, crawl_once(fault, sites[name], options, folder)))
    columns = list(dict.fromkeys(key for _, found in rows for key in found))
    lines = [
        f"Redis faults, site {name} ({len(sites[name])} pages), {time.strftime('%Y-%m-%d %H:%M')}, "
        f"freeze {options.freeze_seconds:g} s at request {FAULT_AT_REQUEST}",
        "",
        "| fault | " + " | ".join(columns) + " |",
        "|---" * (len(columns) + 1) + "|",
    ]
    lines += ["| " + fault + " | " + " | ".join(str(found.get(c, "")) for c in columns) + " |" for fault, found in rows]
    text = "\n".join(lines)
    print(text)
    if options.output:
        options.output.write_text(text + "\n", encoding="utf-8")
    if options.keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
