"""``scrapy-bodytext extract`` over saved pages and their URLs: a folder's files joined to --base-url,
each file's own URL from --url-list, the site memory keyed by those URLs, one warning when pages are
judged without their URL, and --links refused where there is no link to write."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_cli import run  # the command run in this process, its exit status and output

SITE = Path(__file__).resolve().parent.parent / "example_project" / "news_example" / "site"
WARNING = "warning: pages judged without their URL"


@pytest.fixture(scope="module")
def saved_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved copy of the example project's site: its pages only, under a folder of their own."""
    folder = tmp_path_factory.mktemp("saved") / "site"
    shutil.copytree(SITE, folder, ignore=shutil.ignore_patterns("*.json"))
    return folder


def test_a_folders_files_get_the_base_url_joined_with_their_path(capsys, saved_site: Path):
    code, out, err = run(capsys, "extract", "--json", "-j", "1", "--base-url", "https://news.example", str(saved_site))
    assert code == 0, err
    urls = {
        Path(row["path"]).relative_to(saved_site).as_posix(): row["url"] for row in map(json.loads, out.splitlines())
    }
    assert urls["tag/rivers.html"] == "https://news.example/tag/rivers.html"
    assert urls["index.html"] == "https://news.example/index.html"
    assert len(urls) == len(list(SITE.rglob("*.html")))
    assert WARNING not in err


def test_a_url_list_gives_each_file_its_own_url_before_the_base_url(capsys, saved_site: Path, tmp_path: Path):
    listing = tmp_path / "urls.tsv"
    page = saved_site / "tag" / "rivers.html"
    listing.write_text(f"# saved pages\n{page}\thttps://other.example/topics/rivers\n", encoding="utf-8")
    code, out, err = run(
        capsys, "extract", "--json", "--url-list", str(listing), "--base-url", "https://news.example/", str(page)
    )
    assert code == 0, err
    assert json.loads(out)["url"] == "https://other.example/topics/rivers"


def test_the_url_is_evidence_a_tag_page_is_judged_with(capsys, saved_site: Path):
    """The same bytes, judged as a tag page of a site and with no URL: the URL lowers a list page."""
    page = str(saved_site / "tag" / "rivers.html")
    _, with_url, _ = run(capsys, "extract", "--json", "--base-url", "https://news.example/tag/", page)
    _, without, err = run(capsys, "extract", "--json", page)
    assert json.loads(with_url)["article_probability"] < json.loads(without)["article_probability"]
    assert err.count(WARNING) == 1


def test_pages_judged_without_their_url_are_said_once_with_what_it_costs(capsys, saved_site: Path):
    code, out, err = run(capsys, "extract", "-j", "1", "--site-memory", "on", "--json", str(saved_site))
    assert code == 0, err
    assert err.count(WARNING) == 1 and "non-articles" in err and "--site-memory" in err
    assert all(json.loads(line)["url"] is None for line in out.splitlines())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--links"], "--links writes the links in Markdown or HTML"),
        (["--base-url", "news.example/"], "--base-url: expected an absolute http(s) or file URL"),
    ],
)
def test_usage_errors(capsys, saved_site: Path, args: list[str], message: str):
    code, _, err = run(capsys, "extract", *args, str(saved_site / "index.html"))
    assert code == 2 and message in err


def test_a_url_list_line_without_a_tab_is_a_usage_error(capsys, saved_site: Path, tmp_path: Path):
    listing = tmp_path / "urls.tsv"
    listing.write_text("index.html https://news.example/\n", encoding="utf-8")
    code, _, err = run(capsys, "extract", "--url-list", str(listing), str(saved_site / "index.html"))
    assert code == 2 and f"--url-list {listing}:1: expected PATH<TAB>URL" in err


def test_the_warning_and_its_figure_are_the_ones_the_docs_quote():
    from scrapy_bodytext.cli.extract import URL_COST, WITHOUT_URLS

    page = (Path(__file__).resolve().parent.parent / "docs" / "command-line.md").read_text("utf-8")
    assert WITHOUT_URLS.format(cost=URL_COST, memory="") in page


def test_a_verdict_the_site_decided_says_so(capsys, saved_site: Path):
    code, _, err = run(
        capsys, "extract", "-j", "1", "--site-memory", "on", "--base-url", "https://news.example/", str(saved_site)
    )
    assert code == 0, err
    lines = {line.split(": ", 1)[0].removeprefix("== "): line for line in err.splitlines() if line.startswith("== ")}
    tag = lines[str(saved_site / "tag" / "education.html")]
    assert tag.endswith(", ok, with its site)") and "not an article (P(article) 0." in tag and " < 0.50" in tag
    assert not lines[str(saved_site / "index.html")].endswith("with its site)")  # the first page: nothing known yet
