#!/usr/bin/env python
"""Throughput and peak memory of a real Scrapy crawl of real pages served on 127.0.0.1, three ways:
without the plugin, with it extracting in a thread of the crawl's process, and with worker processes;
and how close each comes to the throughput the machine's cores allow.

    python benchmarks/crawl_benchmark.py [DIR] [--pages N] [--latency S] [--rounds R] [--workers N[,N...]]
                                         [--json FILE]

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
* CPU ms/page: CPU time (user + system) of the crawl process and its descendants (forkserver and
  workers) from spider open to close, per page: unlike pages/s, it hardly depends on what else the
  machine is running. Sampled every 0.05 s and interpolated at Scrapy's ``start_time`` and
  ``finish_time``, so the imports before the crawl are left out as they are from pages/s.
* of which crawl process: the part spent by the crawl process itself (Scrapy, the plugin's
  components, handing pages to the workers); 1000 / it is the most pages/s one crawl process can
  hand out, however many workers it has.
* bound: the most pages/s this machine's usable CPUs can give that crawl, usable CPUs / CPU seconds
  per page (both measured here, the CPUs as the plugin counts them); "% of bound" is pages/s over it,
  i.e. the share of the usable CPUs the crawl kept busy. Another job running on the machine takes
  CPU from the crawl and lowers it: the load average before and after the run is printed.
* server CPU ms/page: what the page server (a separate process, not counted above) spent per page,
  CPU it takes from the same cores.
* other jobs: CPUs kept busy, on average during the crawl, by every other process of the machine
  (``/proc/stat`` less the crawl, the server and this script): near 0 on a quiet machine.

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
from datetime import datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "dev"
ADDON = {"scrapy_bodytext.Addon": 0}

#: configuration names (one workers crawl per worker count, see ``workers_name``)
NO_PLUGIN, IN_PROCESS = "no plugin", "plugin, in-process (thread)"


def workers_name(count: int) -> str:
    return f"plugin, worker processes ({count})"


def worker_counts(value: str) -> list[int]:
    """``--workers``: one count or several, comma-separated, each at least 1."""
    counts = [int(part) for part in value.split(",")]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("expected worker counts of at least 1, e.g. 2 or 1,2,3")
    return counts


def configurations(counts: list[int]) -> dict[str, dict[str, Any]]:
    """Configuration name -> settings of its crawl."""
    found: dict[str, dict[str, Any]] = {NO_PLUGIN: {}, IN_PROCESS: {"ADDONS": ADDON, "BODYTEXT_WORKERS": 0}}
    for count in counts:
        found[workers_name(count)] = {"ADDONS": ADDON, "BODYTEXT_WORKERS": count}
    return found


def selected_rows(corpus: Path, pages: int | None) -> list[dict]:
    """Index rows of the pages to serve: all of them, or ``pages`` evenly spaced in id order."""
    rows = sorted(
        (
            json.loads(line)
            for line in (corpus / "index.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ),
        key=lambda row: row["id"],
    )
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
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="latin-1") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def machine_busy_seconds() -> float:
    """CPU seconds all CPUs of the machine spent busy so far (``/proc/stat``, all but idle and iowait)."""
    with open("/proc/stat", encoding="ascii") as stat:
        user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, stat.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", encoding="latin-1") as statm:
            return int(statm.read().split()[1]) * PAGE_KB
    except OSError:
        return 0


def children(pid: int) -> list[int]:
    """Child processes of ``pid``, whichever of its threads started them."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                found += [int(child) for child in listed.read().split()]
        except OSError:
            continue
    return found


def descendants(root: int, excluded: int) -> list[int]:
    """Every process below ``root``, except ``excluded`` and what is below it."""
    found, stack = [], [child for child in children(root) if child != excluded]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children(pid))
    return found


