#!/usr/bin/env python
"""Throughput and peak memory of a real Scrapy crawl of real pages served on 127.0.0.1, three ways:
without the plugin, with it extracting in a thread of the crawl's process, and with worker processes.

    python benchmarks/crawl_benchmark.py [DIR] [--pages N] [--latency S] [--rounds R] [--workers N] [--json FILE]

DIR defaults to ../shared/corpus/dev next to the checkout; every page of it (or N evenly spaced ones)
is served from memory by a stdlib threaded HTTP server (``tests/http_server.py``) in its own process,
as ``text/html`` (with the charset where the corpus states one), each answer delayed by ``--latency``
seconds (0: the crawl is CPU-bound, the worst case for the plugin; 0.2: like a remote server, with
Scrapy's default 8 concurrent requests per domain). Each crawl runs in a fresh process
(``tests/crawl_runner.py``: Scrapy's default settings and asyncio reactor, a JSON Lines feed): the
spider requests every page once, parses nothing and yields one item per page, so the figures are
the cost of the plugin against the cheapest possible crawl. The configurations alternate round by
round and the table gives the median of the rounds.

* pages/s: pages crawled / Scrapy's ``elapsed_time_seconds`` (spider open to close: starting and
  stopping the worker pool included).
* peak RSS, crawl process: Scrapy's ``memusage/max`` (the process's ``ru_maxrss``, read every 0.2 s).
* peak RSS, all processes: the largest sum of the RSS of the crawl process and its descendants
  (forkserver and workers), sampled every 0.05 s; shared pages count once per process.
* CPU ms/page: CPU time (user + system) of the crawl process and its descendants per page, as last
  sampled: unlike pages/s, it hardly depends on what else the machine is running.

This is a measurement script, not a test: on a shared machine run several rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "dev"
ADDON = {"scrapy_bodytext.Addon": 0}

#: configuration name -> settings of its crawl (``workers`` filled in by ``configurations``)
NO_PLUGIN, IN_PROCESS, WORKERS = "no plugin", "plugin, in-process (thread)", "plugin, worker processes"


def configurations(workers: int | None) -> dict[str, dict[str, Any]]:
    with_workers = {"ADDONS": ADDON} if workers is None else {"ADDONS": ADDON, "BODYTEXT_WORKERS": workers}
    return {
        NO_PLUGIN: {},
        IN_PROCESS: {"ADDONS": ADDON, "BODYTEXT_WORKERS": 0},
        WORKERS: with_workers,
    }


def selected_rows(corpus: Path, pages: int | None) -> list[dict]:
    """Index rows of the pages to serve: all of them, or ``pages`` evenly spaced in id order."""
    rows = sorted((json.loads(line) for line in (corpus / "index.jsonl").read_text(encoding="utf-8").splitlines()
                   if line.strip()), key=lambda row: row["id"])
    if pages is None or pages >= len(rows):
        return rows
    return [rows[index * len(rows) // pages] for index in range(pages)]


def page_path(row: dict) -> str:
    return f"/{row['id']}.html"


# --- the site: a child process serving the pages -------------------------------------------------

def serve(corpus: Path, pages: int | None, latency: float) -> None:
    """Serve the selected pages, each after ``latency`` seconds, until stdin closes; print the base URL
    once listening."""
    import gzip

    sys.path.insert(0, str(TESTS))
    from http_server import SiteServer

    served = {}
    for row in selected_rows(corpus, pages):
        data = (corpus / row["file"]).read_bytes()
        body = gzip.decompress(data) if row["file"].endswith(".gz") else data
        content_type = f"text/html; charset={row['charset']}" if row.get("charset") else "text/html"
        served[page_path(row)] = (body, content_type)
    with SiteServer(served, on_request=(lambda target, headers: time.sleep(latency)) if latency else None) as server:
        print(server.base_url, flush=True)
        sys.stdin.readline()


class Site:
    """The serving child process, started with ``with``."""

    def __init__(self, corpus: Path, pages: int | None, latency: float):
        command = [sys.executable, __file__, str(corpus), "--serve", "--latency", str(latency)]
        command += [] if pages is None else ["--pages", str(pages)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url.startswith("http://"):
            self.process.kill()
            raise RuntimeError("the page server did not start")

    def __enter__(self) -> Site:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --- memory and CPU of a process tree ----------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _processes() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds so far) of every process visible in /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", encoding="latin-1") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    return found


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="latin-1") as status:
            return next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
    except OSError:
        return 0


def descendants(root: int, parents: dict[int, int]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


class TreeSampler:
    """Samples, in a thread, the descendants of this process (except ``excluded`` and its own): the
    peak of their summed RSS, and the CPU time each had used when last seen."""

    def __init__(self, excluded: int, interval: float = 0.05):
        self.excluded = excluded
        self.interval = interval
        self.peak_kb = 0
        self.cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @property
    def cpu_seconds(self) -> float:
        return sum(self.cpu.values())

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            processes = _processes()
            parents = {pid: parent for pid, (parent, _) in processes.items()}
            skip = {self.excluded, *descendants(self.excluded, parents)}
            pids = [pid for pid in descendants(os.getpid(), parents) if pid not in skip]
            self.peak_kb = max(self.peak_kb, sum(_rss_kb(pid) for pid in pids))
            self.cpu.update((pid, processes[pid][1]) for pid in pids)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()


# --- one crawl ---------------------------------------------------------------------------------

def crawl_once(site: Site, urls: Path, settings: dict[str, Any], folder: Path) -> dict[str, Any]:
    """One crawl of every URL in ``urls`` in a fresh process: pages/s, peak RSS, outcome counts."""
    from crawl_runner import run_crawl

    all_settings = {"MEMUSAGE_CHECK_INTERVAL_SECONDS": 0.2, **settings}
    with TreeSampler(excluded=site.process.pid) as sampler:
        crawl = run_crawl(folder, settings=all_settings, timeout=1800, urls=str(urls), follow="0")
    pages = crawl.stat("response_received_count")
    if crawl.returncode != 0 or crawl.stat("finish_reason") != "finished" or not pages:
        raise RuntimeError(f"crawl failed:\n{crawl.log[-3000:]}")
    seconds = float(crawl.stat("elapsed_time_seconds"))
    return {
        "pages": pages,
        "seconds": seconds,
        "pages_per_second": pages / seconds,
        "peak_rss_crawl_mb": crawl.stat("memusage/max") / 2**20,
        "peak_rss_all_mb": sampler.peak_kb / 1024,
        "cpu_ms_per_page": 1000 * sampler.cpu_seconds / pages,
        "stored": crawl.stored,
        "dropped": crawl.dropped,
        "workers_lost": sum(crawl.stats_under("bodytext/errors/worker_").values()),
    }


def run(corpus: Path, pages: int | None, latency: float, rounds: int, workers: int | None) -> dict[str, Any]:
    sys.path.insert(0, str(TESTS))
    configs = configurations(workers)
    names = list(configs)
    runs: dict[str, list[dict]] = {name: [] for name in names}
    with Site(corpus, pages, latency) as site, tempfile.TemporaryDirectory() as temp:
        urls = Path(temp) / "urls.txt"
        urls.write_text("\n".join(site.base_url + page_path(row) for row in selected_rows(corpus, pages)))
        for number in range(rounds):
            for name in names[number % len(names):] + names[:number % len(names)]:  # alternate the order
                folder = Path(temp) / f"{number}-{names.index(name)}"
                folder.mkdir()
                figures = crawl_once(site, urls, configs[name], folder)
                runs[name].append(figures)
                print(f"round {number + 1}/{rounds} {name}: {figures['pages_per_second']:.1f} pages/s, "
                      f"{figures['peak_rss_crawl_mb']:.0f} MB / {figures['peak_rss_all_mb']:.0f} MB, "
                      f"{figures['cpu_ms_per_page']:.1f} CPU ms/page, "
                      f"stored {figures['stored']}, dropped {figures['dropped']}", file=sys.stderr, flush=True)
    return {name: summary(found) for name, found in runs.items()}


def summary(runs: list[dict]) -> dict[str, Any]:
    """Medians over the rounds, and every round's throughput."""
    medians = {key: statistics.median(run[key] for run in runs)
               for key in ("pages_per_second", "peak_rss_crawl_mb", "peak_rss_all_mb", "cpu_ms_per_page")}
    return {**medians, "pages": runs[0]["pages"], "rounds": [round(run["pages_per_second"], 1) for run in runs],
            "stored": runs[-1]["stored"], "dropped": runs[-1]["dropped"],
            "workers_lost": sum(run["workers_lost"] for run in runs)}


