#!/usr/bin/env python
"""A crawl's site check fed many one-page sites: what it holds and how long its close takes must not
grow with the number of sites a crawl meets.

    python benchmarks/many_sites.py [--sites 10000,100000]

For each count, in a process of its own: a Scrapy crawler (``scrapy.utils.test.get_crawler``, the
add-on's settings, its engine built) and the plugin's ``SiteCheck`` with the in-process memory and
waiting on (16 pages) on Scrapy's asyncio reactor; one page per site, alternately one the page judge
is unsure of (it waits) and one it is sure of (it teaches its site), each decided through
``SiteCheck.decide`` as the pipeline calls it. Printed: the seconds to feed the pages, the seconds the
close takes (every waiting page decided, what the crawl learned read and logged), the process's
resident memory after the feed, after the close and at its peak (``/proc/self/status``), the sites
the memory remembers, the sites the crawl's tally of what it taught holds and the
``bodytext/sites/`` stats. A measurement script, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's package, wherever another is installed

from scrapy_bodytext.evaluation.report import machine_description  # noqa: E402

#: a page's main text: long enough to be an article's
TEXT = (
    "A paragraph of the page, long enough to be an article's text: it tells what happened, where and when, "
    "and what the people involved said about it afterwards, and then what came of it the week after."
)


def resident_mb(field: str) -> float:
    """This process's resident memory now (``VmRSS``) or at its peak (``VmHWM``), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


#: pages fed between two turns of the event loop
BATCH = 100


def run(sites: int) -> dict:
    """Feeds ``sites`` one-page sites through a crawl's site check; the figures as a dict."""
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
    from scrapy.utils.defer import deferred_from_coro
    from scrapy.utils.test import get_crawler
    from twisted.internet import reactor

    from scrapy_bodytext.plugin.settings import load_settings
    from scrapy_bodytext.plugin.sites import SiteCheck
    from scrapy_bodytext.plugin.spidermiddlewares import Page
    from scrapy_bodytext.result import ExtractionResult

    crawler = get_crawler(settings_dict={"ADDONS": {"scrapy_bodytext.Addon": 0}})
    crawler.engine = crawler._create_engine()
    crawler.stats.open_spider(None)
    figures: dict = {"sites": sites}
    lines: list[str] = []

    async def main() -> None:
        check = SiteCheck(load_settings(crawler.settings), crawler, lambda level, msg, *a: lines.append(msg % a))
        check.open()
        items: set[asyncio.Future] = set()
        started = time.perf_counter()
        for number in range(sites):
            probability = 0.97 if number % 2 else 0.6
            result = ExtractionResult(TEXT, probability, probability >= 0.5, "bodytext", page_type="article")
            page = Page(f"https://site-{number}.example/news/a-post-{number}/", None, None, None, result=result)
            item = asyncio.ensure_future(check.decide(page, result))  # as the pipeline's item awaits it
            items.add(item)
            item.add_done_callback(items.discard)
            if number % BATCH == BATCH - 1:
                await asyncio.sleep(0)  # the items run: each page decided or waiting
        figures["feed_seconds"] = round(time.perf_counter() - started, 2)
        figures["rss_after_feed_mb"] = resident_mb("VmRSS")
        started = time.perf_counter()
        await check.close()
        await asyncio.gather(*items)
        figures["close_seconds"] = round(time.perf_counter() - started, 3)
        figures["rss_after_close_mb"] = resident_mb("VmRSS")
        figures["sites_remembered"] = len(check.memory.store)
        figures["sites_tallied"] = len(check.taught)

    def done(_result) -> None:
        reactor.callLater(0, reactor.stop)

    def failed(failure) -> None:
        figures["error"] = failure.getTraceback()
        reactor.callLater(0, reactor.stop)

    reactor.callWhenRunning(lambda: deferred_from_coro(main()).addCallbacks(done, failed))
    reactor.run()
    figures["peak_rss_mb"] = resident_mb("VmHWM")
    figures["stats"] = {k: v for k, v in sorted(crawler.stats.get_stats().items()) if k.startswith("bodytext/sites")}
    figures["log_lines"] = len(lines)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sites", default="10000,100000", help="counts of one-page sites, comma-separated")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a single count, in this process
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(run(args.one)))
        return 0
    print(f"machine: {machine_description()['summary']}")
    print("| sites | feed s | close s | RSS after feed MB | RSS after close MB | peak RSS MB | remembered | tallied |")
    print("|---|---|---|---|---|---|---|---|")
    found = []
    for count in (int(part) for part in args.sites.split(",")):
        done = subprocess.run([sys.executable, __file__, "--one", str(count)], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr[-3000:], file=sys.stderr)
            return 1
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        if "error" in figures:
            print(figures["error"], file=sys.stderr)
            return 1
        found.append(figures)
        print(
            f"| {count:,} | {figures['feed_seconds']} | {figures['close_seconds']} | {figures['rss_after_feed_mb']} "
            f"| {figures['rss_after_close_mb']} | {figures['peak_rss_mb']} | {figures['sites_remembered']:,} "
            f"| {figures['sites_tallied']:,} |"
        )
    for figures in found:
        print(f"\nstats, {figures['sites']:,} sites: {json.dumps(figures['stats'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
