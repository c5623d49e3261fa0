"""Worker processes in real crawls: the same items as in-process extraction, a pool that lives as long
as the spider, and a worker that hangs or dies costing exactly one page, never the crawl."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import CORPUS_DIR, require_corpus
from crawl_runner import ADDON, Crawl, run_crawl
from http_server import SITE, SiteServer, site_pages

from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.plugin.settings import DEFAULTS, load_settings
from scrapy_bodytext.workers import executors
from scrapy_bodytext.workers.cpus import UsableCpus, cgroup_quota, usable_cpus
from scrapy_bodytext.workers.executors import ProcessExecutor, default_workers

#: every Nth page of the dev corpus (index order: articles of five sources, then non-articles)
CORPUS_STEP = 40


def outcomes(crawl: Crawl) -> tuple[dict[str, tuple[str, float]], set[str]]:
    """What a crawl stored ({url: (text, probability)}) and the pages it dropped as non-articles."""
    stored = {item["url"]: (item["main_text"], item["article_probability"]) for item in crawl.items}
    dropped = {line.rsplit(" ", 1)[1] for line in crawl.log.splitlines() if "Not an article (" in line}
    return stored, dropped


def assert_finished_and_accounted(crawl: Crawl) -> None:
    assert crawl.returncode == 0 and crawl.stat("finish_reason") == "finished", crawl.log[-3000:]
    assert "Traceback" not in crawl.log, crawl.log[-3000:]
    tagged = crawl.stat("bodytext/responses/tagged")
    assert crawl.stat("bodytext/pages/extracted") == tagged > 0
    assert crawl.stored + crawl.dropped == tagged  # one item per page: items in = stored + dropped


# --- the default and the pool's life ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("affinity", "quota", "workers"),
    [
        (1, None, 0),
        (2, None, 2),
        (3, None, 3),
        (64, None, 64),
        (64, 4.0, 4),
        (64, 2.5, 3),
        (8, 0.5, 0),
        (2, 16.0, 2),
    ],
)
def test_auto_is_one_worker_per_usable_cpu(monkeypatch, affinity, quota, workers):
    monkeypatch.setattr(executors, "usable_cpus", lambda: UsableCpus(affinity, quota))
    assert default_workers() == workers
    assert load_settings({}).workers == workers
    assert load_settings({"BODYTEXT_WORKERS": "auto"}).workers == workers
    assert load_settings({"BODYTEXT_WORKERS": "3"}).workers == 3


def cgroup_tree(tmp_path: Path, memberships: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A cgroup mount and a membership file like /proc/self/cgroup, as real files."""
    root = tmp_path / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    listed = tmp_path / "memberships"
    listed.write_text(memberships)
    return root, listed


@pytest.mark.parametrize(
    ("memberships", "files", "quota"),
    [
        # v2: the tightest quota along the path counts (a parent's limit binds its children)
        (
            "0::/pod/crawler\n",
            {"pod/crawler/cpu.max": "max 100000\n", "pod/cpu.max": "150000 100000\n", "cpu.max": "400000 100000\n"},
            1.5,
        ),
        # v2 inside a container: the mount is the container's own cgroup
        ("0::/\n", {"cpu.max": "200000 100000\n"}, 2.0),
        ("0::/\n", {"cpu.max": "max 100000\n"}, None),
        # v1: a tree per controller
        (
            "4:cpu,cpuacct:/docker/abc\n1:name=systemd:/\n",
            {
                "cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "300000\n",
                "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
            },
            3.0,
        ),
        (
            "4:cpu,cpuacct:/\n",
            {"cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"},
            None,
        ),
        # nothing readable: no quota
        ("0::/gone\n", {}, None),
    ],
)
def test_the_cgroup_cpu_quota_is_found_in_v1_and_v2_trees(tmp_path, memberships, files, quota):
    root, listed = cgroup_tree(tmp_path, memberships, files)
    assert cgroup_quota(root, listed) == quota


def test_usable_cpus_says_what_it_found():
    assert str(UsableCpus(8, 1.5)) == "2 usable CPUs (affinity 8, cgroup CPU quota 1.5)"
    assert str(UsableCpus(1, None)) == "1 usable CPU (affinity 1, no cgroup CPU quota)"
    found = usable_cpus()
    assert 1 <= found.count <= found.affinity <= (os.cpu_count() or 1)