def cost(figures: dict[str, Any], name: str) -> float:
    """Throughput lost to the plugin, in percent of the crawl without it."""
    return 100 * (1 - figures[name]["pages_per_second"] / figures[NO_PLUGIN]["pages_per_second"])


def table(figures: dict[str, Any]) -> str:
    from scrapy_bodytext.evaluation.report import markdown_table

    rows = []
    for name, found in figures.items():
        lost = "" if name == NO_PLUGIN else f"{cost(figures, name):.1f} %"
        rows.append([name, f"{found['pages_per_second']:.1f}", lost, f"{found['peak_rss_crawl_mb']:.0f}",
                     f"{found['peak_rss_all_mb']:.0f}", f"{found['cpu_ms_per_page']:.1f}",
                     ", ".join(f"{value:.1f}" for value in found["rounds"])])
    return markdown_table(["crawl", "pages/s (median)", "throughput cost", "peak RSS crawl process (MB)",
                           "peak RSS all processes (MB)", "CPU ms/page", "pages/s of each round"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), metavar="DIR")
    parser.add_argument("--pages", type=int, metavar="N", help="serve N evenly spaced pages (default all)")
    parser.add_argument("--latency", type=float, default=0.0, metavar="S",
                        help="seconds the server waits before each answer (default 0)")
    parser.add_argument("--rounds", type=int, default=3, metavar="R", help="crawls per configuration (default 3)")
    parser.add_argument("--workers", type=int, metavar="N", help="BODYTEXT_WORKERS of the workers crawl "
                        "(default: the plugin's default for this machine)")
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    if args.serve:
        serve(corpus, args.pages, args.latency)
        return 0
    from scrapy_bodytext.evaluation.report import machine_description
    from scrapy_bodytext.settings import load_settings

    workers = args.workers if args.workers is not None else load_settings({}).workers
    figures = run(corpus, args.pages, args.latency, args.rounds, args.workers)
    pages = figures[NO_PLUGIN]["pages"]
    print(f"Crawl of {pages} real pages on 127.0.0.1 answered after {args.latency:g} s, median of {args.rounds} "
          f"rounds; workers crawl: BODYTEXT_WORKERS = {workers}; {machine_description()['summary']}\n")
    print(table(figures))
    with_workers = cost(figures, WORKERS)
    print(f"\nPlugin cost with worker processes: {with_workers:.1f} % of the crawl's throughput "
          f"(target at most 10 %: {'met' if with_workers <= 10 else 'not met'}); in-process: "
          f"{cost(figures, IN_PROCESS):.1f} %.")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine_description(), "workers": workers,
                                               "latency": args.latency, "figures": figures}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
