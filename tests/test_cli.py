"""The command line: extract from files and stdin, option errors, evaluate on a small corpus."""

from __future__ import annotations

import dataclasses
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_bodytext import extractors
from scrapy_bodytext.cli import main
from scrapy_bodytext.evaluation.report import available_extractors

PARAGRAPH = (
    "The river rose through the night and by morning the old bridge was under water, "
    "so the village council met in the school hall to decide what to do next. "
)
ARTICLE = f"""<html><head><title>Flood</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<article><h1>The bridge is under water</h1>
<p>{PARAGRAPH * 3}</p><p>{PARAGRAPH * 2}</p><p>{PARAGRAPH * 2}</p></article>
<footer><a href="/about">About us</a> <a href="/contact">Contact</a></footer></body></html>"""
LISTING = (
    "<html><body><ul>"
    + "".join(f'<li><a href="/story/{i}">Story number {i} of the day</a></li>' for i in range(60))
    + "</ul></body></html>"
)
JSON_KEYS = {"path", "url", "text", "article_probability", "is_article", "extractor", "reason"}


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse and usage errors
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_process(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy_bodytext", *args], input=stdin, capture_output=True, timeout=120, check=False
    )


@pytest.fixture
def article_file(tmp_path: Path) -> Path:
    path = tmp_path / "article.html"
    path.write_text(ARTICLE, encoding="utf-8")
    return path


def test_extract_prints_main_text_of_a_file(capsys, article_file):
    code, out, err = run(capsys, "extract", str(article_file))
    assert code == 0, err
    assert "The bridge is under water" in out
    assert "the village council met in the school hall" in out
    assert "==>" not in out  # one input: no header


def test_extract_several_files_gets_one_header_each(capsys, article_file, tmp_path):
    other = tmp_path / "other.html"
    other.write_text(ARTICLE.replace("bridge", "tunnel"), encoding="utf-8")
    code, out, _ = run(capsys, "extract", str(article_file), str(other))
    assert code == 0
    assert out.index(f"==> {article_file} <==") < out.index(f"==> {other} <==")
    assert "tunnel" in out.split(f"==> {other} <==")[1]


def test_extract_reads_stdin():
    done = run_process("extract", "-", stdin=ARTICLE.encode("utf-8"))
    assert done.returncode == 0, done.stderr
    assert b"the village council met in the school hall" in done.stdout


def test_extract_json_has_one_object_per_input(capsys, article_file, tmp_path):
    listing = tmp_path / "listing.html"
    listing.write_text(LISTING, encoding="utf-8")
    code, out, _ = run(capsys, "extract", "--json", "--url", "https://example.org/x", str(article_file), str(listing))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["path"] for row in rows] == [str(article_file), str(listing)]
    for row in rows:
        assert JSON_KEYS <= set(row)
        assert row["url"] == "https://example.org/x"
        assert row["extractor"] == extractors.DEFAULT_EXTRACTOR
        assert 0.0 <= row["article_probability"] <= 1.0
        assert row["is_article"] == (row["article_probability"] >= 0.5 and bool(row["text"]))
    assert "the village council" in rows[0]["text"]


def test_the_output_format_and_links(capsys, tmp_path):
    """--format writes the same selection as Markdown or HTML, --links its links made absolute against
    --url; JSON says which format the text is in."""
    page = tmp_path / "page.html"
    page.write_text(ARTICLE.replace("<p>", '<p>See <a href="/maps/river">the map</a>. ', 1), encoding="utf-8")
    url = ("--url", "https://example.org/news/flood.html")
    code, plain, _ = run(capsys, "extract", "--json", *url, str(page))
    code, markdown, _ = run(capsys, "extract", "--json", "--format", "markdown", "--links", *url, str(page))
    assert code == 0
    plain, markdown = json.loads(plain), json.loads(markdown)
    assert (plain["output_format"], markdown["output_format"]) == ("text", "markdown")
    assert "# The bridge is under water\n\nSee [the map](https://example.org/maps/river). The river" in markdown["text"]
    assert markdown["text"].replace("# ", "").replace("[the map](https://example.org/maps/river)", "the map") == plain[
        "text"
    ].replace("\n", "\n\n")
    assert markdown["article_probability"] == plain["article_probability"]
    code, html, _ = run(capsys, "extract", "-q", "--format", "html", str(page))
    assert code == 0 and html.startswith("<article>\n<h1>The bridge is under water</h1>\n<p>See the map. The river")


def test_threshold_and_extractor_are_passed_on(capsys, article_file):
    present, _ = available_extractors()
    for name in present:
        code, out, _ = run(capsys, "extract", "--json", "--threshold", "0", "--extractor", name, str(article_file))
        row = json.loads(out)
        assert code == 0 and row["extractor"] == name
        assert row["is_article"] == bool(row["text"])  # every page with text passes threshold 0