def test_the_pool_starts_its_workers_at_start_and_stops_them_at_shutdown():
    before = set(multiprocessing.active_children())
    pool = ProcessExecutor(2)
    try:
        pool.start()  # no page submitted: the workers start with the spider, not with the first page
        deadline = time.monotonic() + 30
        while len(set(multiprocessing.active_children()) - before) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = {worker.pid for worker in set(multiprocessing.active_children()) - before}
        assert len(pids) == 2
        assert pool.context.get_start_method() in ("forkserver", "spawn")  # never a fork of a running reactor
    finally:
        pool.shutdown()
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)  # exited and reaped


# --- identical results ---------------------------------------------------------------------------


@pytest.mark.corpus
def test_workers_store_and_drop_exactly_what_in_process_extraction_does(tmp_path):
    """Real pages, two crawls: in threads of the crawl's process, and in two worker processes that
    are replaced every 5 pages."""
    require_corpus()
    pages = {
        f"/{page.id}.html": (page.body, "text/html")
        for number, page in enumerate(iter_corpus(CORPUS_DIR))
        if number % CORPUS_STEP == 0
    }
    with SiteServer(pages) as server:
        urls = tmp_path / "urls.txt"
        urls.write_text("\n".join(server.url(path) for path in sorted(pages)))
        crawls = {}
        for name, settings in {
            "in-process": {"BODYTEXT_WORKERS": 0},
            "workers": {"BODYTEXT_WORKERS": 2, "BODYTEXT_WORKER_MAX_TASKS": 5},
        }.items():
            folder = tmp_path / name
            folder.mkdir()
            crawls[name] = run_crawl(
                folder,
                settings={"ADDONS": ADDON, "BODYTEXT_SITE_MEMORY": False, **settings},
                urls=str(urls),
                follow="0",
            )
    for crawl in crawls.values():
        assert_finished_and_accounted(crawl)
        assert crawl.stat("bodytext/pages/extracted") == len(pages)
    # one INFO line says where pages are extracted and why; the pool's life is in the stats
    assert "Extraction in 1 thread of the crawl's process (BODYTEXT_WORKERS = 0)" in crawls["in-process"].log
    pool_line = [line for line in crawls["workers"].log.splitlines() if "Extraction in " in line]
    assert len(pool_line) == 1 and " INFO: " in pool_line[0]
    assert "Extraction in 2 worker processes (" in pool_line[0] and "(BODYTEXT_WORKERS = 2)" in pool_line[0]
    assert "replaced after 5 pages" in pool_line[0]
    pool = crawls["workers"].stats_under("bodytext/workers/")
    assert pool["bodytext/workers/pool_size"] == 2 and pool["bodytext/workers/replaced"] == 0
    # every worker is recycled after its 5th page, except the two last ones if they got fewer
    assert (len(pages) - 2 * 4) // 5 <= pool["bodytext/workers/recycled"] <= len(pages) // 5
    assert pool["bodytext/workers/started"] == 2 + pool["bodytext/workers/recycled"]
    in_process, workers = outcomes(crawls["in-process"]), outcomes(crawls["workers"])
    assert in_process[0] and in_process[1]  # both outcomes occur, so the comparison means something
    assert workers == in_process
    assert crawls["workers"].stats_under("bodytext/pages/") == crawls["in-process"].stats_under("bodytext/pages/")


# --- a lost worker costs one page ------------------------------------------------------------------


