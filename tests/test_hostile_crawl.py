"""A real crawl (HTTP server on 127.0.0.1, the add-on, a feed export) in which many served pages are
hostile: the crawl completes, every item is accounted for and the stats name each failure reason."""

from __future__ import annotations

import random
from urllib.parse import urlsplit

import pytest
from crawl_runner import ADDON, Crawl, run_crawl
from http_server import SiteServer

KINDS = ("dict", "item")
SENTENCE = (
    "The harbour authority said on Tuesday that the new ferry terminal would open in spring, after "
    "two years of work on the quay, the waiting hall and the roads around the old fish market."
)
FR = "Le conseil municipal a approuvé le budget lundi après un long débat sur les écoles et les routes."
ZH = "市议会周一在就学校、道路和公共交通的未来进行长时间辩论后批准了新预算。"
RU = "Городской совет утвердил новый бюджет в понедельник после долгих споров о школах и дорогах."
MAX_BODY_SIZE = 2_000_000
MAX_NODES = 20_000


def article(text: str, *, head: str = "", paragraphs: int = 8) -> str:
    body = "".join(f"<p>{text}</p>" for _ in range(paragraphs))
    return (
        f"<!DOCTYPE html><html><head>{head}<title>News</title></head><body>"
        f'<div class="nav"><a href="/hostile.html">Home</a></div><article><h1>News</h1>{body}</article>'
        "</body></html>"
    )