def test_gzipped_pages_are_read_and_damaged_ones_reported(capsys, tmp_path):
    packed = tmp_path / "page.html.gz"
    packed.write_bytes(gzip.compress(ARTICLE.encode("utf-8")))
    code, out, _ = run(capsys, "extract", str(packed))
    assert code == 0 and "the village council met in the school hall" in out
    damaged = tmp_path / "damaged.html.gz"
    damaged.write_bytes(gzip.compress(ARTICLE.encode("utf-8"))[:12] + b"\xff" * 40)
    code, out, err = run(capsys, "extract", str(damaged), str(packed))
    assert code == 1 and "damaged.html.gz: damaged gzip data" in err
    assert "the village council" in out


def test_output_file(capsys, article_file, tmp_path):
    target = tmp_path / "out.jsonl"
    code, out, _ = run(capsys, "extract", "--json", "-o", str(target), str(article_file))
    assert code == 0 and out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["path"] == str(article_file)


def test_empty_input_says_why_there_is_no_text(capsys, tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    code, out, err = run(capsys, "extract", str(empty))
    assert code == 0 and out == ""
    assert f"== {empty}: no main text (P(article) 0.00 < 0.50, empty" in err


def test_missing_file_is_reported_and_the_others_still_run(capsys, article_file, tmp_path):
    code, out, err = run(capsys, "extract", str(tmp_path / "nope.html"), str(article_file))
    assert code == 1
    assert "nope.html" in err
    assert "the village council" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--extractor", "nosuch"], "unknown extractor 'nosuch'"),
        (["--threshold", "1.5"], "expected a number in [0, 1]"),
        (["--threshold", "high"], "expected a number in [0, 1]"),
        (["--option", "novalue"], "expects KEY=VALUE"),
        (["--option", "no_such_option=1"], "has no option 'no_such_option'"),
        (["--option", "nosuch.x=1"], "unknown extractor 'nosuch'"),
        (["--format", "pdf"], "invalid choice: 'pdf'"),
    ],
)
def test_bad_arguments_exit_2_with_a_clear_message(capsys, article_file, args, message):
    code, out, err = run(capsys, "extract", *args, str(article_file))
    assert code == 2
    assert message in err
    assert out == ""


def _numeric_option() -> tuple[str, str, object] | None:
    """(extractor, option, default) of some available extractor's numeric option."""
    for name in available_extractors()[0]:
        for f in dataclasses.fields(extractors.load(name).Options):
            if type(f.default) in (int, float):
                return name, f.name, f.default
    return None


def test_extractor_options_are_typed_and_validated(capsys, article_file):
    found = _numeric_option()
    assert found is not None, "no available extractor has a numeric option to test with"
    name, option, default = found
    code, out, err = run(
        capsys, "extract", "--json", "--extractor", name, "--option", f"{option}={default}", str(article_file)
    )
    assert code == 0, err
    assert json.loads(out)["extractor"] == name
    code, _, err = run(capsys, "extract", "--extractor", name, "--option", f"{option}=lots", str(article_file))
    assert code == 2
    assert "expected" in err and "'lots'" in err


def test_no_command_or_unknown_command_is_a_usage_error(capsys):
    assert run(capsys)[0] == 2
    assert run(capsys, "frobnicate")[0] == 2


def test_extractors_command_lists_every_registered_name(capsys):
    code, out, _ = run(capsys, "extractors")
    assert code == 0
    listed = {line.split()[0].rstrip(":") for line in out.splitlines() if not line.startswith(" ")}
    assert listed == set(extractors.names())