def _processes() -> dict[int, tuple[int, bytes]]:
    """pid -> (parent pid, command line) of every process visible in /proc."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                stat = Path(f"/proc/{entry.name}/stat").read_text(encoding="latin-1")
                cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes()
            except OSError:
                continue
            found[int(entry.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmdline)
    return found


def crawl_workers() -> list[int]:
    """Extraction workers of the crawl this test runs: children of the forkserver of a crawl process
    started by this process."""
    processes = _processes()
    crawls = {
        pid for pid, (parent, cmdline) in processes.items() if parent == os.getpid() and b"crawl_runner.py" in cmdline
    }
    servers = {pid for pid, (parent, cmdline) in processes.items() if parent in crawls and b"forkserver" in cmdline}
    return [pid for pid, (parent, _) in processes.items() if parent in servers]


class WorkerSaboteur:
    """Acts on the crawl's worker from the site's request handler: at ``/lost.html`` (once a page has
    been extracted, so the worker is up) it stops the worker with SIGSTOP, so that the next page
    sent to it hangs; with ``kill``, the request for ``/after.html`` (a link of ``/lost.html``, hence
    requested after that page was handed to the pool) then kills the stopped worker."""

    def __init__(self, log: Path, kill: bool):
        self.log = log
        self.kill = kill
        self.stopped: list[int] = []
        self.lock = threading.Lock()

    def __call__(self, target: str, headers: object) -> None:
        if target == "/lost.html":
            workers = self._wait_for_a_ready_worker()  # other requests go on meanwhile
            with self.lock:
                if not self.stopped:
                    self.stopped = workers
                    for pid in workers:
                        os.kill(pid, signal.SIGSTOP)
        elif target == "/after.html" and self.kill:
            with self.lock:
                stopped = list(self.stopped)
            time.sleep(0.5)
            for pid in stopped:
                os.kill(pid, signal.SIGKILL)

    def _wait_for_a_ready_worker(self) -> list[int]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = self.log.read_text(encoding="utf-8") if self.log.exists() else ""
            workers = crawl_workers()
            if workers and any(mark in text for mark in ("Scraped from", "Not an article (", "No main text (")):
                return workers
            time.sleep(0.05)
        raise AssertionError("no extraction worker came up")

    def release(self) -> None:
        """Never leave a stopped process behind, whatever happened to the crawl."""
        for pid in self.stopped:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the worker through /proc")
@pytest.mark.parametrize(("fate", "reason"), [("hangs", "time_limit"), ("dies", "error")])
def test_a_worker_that_hangs_or_dies_costs_one_page_and_the_crawl_goes_on(tmp_path, fate, reason):
    lost_page = (
        (SITE / "article-harbour.html")
        .read_bytes()
        .replace(b"</body>", b'<p><a href="/after.html">Read next</a></p></body>')
    )
    pages = {
        **site_pages(),
        "/lost.html": (lost_page, "text/html"),
        "/after.html": ((SITE / "article-glacier.html").read_bytes(), "text/html"),
    }
    saboteur = WorkerSaboteur(tmp_path / "crawl.log", kill=fate == "dies")
    settings = {
        "ADDONS": ADDON,
        "BODYTEXT_WORKERS": 1,
        "LOG_LEVEL": "DEBUG",
        "BODYTEXT_WORKER_TIMEOUT": 5.0 if fate == "hangs" else 60.0,
    }
    try:
        with SiteServer(pages, on_request=saboteur) as server:
            urls = tmp_path / "urls.txt"
            urls.write_text(f"{server.url('/index.html')}\n{server.url('/lost.html')}\n")
            crawl = run_crawl(tmp_path, settings=settings, urls=str(urls))
    finally:
        saboteur.release()
    assert saboteur.stopped, "the worker was never stopped"
    assert_finished_and_accounted(crawl)
    # exactly one page failed, with the worker's fate as its reason, counted and logged
    assert crawl.stat(f"bodytext/errors/worker_{reason}") == 1
    assert crawl.stats_under("bodytext/pages/failed/") == {f"bodytext/pages/failed/{reason}": 1}
    assert crawl.stat("item_dropped_reasons_count/ExtractionFailed") == 1
    failures = [line for line in crawl.log.splitlines() if "No main text (" in line]
    assert len(failures) == 1 and f"({reason}: worker " in failures[0] and " WARNING: " in failures[0]
    replaced = [line for line in crawl.log.splitlines() if "starting a new one" in line]
    assert len(replaced) == 1 and ("exceeded 5 s" if fate == "hangs" else "exit code -9") in replaced[0]
    # every other page got its verdict from the new worker, /after.html included
    lost_url = failures[0].rsplit(" ", 1)[1]
    stored, dropped = outcomes(crawl)
    assert lost_url not in stored and lost_url not in dropped
    assert len(stored) + len(dropped) == crawl.stat("bodytext/responses/tagged") - 1
    assert server.url("/after.html") in stored.keys() | dropped


def test_scaling_docs_give_every_pool_setting_with_its_default():
    docs = (Path(__file__).resolve().parent.parent / "docs" / "scaling.md").read_text(encoding="utf-8")
    for name in ("BODYTEXT_WORKERS", "BODYTEXT_THREADS", "BODYTEXT_WORKER_MAX_TASKS", "BODYTEXT_WORKER_TIMEOUT"):
        default = DEFAULTS[name]
        shown = f'"{default}"' if isinstance(default, str) else repr(default)
        assert f"| `{name}` | `{shown}` |" in docs, name
    for stat in ("pool_size", "started", "recycled", "replaced"):
        assert f"`bodytext/workers/{stat}`" in docs, stat
