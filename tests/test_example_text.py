"""The default method on the bundled example site: every article keeps its body, tables included, and
none of the in-body boilerplate lines the site puts between and around its paragraphs (share bars,
topic labels, picture credits, advertisement labels, related and comment headers), in each of the
site's five languages. What those lines are comes from the site generator's own text tables."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from scrapy_bodytext import extract

PROJECT = Path(__file__).resolve().parent.parent / "example_project"
SITE = PROJECT / "news_example" / "site"
sys.path.insert(0, str(PROJECT / "sitegen"))
import ui_text  # noqa: E402  (the generator's tables of the site's boilerplate)

MANIFEST = json.loads((SITE / "manifest.json").read_text("utf-8"))
ARTICLES = {page["path"]: page for page in MANIFEST if page["kind"] == "article"}
#: in-body lines of an article page that are never main text
IN_BODY = (
    "share",
    "topics",
    "photo",
    "ad_label",
    "ad_inline",
    "related",
    "comments",
    "most_read",
    "partner",
    "reply",
    "more_comments",
    "read_time",
    "sign_in",
    "newsletter_button",
)


def lines_of(path: str) -> list[str]:
    result = extract((SITE / path).read_bytes(), url=f"http://news.example/{path}")
    assert result.is_article, path
    return ["\t".join(" ".join(cell.split()) for cell in line.split("\t")) for line in result.text.splitlines()]


@pytest.mark.parametrize("path", sorted(ARTICLES))
def test_no_in_body_boilerplate_line(path):
    ui = ui_text.UI[ARTICLES[path]["lang"]]
    furniture = {" ".join(str(ui[key]).replace("{minutes}", r"\d+").split()) for key in IN_BODY}
    patterns = [
        re.compile(re.escape(line).replace(re.escape(r"\d+"), r"\d+") + r"\W*", re.IGNORECASE) for line in furniture
    ]
    found = [line for line in lines_of(path) if any(p.fullmatch(line) for p in patterns)]
    assert not found, f"boilerplate lines kept: {found}"


def test_the_eels_article_keeps_its_data_table():
    source = (PROJECT / "sitegen" / "articles" / "01-eels-harwick-weir.txt").read_text("utf-8")
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in source.splitlines()
        if line.startswith("|")
    ]
    assert len(rows) == 4
    lines = lines_of("article/eels-harwick-weir.html")
    for row in rows:
        assert "\t".join(row) in lines, f"table row missing: {row}"


def comments_of(source: Path) -> list[str]:
    """The reader comments an article's source file gives (the lines after ``=== comments``)."""
    _, _, section = source.read_text("utf-8").partition("\n=== comments\n")
    return [" ".join(line.split(" | ", 1)[1].split()) for line in section.strip().splitlines() if " | " in line]


@pytest.mark.parametrize("source", sorted((PROJECT / "sitegen" / "articles").glob("*.txt")), ids=lambda p: p.stem)
def test_reader_comments_come_apart_from_the_main_text(source):
    comments = comments_of(source)
    path = next(p for p in ARTICLES if p.endswith("/" + source.stem.split("-", 1)[1] + ".html"))
    result = extract((SITE / path).read_bytes(), url=f"http://news.example/{path}", comments=True)
    text, found = " ".join(result.text.split()), " ".join(result.comments.split())
    assert comments, "every article of the site has comments"
    for comment in comments:
        assert comment in found, f"comment missing from comments: {comment[:60]}"
        assert comment not in text, f"comment kept as main text: {comment[:60]}"
    assert extract((SITE / path).read_bytes(), url=f"http://news.example/{path}").comments == "", (
        "comments are off by default"
    )