def test_console_script_and_module_start_without_scrapy(article_file):
    script = Path(sys.executable).with_name("scrapy-bodytext")
    if script.exists():
        done = subprocess.run([str(script), "--help"], capture_output=True, timeout=60, check=False)
        assert done.returncode == 0 and b"extract" in done.stdout
    probe = (
        "import sys; from scrapy_bodytext.cli import main; code = main(['extract', sys.argv[1]]); "
        "assert 'scrapy' not in sys.modules and 'twisted' not in sys.modules, 'Scrapy imported'; "
        "sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(article_file)], capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr


# --- evaluate ------------------------------------------------------------------------------------------


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    """Three article pages (two sources, one file gzipped) and two non-articles."""
    folder = tmp_path / "corpus"
    (folder / "pages").mkdir(parents=True)
    rows = []
    gold = "The bridge is under water\n" + (PARAGRAPH * 7).strip()
    for i, (source, body) in enumerate(
        [
            ("news", ARTICLE),
            ("news", ARTICLE.replace("bridge", "tunnel")),
            ("blogs", ARTICLE),
            ("lists", LISTING),
            ("lists", LISTING.replace("Story", "Item")),
        ]
    ):
        name = f"pages/p{i}.html" + (".gz" if i == 0 else "")
        data = body.encode("utf-8")
        (folder / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        is_article = source != "lists"
        rows.append(
            {
                "id": f"p{i}",
                "source": source,
                "url": None,
                "file": name,
                "is_article": is_article,
                "gold_text": gold.replace("bridge", "tunnel") if i == 1 else gold if is_article else "",
                "lang": "en",
            }
        )
    (folder / "index.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return folder


def test_evaluate_json_figures(capsys, tiny_corpus):
    code, out, err = run(capsys, "evaluate", str(tiny_corpus), "--extractor", extractors.DEFAULT_EXTRACTOR, "--json")
    assert code == 0, err
    report = json.loads(out)
    figures = report["extractors"][extractors.DEFAULT_EXTRACTOR]
    for key in (
        "f1_mean",
        "f1_median",
        "shingle_precision",
        "shingle_recall",
        "shingle_f1",
        "accuracy",
        "articles_dropped",
        "non_articles_kept",
        "roc_auc",
        "brier",
        "reliability",
        "pages_per_s",
        "peak_rss_mb",
        "errors",
        "over_time_limit",
        "by_source",
    ):
        assert key in figures, key
    assert (figures["pages"], figures["articles"], figures["non_articles"]) == (5, 3, 2)
    assert set(figures["by_source"]) == {"news", "blogs", "lists"}
    assert figures["by_source"]["news"]["articles"] == 2
    assert 0.5 < figures["f1_mean"] <= 1.0  # the article text is plain paragraphs; gold is that text
    assert figures["errors"] == 0
    assert figures["pages_per_s"] > 0 and figures["peak_rss_mb"] > 0
    assert report["machine"]["cpu_count"] >= 1


def test_evaluate_defaults_to_every_available_extractor_and_prints_tables(capsys, tiny_corpus):
    code, out, err = run(capsys, "evaluate", str(tiny_corpus))
    assert code == 0, err
    present, missing = available_extractors()
    header = next(line for line in out.splitlines() if line.startswith("| extractor"))
    rows = [
        line.split("|")[1].strip()
        for line in out.splitlines()
        if line.startswith("| ") and line.split("|")[1].strip() in extractors.EXTRACTORS
    ]
    assert "shingle F1" in header and "pages/s" in header
    assert set(rows) >= set(present)
    assert all(f" {source} " in out for source in ("news (2)", "blogs (1)", "lists (2)"))  # per-source table
    if missing:
        assert "Not available in this installation: " + ", ".join(missing) in out


def test_evaluate_reports_pages_over_the_time_limit_without_failing(capsys, tiny_corpus):
    code, out, _ = run(
        capsys,
        "evaluate",
        str(tiny_corpus),
        "--extractor",
        extractors.DEFAULT_EXTRACTOR,
        "--time-limit",
        "1e-9",
        "--json",
    )
    assert code == 0
    assert json.loads(out)["extractors"][extractors.DEFAULT_EXTRACTOR]["over_time_limit"] == 5


def test_evaluate_errors(capsys, tmp_path, tiny_corpus):
    code, _, err = run(capsys, "evaluate", str(tmp_path))
    assert code == 2 and "no index.jsonl" in err
    code, _, err = run(capsys, "evaluate", str(tiny_corpus), "--extractor", "nosuch")
    assert code == 2 and "unknown extractor 'nosuch'" in err
    with open(tiny_corpus / "index.jsonl", "a", encoding="utf-8") as index:
        index.write('{"id": "broken", "file": "pages/missing.html", "is_article": true}\n')
    code, _, err = run(capsys, "evaluate", str(tiny_corpus), "--extractor", extractors.DEFAULT_EXTRACTOR)
    assert code == 2 and "index.jsonl:6: FileNotFoundError" in err


def test_evaluate_names_the_missing_field_and_its_line_in_one_line(tiny_corpus):
    lines = (tiny_corpus / "index.jsonl").read_text("utf-8").splitlines()
    row = json.loads(lines[2])
    del row["is_article"]
    lines[2] = json.dumps(row)
    (tiny_corpus / "index.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_process("evaluate", str(tiny_corpus), "--extractor", extractors.DEFAULT_EXTRACTOR)
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        f"scrapy-bodytext evaluate: error: {tiny_corpus / 'index.jsonl'}:3: missing field 'is_article'"
    ]


SITE_ARTICLE = (
    Path(__file__).resolve().parent.parent
    / "example_project"
    / "news_example"
    / "site"
    / "article"
    / "eels-harwick-weir.html"
)


def test_comments_are_written_apart_when_asked(capsys):
    code, out, _ = run(capsys, "extract", "-q", str(SITE_ARTICLE))
    assert code == 0 and "--- comments ---" not in out
    code, out, _ = run(capsys, "extract", "-q", "--comments", str(SITE_ARTICLE))
    text, mark, comments = out.partition("--- comments ---\n")
    assert code == 0 and mark and text.strip() and comments.strip()
    assert not set(comments.splitlines()) & set(text.splitlines()), "a comment line also in the main text"
    code, out, _ = run(capsys, "extract", "--json", "--comments", str(SITE_ARTICLE))
    row = json.loads(out)
    assert row["comments"] == comments.rstrip("\n") and row["text"] == text.rstrip("\n")
