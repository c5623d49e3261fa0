"""Settings checked when a real ``scrapy crawl`` / ``scrapy runspider`` starts: an invalid value is one
error line and exit status 1, unknown names one warning, and the command line's spellings of "no
field" work. Each test runs the scrapy command in a fresh process against a real HTTP server."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from crawl_runner import without_copy_fields
from http_server import SiteServer, site_pages

SPIDER = """
import scrapy


class PagesSpider(scrapy.Spider):
    name = "pages"
    custom_settings = {CUSTOM}

    def __init__(self, start="", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response):
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)
"""
PROJECT_SETTINGS = """
SPIDER_MODULES = ["newsproject.spiders"]
ADDONS = {"scrapy_bodytext.Addon": 0}
ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
"""
ADDON = {"ADDONS": {"scrapy_bodytext.Addon": 0}}
BY_HAND = {
    "DOWNLOADER_MIDDLEWARES": {"scrapy_bodytext.BodyTextDownloaderMiddleware": 575},
    "SPIDER_MIDDLEWARES": {"scrapy_bodytext.BodyTextSpiderMiddleware": 40},
    "ITEM_PIPELINES": {"scrapy_bodytext.BodyTextPipeline": 200},
}
#: Scrapy's ways of running a crawler's start-up: the default asyncio reactor, and no reactor at all
REACTORS = {"asyncio": [], "reactorless": ["-s", "TWISTED_REACTOR_ENABLED=False"]}


@pytest.fixture(scope="module")
def site():
    requests: list[str] = []
    lock = threading.Lock()

    def record(target, headers):
        with lock:
            requests.append(target)

    with SiteServer(site_pages(), on_request=record) as server:
        server.requests = requests
        yield server


def write_runspider(folder: Path, custom: dict) -> list[str]:
    path = folder / "pages_spider.py"
    path.write_text(SPIDER.replace("{CUSTOM}", repr(custom)))
    return ["runspider", str(path)]


def write_project(folder: Path) -> list[str]:
    package = folder / "newsproject"
    (package / "spiders").mkdir(parents=True)
    (folder / "scrapy.cfg").write_text("[settings]\ndefault = newsproject.settings\n")
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(PROJECT_SETTINGS)
    (package / "spiders" / "__init__.py").write_text("")
    (package / "spiders" / "pages.py").write_text(SPIDER.replace("{CUSTOM}", "{}"))
    return ["crawl", "pages"]


def scrapy(folder: Path, command: list[str], *args: str) -> tuple[int, str]:
    """Run ``scrapy <command> <args>`` in ``folder``; its exit status and everything it printed."""
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", *command, *args], cwd=folder, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stdout + done.stderr


def lines_at(level: str, output: str) -> list[str]:
    return [line for line in output.splitlines() if f"] {level}: " in line]


@pytest.mark.parametrize("reactor", REACTORS)
@pytest.mark.parametrize("command", ["crawl", "runspider", "runspider by hand"])
def test_an_invalid_setting_is_one_error_line_and_exit_status_1(site, tmp_path, command, reactor):
    if command == "crawl":
        run = write_project(tmp_path)
    else:
        run = write_runspider(tmp_path, ADDON if command == "runspider" else BY_HAND)
    before = len(site.requests)
    status, output = scrapy(
        tmp_path,
        run,
        "-a",
        f"start={site.url('/index.html')}",
        *REACTORS[reactor],
        "-s",
        "BODYTEXT_STATUS_CODES=200,abc",
    )
    assert status == 1, output[-3000:]
    errors = lines_at("ERROR", output) + lines_at("CRITICAL", output)
    if command == "runspider by hand" and reactor == "reactorless":
        # without the add-on nothing of the plugin runs before Scrapy's downloader has opened its HTTP
        # sessions, which Scrapy does not close when a component fails at start-up: it says so itself
        errors = [line for line in errors if not line.endswith("[asyncio] ERROR: Unclosed client session")]
    assert len(errors) == 1, output[-3000:]
    assert "BODYTEXT_STATUS_CODES: entry 'abc': expected an HTTP status code (100-599)" in errors[0]
    assert "Traceback" not in output and "never retrieved" not in output
    assert len(site.requests) == before  # stopped before the first request


def test_with_a_non_asyncio_reactor_the_error_line_comes_first(site, tmp_path):
    """Scrapy's Deferred-based process has no start-up task to mark: Twisted logs its own traceback
    after the plugin's line; the exit status is 1 all the same."""
    status, output = scrapy(
        tmp_path,
        write_runspider(tmp_path, ADDON),
        "-a",
        f"start={site.url('/index.html')}",
        "-s",
        "TWISTED_REACTOR=twisted.internet.selectreactor.SelectReactor",
        "-s",
        "BODYTEXT_ARTICLE_THRESHOLD=high",
    )
    assert status == 1
    errors = lines_at("ERROR", output) + lines_at("CRITICAL", output)
    assert "BODYTEXT_ARTICLE_THRESHOLD: expected a number within [0.0, 1.0] (got 'high')" in errors[0]


def test_unknown_settings_get_one_warning_with_the_names_meant(site, tmp_path):
    feed = tmp_path / "items.jsonl"
    status, output = scrapy(
        tmp_path,
        write_runspider(tmp_path, ADDON),
        "-a",
        f"start={site.url('/index.html')}",
        "-s",
        "BODYTEXT_TRESHOLD=0.9",
        "-s",
        "BODYTEXT_ITEM_CLASS=dict",
        "-s",
        "BODYTEXT_QWERTY=1",
        "-O",
        str(feed),
    )
    assert status == 0, output[-3000:]
    warnings = [line for line in lines_at("WARNING", output) if "BODYTEXT_" in line]
    assert len(warnings) == 1, warnings
    assert (
        "Unknown settings ignored: BODYTEXT_ITEM_CLASS (did you mean BODYTEXT_ITEM_CLASSES?), BODYTEXT_QWERTY, "
        "BODYTEXT_TRESHOLD (did you mean BODYTEXT_ARTICLE_THRESHOLD?)"
    ) in warnings[0]
    assert "'finish_reason': 'finished'" in output and feed.read_text()


@pytest.mark.parametrize("none", ["None", ""])
def test_none_or_empty_on_the_command_line_writes_no_field(site, tmp_path, none):
    feed = tmp_path / "items.jsonl"
    status, output = scrapy(
        tmp_path,
        write_runspider(tmp_path, ADDON),
        "-a",
        f"start={site.url('/index.html')}",
        "-s",
        f"BODYTEXT_TEXT_FIELD={none}",
        "-s",
        "BODYTEXT_FIELDS=default,language",
        "-O",
        str(feed),
    )
    assert status == 0, output[-3000:]
    items = [json.loads(line) for line in feed.read_text().splitlines()]
    assert items and "item_dropped_reasons_count/NotAnArticle" in output  # verdicts still applied
    assert all(without_copy_fields(item) == {"url", "article_probability", "language"} for item in items)


def test_a_review_feed_scrapy_cannot_write_is_one_error_line(site, tmp_path):
    status, output = scrapy(
        tmp_path,
        write_runspider(tmp_path, ADDON),
        "-a",
        f"start={site.url('/index.html')}",
        "-s",
        "BODYTEXT_REJECTED_FEED=rejected.xyz",
    )
    assert status == 1 and "Traceback" not in output
    errors = lines_at("ERROR", output) + lines_at("CRITICAL", output)
    assert len(errors) == 1 and "BODYTEXT_REJECTED_FEED: 'rejected.xyz': unknown feed format 'xyz'" in errors[0]