#: path -> (body, Content-Type, expected failure reason or None for a page the extractor judges)
HOSTILE = {
    "/pdf.html": (b"%PDF-1.7\n" + random.Random(1).randbytes(30_000), "text/html", "not_html"),
    "/random.html": (random.Random(2).randbytes(30_000), "text/html; charset=utf-8", "not_html"),
    "/empty.html": (b"", "text/html", "empty"),
    "/blank.html": (b" \r\n\t " * 500, "text/html", "empty"),
    "/comments.html": (b"<!-- nothing here -->" * 200, "text/html", "empty"),
    "/frameset.html": (
        b'<html><frameset cols="50%,50%"><frame src="/a"><frame src="/b"></frameset></html>',
        "text/html",
        "empty",
    ),
    "/svg.html": (b'<svg xmlns="http://www.w3.org/2000/svg"><text>Vector</text></svg>', "text/html", "empty"),
    "/huge.html": (
        article(SENTENCE, paragraphs=MAX_BODY_SIZE // len(SENTENCE) + 10).encode(),
        "text/html",
        "too_large",
    ),
    "/many-nodes.html": (
        ("<html><body>" + "<span>x</span>" * (2 * MAX_NODES) + "</body></html>").encode(),
        "text/html",
        "too_many_nodes",
    ),
    "/deep.html": (
        (
            article(SENTENCE)[:-14]
            + "<div>" * (MAX_NODES // 2)
            + SENTENCE
            + "</div>" * (MAX_NODES // 2)
            + "</body></html>"
        ).encode(),
        "text/html",
        None,
    ),
    "/nul.html": (article(SENTENCE).encode() + b"\x00" * 50_000, "text/html", None),
    "/truncated.html": (article(SENTENCE).encode()[:900], "text/html", None),
    "/declared-utf8-is-cp1252.html": (article(FR, head='<meta charset="utf-8">').encode("cp1252"), "text/html", None),
    "/undeclared-gbk.html": (article(ZH).encode("gbk"), "text/html", None),
    "/undeclared-windows-1251.html": (article(RU).encode("cp1251"), "text/html", None),
    "/utf-16.html": (("\ufeff" + article(FR)).encode("utf-16-le"), "text/html", None),
    "/utf-16-no-bom.html": (article(RU).encode("utf-16-be"), "text/html", None),
    "/xml-declaration.html": (
        ('<?xml version="1.0" encoding="ISO-8859-1"?>' + article(FR)).encode("cp1252"),
        "application/xhtml+xml",
        None,
    ),
}
#: text each decoded page must yield (the page is stored: non-articles are kept in this crawl)
EXPECTED_TEXT = {
    "/declared-utf8-is-cp1252.html": FR,
    "/undeclared-gbk.html": ZH,
    "/undeclared-windows-1251.html": RU,
    "/utf-16.html": FR,
    "/utf-16-no-bom.html": RU,
    "/xml-declaration.html": FR,
    "/nul.html": SENTENCE,
}
INDEX = (
    "<html><body><h1>Everything</h1><ul>"
    + "".join(f'<li><a href="{path}">{path}</a></li>' for path in HOSTILE)
    + "</ul></body></html>"
).encode()


@pytest.fixture(scope="module")
def crawl(tmp_path_factory) -> Crawl:
    pages = {path: (body, content_type) for path, (body, content_type, _) in HOSTILE.items()}
    with SiteServer({**pages, "/hostile.html": (INDEX, "text/html")}) as server:
        return run_crawl(
            tmp_path_factory.mktemp("hostile"),
            settings={
                "ADDONS": ADDON,
                "BODYTEXT_DROP_NON_ARTICLES": False,
                "BODYTEXT_ON_FAILURE": "drop",
                "BODYTEXT_MAX_BODY_SIZE": MAX_BODY_SIZE,
                "BODYTEXT_MAX_NODES": MAX_NODES,
            },
            start=server.url("/hostile.html"),
            kinds=",".join(KINDS),
        )


def path_of(item: dict) -> str:
    return urlsplit(item["url"]).path


def test_the_crawl_completes_cleanly(crawl):
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert crawl.stats.get("finish_reason") == "finished", crawl.log[-3000:]
    assert "Traceback" not in crawl.log, crawl.log[-3000:]
    assert crawl.stat("log_count/ERROR") == 0
    assert crawl.stat("downloader/response_status_count/200") == len(HOSTILE) + 1


def test_every_item_is_stored_or_dropped_with_a_reason(crawl):
    pages = len(HOSTILE) + 1
    assert crawl.stat("bodytext/responses/tagged") + crawl.stat("bodytext/responses/skipped/too_large") == pages
    items_in = len(KINDS) * pages  # the spider yields one item of each kind for every page
    assert crawl.stored == crawl.stat("item_scraped_count")
    assert sum(crawl.stats_under("item_dropped_reasons_count/").values()) == crawl.dropped
    assert crawl.stored + crawl.dropped == items_in


def test_stats_and_log_name_every_failure_reason(crawl):
    expected: dict[str, int] = {}
    for _, _, reason in HOSTILE.values():
        if reason is not None:
            expected[reason] = expected.get(reason, 0) + 1
    assert crawl.stats_under("bodytext/pages/failed/") == {
        f"bodytext/pages/failed/{reason}": count for reason, count in expected.items()
    }
    for reason, count in expected.items():
        assert crawl.stat(f"bodytext/items/failed/{reason}") == len(KINDS) * count
        logged = [line for line in crawl.log.splitlines() if "No main text" in line and f"({reason}:" in line]
        assert len(logged) == count  # once per page, not once per item
    assert crawl.stat("item_dropped_reasons_count/ExtractionFailed") == len(KINDS) * sum(expected.values())


def test_failed_pages_are_dropped_and_the_others_stored_with_their_text(crawl):
    stored: dict[str, list[dict]] = {}
    for item in crawl.items:
        stored.setdefault(path_of(item), []).append(item)
    judged = {path for path, (_, _, reason) in HOSTILE.items() if reason is None} | {"/hostile.html"}
    assert set(stored) == judged
    for items in stored.values():
        assert sorted(item["kind"] for item in items) == sorted(KINDS)
        for item in items:
            assert isinstance(item["main_text"], str)
            assert 0.0 <= item["article_probability"] <= 1.0
    for path, text in EXPECTED_TEXT.items():
        assert text in stored[path][0]["main_text"], path
