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
IN_BODY = ("share", "topics", "photo", "ad_label", "ad_inline", "related", "comments", "most_read", "partner",
           "reply", "more_comments", "read_time", "sign_in", "newsletter_button")


def lines_of(path: str) -> list[str]:
    result = extract((SITE / path).read_bytes(), url=f"http://news.example/{path}")
    assert result.is_article, path
    return [" ".join(line.split()) for line in result.text.splitlines()]


@pytest.mark.parametrize("path", sorted(ARTICLES))
def test_no_in_body_boilerplate_line(path):
    ui = ui_text.UI[ARTICLES[path]["lang"]]
    furniture = {" ".join(str(ui[key]).replace("{minutes}", r"\d+").split()) for key in IN_BODY}
    patterns = [re.compile(re.escape(line).replace(re.escape(r"\d+"), r"\d+") + r"\W*", re.IGNORECASE)
                for line in furniture]
    found = [line for line in lines_of(path) if any(p.fullmatch(line) for p in patterns)]
    assert not found, f"boilerplate lines kept: {found}"


def test_the_eels_article_keeps_its_data_table():
    source = (PROJECT / "sitegen" / "articles" / "01-eels-harwick-weir.txt").read_text("utf-8")
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in source.splitlines()
            if line.startswith("|")]
    assert len(rows) == 4
    lines = lines_of("article/eels-harwick-weir.html")
    for row in rows:
        assert "\t".join(row) in lines, f"table row missing: {row}"
