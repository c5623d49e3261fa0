"""``scrapy-bodytext evaluate --metadata``: the per-field comparisons and the report on a small corpus
with metadata labels, run as a user runs it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from scrapy_bodytext.cli import main
from scrapy_bodytext.evaluation.metadata import byline_f1, names_f1, same_day, same_language, same_text, same_url

BODY = ("<p>" + "The river rose through the night and by morning the old bridge was under water. " * 6 + "</p>") * 3


def test_comparisons():
    assert same_text("Bridge  under WATER", "bridge under water") == 1.0
    assert same_text("Bridge", None) == 0.0
    assert names_f1(["Jane Doe", "John Roe"], ["jane doe"]) == pytest.approx(2 / 3)
    assert names_f1(["Jane Doe"], []) == 0.0
    assert byline_f1("By Jane Doe", ["Jane Doe"]) == pytest.approx(0.8)
    assert same_day("2024-03-05T23:30:00-05:00", "2024-03-05") == 1.0  # the day as each states it
    assert same_day("2024-03-05", "2024-03-06T01:00:00+01:00") == 0.0
    assert same_language("en-US", "en") == 1.0 and same_language("en", "de") == 0.0
    assert same_url("https://a.example/x/", "https://a.example/x") == 1.0


@pytest.fixture
def labelled_corpus(tmp_path: Path) -> Path:
    """Two labelled article pages of two sources, one unlabelled page, one labelled non-article."""
    folder = tmp_path / "corpus"
    (folder / "pages").mkdir(parents=True)
    pages = [
        (
            "a1",
            "news",
            True,
            {"title": "Bridge under water", "authors": ["Jane Doe"], "published": "2024-03-05"},
            '<meta property="og:title" content="Bridge under water | Valley Post">'
            '<meta property="og:site_name" content="Valley Post"><meta name="author" content="Jane Doe">'
            '<meta property="article:published_time" content="2024-03-05T08:00:00+01:00">',
        ),
        (
            "a2",
            "blogs",
            True,
            {"title": "Tunnel opens", "byline": "By John Roe", "language": "en-GB"},
            "<title>Tunnel opens</title>",
        ),
        ("a3", "news", True, None, "<title>No labels here</title>"),
        ("n1", "lists", False, {"title": "Latest news"}, "<title>Latest news</title>"),
    ]
    rows = []
    for key, source, is_article, meta, head in pages:
        lang = "en-GB" if key == "a2" else "en"
        byline = '<p class="byline">By John Roe</p>' if key == "a2" else ""
        html = f'<html lang="{lang}"><head>{head}</head><body><h1>x</h1>{byline}{BODY}</body></html>'
        (folder / "pages" / f"{key}.html").write_text(html, encoding="utf-8")
        row = {
            "id": key,
            "source": source,
            "url": f"https://valley.example/{key}",
            "file": f"pages/{key}.html",
            "is_article": is_article,
            "gold_text": "",
        }
        if meta:
            row["meta"] = meta
        rows.append(row)
    (folder / "index.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return folder


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_evaluate_metadata_json(capsys, labelled_corpus):
    code, out, err = run(capsys, "evaluate", str(labelled_corpus), "--metadata", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["labelled_pages"], report["labelled_articles"]) == (3, 2)
    ours = report["methods"]["bodytext"]
    assert ours["errors"] == 0
    fields = ours["fields"]  # over the two labelled articles
    assert fields["title exact"] == {"pages": 2, "score": 1.0, "coverage": 1.0}
    assert fields["authors set-F1"]["score"] == 1.0
    assert fields["byline token-F1"]["score"] == pytest.approx(0.8)  # "By" is not a name
    assert fields["published day"]["score"] == 1.0
    assert fields["language"]["score"] == 1.0
    assert set(ours["by_source"]) == {"news", "blogs", "lists"}
    assert ours["by_source"]["lists"]["fields"]["title exact"]["pages"] == 1
    for peer in ("trafilatura", "htmldate"):
        assert (peer in report["methods"]) == (importlib.util.find_spec(peer) is not None)
        assert (peer in report["missing"]) == (importlib.util.find_spec(peer) is None)


def test_evaluate_metadata_tables(capsys, labelled_corpus):
    code, out, err = run(capsys, "evaluate", str(labelled_corpus), "--metadata")
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("| method"))
    for column in ("title exact (2)", "authors set-F1 (1)", "published day (1)", "ms/page"):
        assert column in header
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert "bodytext" in rows
    assert "news (1 page)" in out and "lists (1 page, 1 non-article)" in out


@pytest.mark.skipif(importlib.util.find_spec("htmldate") is None, reason="htmldate not installed (peers extra)")
def test_htmldate_is_asked_only_for_dates(capsys, labelled_corpus):
    code, out, _ = run(capsys, "evaluate", str(labelled_corpus), "--metadata", "--json")
    assert code == 0
    assert set(json.loads(out)["methods"]["htmldate"]["fields"]) == {"published day"}


def test_evaluate_metadata_errors(capsys, labelled_corpus):
    code, _, err = run(capsys, "evaluate", str(labelled_corpus), "--metadata", "--extractor", "nosuch")
    assert code == 2 and "unknown extractor 'nosuch'" in err
    code, _, err = run(
        capsys, "evaluate", str(labelled_corpus), "--metadata", "--extractor", "bte", "--extractor", "ttr"
    )
    assert code == 2 and "at most one --extractor" in err