class TreeSampler:
    """Samples, in a thread, the descendants of this process except ``site`` (the page server) and
    its own: the peak of their summed RSS, and over time the CPU seconds they had used (each process
    as last seen), those of the crawl process alone (this process's other child) and those of ``site``."""

    def __init__(self, site: int, interval: float = 0.05):
        self.site = site
        self.interval = interval
        self.peak_kb = 0
        self.cpu: dict[int, float] = {}
        self.crawl_cpu = 0.0
        # time.time(), then CPU s of: the crawl's processes, the crawl process alone, the server, every
        # process of the machine but these and this one (other jobs)
        self.series: list[tuple[float, float, float, float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            now = time.time()
            pids = descendants(os.getpid(), self.site)
            self.peak_kb = max(self.peak_kb, sum(rss_kb(pid) for pid in pids))
            for pid in pids:
                used = cpu_seconds(pid)
                if used is not None:
                    self.cpu[pid] = used
            crawl = [child for child in children(os.getpid()) if child != self.site]
            if crawl:
                self.crawl_cpu = self.cpu.get(crawl[0], self.crawl_cpu)
            ours, server = sum(self.cpu.values()), cpu_seconds(self.site) or 0.0
            others = machine_busy_seconds() - ours - server - (cpu_seconds(os.getpid()) or 0.0)
            self.series.append((now, ours, self.crawl_cpu, server, others))

    def cpu_between(self, start: float, end: float) -> tuple[float, float, float, float]:
        """CPU seconds of the crawl's processes, of the crawl process alone, of the server and of other
        jobs between two ``time.time()`` values."""

        def at(when: float, column: int) -> float:
            points = self.series
            if not points:
                return 0.0
            if when <= points[0][0]:
                return points[0][column]
            for before, after in zip(points, points[1:]):
                if before[0] <= when <= after[0]:
                    share = (when - before[0]) / ((after[0] - before[0]) or 1.0)
                    return before[column] + share * (after[column] - before[column])
            return points[-1][column]

        return tuple(at(end, column) - at(start, column) for column in (1, 2, 3, 4))  # type: ignore[return-value]

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()


# --- one crawl ---------------------------------------------------------------------------------


def crawl_once(site: Site, urls: Path, settings: dict[str, Any], folder: Path, cpus: int) -> dict[str, Any]:
    """One crawl of every URL in ``urls`` in a fresh process: pages/s, CPU, peak RSS, outcome counts."""
    from crawl_runner import run_crawl

    all_settings = {"MEMUSAGE_CHECK_INTERVAL_SECONDS": 0.2, **settings}
    with TreeSampler(site=site.process.pid) as sampler:
        crawl = run_crawl(folder, settings=all_settings, timeout=1800, urls=str(urls), follow="0")
    pages = crawl.stat("response_received_count")
    if crawl.returncode != 0 or crawl.stat("finish_reason") != "finished" or not pages:
        raise RuntimeError(f"crawl failed:\n{crawl.log[-3000:]}")
    seconds = float(crawl.stat("elapsed_time_seconds"))
    start = datetime.fromisoformat(crawl.stat("start_time")).timestamp()
    crawl_cpu, crawl_process_cpu, server_cpu, other_cpu = sampler.cpu_between(start, start + seconds)
    cpu_per_page = crawl_cpu / pages
    return {
        "pages": pages,
        "seconds": seconds,
        "pages_per_second": pages / seconds,
        "peak_rss_crawl_mb": crawl.stat("memusage/max") / 2**20,
        "peak_rss_all_mb": sampler.peak_kb / 1024,
        "cpu_ms_per_page": 1000 * cpu_per_page,
        "bound": cpus / cpu_per_page,
        "crawl_process_cpu_ms_per_page": 1000 * crawl_process_cpu / pages,
        "server_cpu_ms_per_page": 1000 * server_cpu / pages,
        "other_jobs_cpus": max(0.0, other_cpu / seconds),
        "stored": crawl.stored,
        "dropped": crawl.dropped,
        "workers_lost": sum(crawl.stats_under("bodytext/errors/worker_").values()),
    }


def run(
    corpus: Path, pages: int | None, latency: float, rounds: int, worker_counts: list[int], cpus: int
) -> dict[str, Any]:
    sys.path.insert(0, str(TESTS))
    configs = configurations(worker_counts)
    names = list(configs)
    runs: dict[str, list[dict]] = {name: [] for name in names}
    with Site(corpus, pages, latency) as site, tempfile.TemporaryDirectory() as temp:
        urls = Path(temp) / "urls.txt"
        urls.write_text("\n".join(site.base_url + page_path(row) for row in selected_rows(corpus, pages)))
        for number in range(rounds):
            for name in names[number % len(names) :] + names[: number % len(names)]:  # alternate the order
                folder = Path(temp) / f"{number}-{names.index(name)}"
                folder.mkdir()
                figures = crawl_once(site, urls, configs[name], folder, cpus)
                runs[name].append(figures)
                print(
                    f"round {number + 1}/{rounds} {name}: {figures['pages_per_second']:.1f} pages/s, "
                    f"{figures['cpu_ms_per_page']:.1f} CPU ms/page, "
                    f"{100 * figures['pages_per_second'] / figures['bound']:.0f} % of bound, "
                    f"{figures['peak_rss_crawl_mb']:.0f} MB / {figures['peak_rss_all_mb']:.0f} MB, "
                    f"stored {figures['stored']}, dropped {figures['dropped']}, "
                    f"other jobs kept {figures['other_jobs_cpus']:.2f} CPUs busy",
                    file=sys.stderr,
                    flush=True,
                )
    return {name: summary(found, cpus) for name, found in runs.items()}


def summary(runs: list[dict], cpus: int) -> dict[str, Any]:
    """Medians over the rounds, the bound of the median CPU per page, and every round's throughput."""
    medians = {
        key: statistics.median(run[key] for run in runs)
        for key in (
            "pages_per_second",
            "peak_rss_crawl_mb",
            "peak_rss_all_mb",
            "cpu_ms_per_page",
            "crawl_process_cpu_ms_per_page",
            "server_cpu_ms_per_page",
            "other_jobs_cpus",
        )
    }
    bound = cpus / (medians["cpu_ms_per_page"] / 1000)
    return {
        **medians,
        "bound": bound,
        "percent_of_bound": 100 * medians["pages_per_second"] / bound,
        "pages": runs[0]["pages"],
        "rounds": [round(run["pages_per_second"], 1) for run in runs],
        "stored": runs[-1]["stored"],
        "dropped": runs[-1]["dropped"],
        "workers_lost": sum(run["workers_lost"] for run in runs),
    }


def cost(figures: dict[str, Any], name: str) -> float:
    """Throughput lost to the plugin, in percent of the crawl without it."""
    return 100 * (1 - figures[name]["pages_per_second"] / figures[NO_PLUGIN]["pages_per_second"])


def table(figures: dict[str, Any]) -> str:
    from scrapy_bodytext.evaluation.report import markdown_table

    rows = []
    for name, found in figures.items():
        lost = "" if name == NO_PLUGIN else f"{cost(figures, name):.1f} %"
        rows.append(
            [
                name,
                f"{found['pages_per_second']:.1f}",
                lost,
                f"{found['cpu_ms_per_page']:.1f}",
                f"{found['crawl_process_cpu_ms_per_page']:.1f}",
                f"{found['bound']:.1f}",
                f"{found['percent_of_bound']:.1f} %",
                f"{found['server_cpu_ms_per_page']:.1f}",
                f"{found['other_jobs_cpus']:.2f}",
                f"{found['peak_rss_crawl_mb']:.0f}",
                f"{found['peak_rss_all_mb']:.0f}",
                ", ".join(f"{value:.1f}" for value in found["rounds"]),
            ]
        )
    return markdown_table(
        [
            "crawl",
            "pages/s (median)",
            "throughput cost",
            "CPU ms/page",
            "of which crawl process",
            "bound (pages/s)",
            "% of bound",
            "server CPU ms/page",
            "other jobs (CPUs busy)",
            "peak RSS crawl process (MB)",
            "peak RSS all processes (MB)",
            "pages/s of each round",
        ],
        rows,
    )


def load_average() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), metavar="DIR")
    parser.add_argument("--pages", type=int, metavar="N", help="serve N evenly spaced pages (default all)")
    parser.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="S",
        help="seconds the server waits before each answer (default 0)",
    )
    parser.add_argument("--rounds", type=int, default=3, metavar="R", help="crawls per configuration (default 3)")
    parser.add_argument(
        "--workers",
        type=worker_counts,
        metavar="N[,N...]",
        help="BODYTEXT_WORKERS of the workers crawl, or of one workers crawl each (default: the "
        "plugin's default for this machine, at least 1)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    corpus = Path(args.corpus)
    if args.serve:
        serve(corpus, args.pages, args.latency)
        return 0
    from scrapy_bodytext.evaluation.report import machine_description
    from scrapy_bodytext.plugin.settings import load_settings
    from scrapy_bodytext.workers.cpus import usable_cpus

    counts = args.workers or [max(1, load_settings({}).workers)]
    cpus = usable_cpus()
    load_before = load_average()
    figures = run(corpus, args.pages, args.latency, args.rounds, counts, cpus.count)
    pages = figures[NO_PLUGIN]["pages"]
    print(
        f"Crawl of {pages} real pages on 127.0.0.1 answered after {args.latency:g} s, median of {args.rounds} "
        f"rounds; {machine_description()['summary']}; {cpus}; load average (1, 5, 15 min) before the run "
        f"{load_before}, after it {load_average()}\n"
    )
    print(table(figures))
    print(
        f"\nbound: {cpus.count} usable CPUs / CPU seconds per page of that crawl (its processes, spider open "
        "to close); % of bound: pages/s / bound."
    )
    for count in counts:
        name = workers_name(count)
        found = figures[name]
        print(
            f"{name}: {found['pages_per_second']:.1f} pages/s = {found['percent_of_bound']:.1f} % of the bound "
            f"{found['bound']:.1f} pages/s (target at least 85 %: "
            f"{'met' if found['percent_of_bound'] >= 85 else 'not met'}); plugin cost {cost(figures, name):.1f} % "
            f"of the crawl's throughput (target at most 10 %: {'met' if cost(figures, name) <= 10 else 'not met'})"
        )
    print(f"{IN_PROCESS}: plugin cost {cost(figures, IN_PROCESS):.1f} %.")
    for count in counts:
        found = figures[workers_name(count)]
        own = found["crawl_process_cpu_ms_per_page"]
        extraction = found["cpu_ms_per_page"] - own
        print(
            f"With {count} worker process(es), the crawl process spent {own:.1f} CPU ms per page itself: alone on "
            f"a core it hands out at most {1000 / own:.0f} pages/s, which keep {extraction / own:.1f} workers busy "
            f"at the {extraction:.1f} CPU ms per page they (and the forkserver) spent."
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "machine": machine_description(),
                    "usable_cpus": str(cpus),
                    "workers": counts,
                    "latency": args.latency,
                    "figures": figures,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
