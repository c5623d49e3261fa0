"""Runs one real Scrapy crawl in a fresh process (Scrapy's default asyncio reactor, as ``scrapy crawl``
does) and hands the feed, the stats and the log back to the test.

A process per crawl keeps the reactor, the add-on and the settings of one crawl from leaking into
the next. Scrapy deprecation warnings are errors inside the crawl as well.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ADDON = {"scrapy_bodytext.Addon": 0}


@dataclass
class Crawl:
    items: list[dict]
    stats: dict[str, Any]
    log: str
    returncode: int

    def stat(self, name: str) -> Any:
        return self.stats.get(name, 0)

    def stats_under(self, prefix: str) -> dict[str, Any]:
        return {name: value for name, value in self.stats.items() if name.startswith(prefix)}

    @property
    def dropped(self) -> int:
        return self.stat("item_dropped_count")

    @property
    def stored(self) -> int:
        return len(self.items)


def run_crawl(
    tmp_path: Path,
    spider: str = "crawl_spiders.SiteSpider",
    settings: dict | None = None,
    timeout: float = 120,
    **spider_args: str,
) -> Crawl:
    """Crawl with ``spider`` and ``settings`` (project priority); the feed is JSON Lines in tmp_path."""
    return start_crawl(tmp_path, spider, settings, **spider_args).finish(timeout)


@dataclass
class RunningCrawl:
    """A crawl process started by ``start_crawl``; ``finish`` waits for it and reads what it wrote."""

    process: subprocess.Popen
    folder: Path

    def finish(self, timeout: float = 120) -> Crawl:
        try:
            stdout, stderr = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            stdout, stderr = self.process.communicate()
            raise
        feed, stats, log = (self.folder / name for name in ("items.jsonl", "stats.json", "crawl.log"))
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        text += stdout + stderr
        items = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines()] if feed.exists() else []
        found_stats = json.loads(stats.read_text()) if stats.exists() else {}
        return Crawl(items, found_stats, text, self.process.returncode)


def start_crawl(
    tmp_path: Path, spider: str = "crawl_spiders.SiteSpider", settings: dict | None = None, **spider_args: str
) -> RunningCrawl:
    """``run_crawl`` without waiting: the running process (to signal it) and how to finish it."""
    feed, stats, log = tmp_path / "items.jsonl", tmp_path / "stats.json", tmp_path / "crawl.log"
    all_settings = {
        "FEEDS": {str(feed): {"format": "jsonlines", "encoding": "utf8"}},
        "LOG_FILE": str(log),
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        **(settings or {}),
    }
    spec = tmp_path / "crawl.json"
    spec.write_text(json.dumps({"spider": spider, "settings": all_settings, "args": spider_args, "stats": str(stats)}))
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__)), str(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=HERE,
    )
    return RunningCrawl(process, tmp_path)


def run_at_once(runs: dict[str, Callable[[], Crawl]]) -> dict[str, Crawl | BaseException]:
    """Each of ``runs`` (usually one crawl process each) in a thread of its own, all at once; what each
    returned, or the exception it raised (reported by the test, not lost in the thread)."""
    done: dict[str, Crawl | BaseException] = {}

    def run(name: str) -> None:
        try:
            done[name] = runs[name]()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            done[name] = exc

    threads = [threading.Thread(target=run, args=(name,)) for name in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done


def main(spec_path: str) -> None:
    import warnings

    from scrapy.crawler import CrawlerProcess
    from scrapy.exceptions import ScrapyDeprecationWarning
    from scrapy.utils.misc import load_object

    warnings.simplefilter("error", ScrapyDeprecationWarning)
    warnings.filterwarnings("error", category=DeprecationWarning, module="scrapy_bodytext")
    spec = json.loads(Path(spec_path).read_text())
    process = CrawlerProcess(spec["settings"])
    crawler = process.create_crawler(load_object(spec["spider"]))
    process.crawl(crawler, **spec["args"])
    process.start()
    Path(spec["stats"]).write_text(json.dumps(crawler.stats.get_stats(), default=str))


def without_copy_fields(item) -> set[str]:
    """The item's fields, less the two a repeated story gets (a test site may serve one story twice:
    docs/duplicates.md); a copy gets both or neither."""
    fields = set(item)
    copy_fields = {"duplicate_of", "duplicate_similarity"}
    assert not fields & copy_fields or copy_fields <= fields
    assert "duplicate_of" not in item or item["duplicate_of"] != item["url"]
    return fields - copy_fields


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main(sys.argv[1])
