"""The user's threshold decides with site memory on as with it off: a page its site's memory knows
nothing of keeps its own probability and is an article from ``BODYTEXT_ARTICLE_THRESHOLD`` (the
``extract()`` config's threshold) on, and no stored page ever carries a probability below it; in a
real crawl over a real HTTP server and through ``extract(..., memory=...)``."""

from __future__ import annotations

import json

import pytest
from blog_site import blog
from crawl_runner import ADDON, run_crawl
from http_server import SiteServer

from scrapy_bodytext import extract
from scrapy_bodytext.sites import SiteMemory

PAGES, KINDS = blog(60)
#: pages the page judge is unsure of: none teaches its site anything, so a site of them alone stays
#: unknown to the memory and each page keeps its own probability
UNSURE = ["/contact/", "/terms/", "/2026/11/", "/tag/weather/page/3/", "/tag/ferry/page/18/", "/page/13/", "/page/14/"]
THRESHOLDS = (0.3, 0.5, 0.8)


def own_probabilities(base: str) -> dict[str, float]:
    return {path: extract(PAGES[path][0], url=base + path).article_probability for path in UNSURE}


@pytest.fixture(scope="module")
def server():
    with SiteServer(PAGES) as served:
        yield served


def test_the_unsure_pages_straddle_every_threshold(server):
    """The pages of these tests hold, for each threshold, pages on both sides of it (among them the
    issue's: a page at about 0.7 and one at about 0.4)."""
    own = own_probabilities(server.base_url)
    print(own)
    for threshold in THRESHOLDS:
        assert any(p >= threshold for p in own.values()) and any(p < threshold for p in own.values()), threshold
    assert any(0.65 <= p < 0.8 for p in own.values()) and any(0.3 <= p < 0.45 for p in own.values())


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_extract_with_memory_decides_at_the_configured_threshold(server, threshold):
    own = own_probabilities(server.base_url)
    memory = SiteMemory()
    for path in UNSURE:
        alone = extract(PAGES[path][0], url=server.base_url + path, threshold=threshold)
        found = extract(PAGES[path][0], url=server.base_url + path, threshold=threshold, memory=memory)
        assert found.article_probability == pytest.approx(own[path], abs=1e-9), path
        assert found.is_article == alone.is_article == (own[path] >= threshold), (path, own[path])
        assert found.debug["site_evidence"]["decided_by"] == "page"


@pytest.mark.parametrize("threshold", (0.5, 0.8))
def test_an_established_site_never_makes_an_article_below_the_threshold(threshold):
    """The whole blog through one memory: whatever its site's evidence did, an article's probability
    is at or above the threshold and a non-article's below it."""
    memory = SiteMemory()
    order = sorted(PAGES, key=lambda path: (KINDS[path] != "article", path))
    found = [
        extract(PAGES[path][0], url="http://blog.example" + path, threshold=threshold, memory=memory) for path in order
    ]
    assert any(result.debug["site_evidence"]["decided_by"] == "site" for result in found)
    for result in found:
        assert result.is_article == (result.article_probability >= threshold and bool(result.text))


@pytest.mark.parametrize("memory", (True, False), ids=("memory-on", "memory-off"))
@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_a_crawl_stores_exactly_the_pages_at_or_above_the_threshold(server, tmp_path, threshold, memory):
    own = own_probabilities(server.base_url)
    (tmp_path / "urls.txt").write_text("\n".join(server.base_url + path for path in UNSURE))
    found = run_crawl(
        tmp_path,
        settings={
            "ADDONS": ADDON,
            "BODYTEXT_WORKERS": 0,
            "BODYTEXT_ARTICLE_THRESHOLD": threshold,
            "BODYTEXT_SITE_MEMORY": memory,
            "BODYTEXT_FIELDS": ["all"],
        },
        urls=str(tmp_path / "urls.txt"),
        follow="0",
    )
    assert found.returncode == 0, found.log[-3000:]
    stored = {item["url"].removeprefix(server.base_url): item for item in found.items}
    assert set(stored) == {path for path, p in own.items() if p >= threshold}, (own, sorted(stored))
    assert all(item["article_probability"] >= threshold for item in stored.values())
    assert found.stored + found.dropped == len(UNSURE)
    if memory:
        assert found.stat("bodytext/sites/judged") == len(UNSURE)
        assert all(item["site_evidence"]["decided_by"] == "page" for item in stored.values())


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_the_command_line_with_site_memory_decides_at_its_threshold(server, tmp_path, capsys, threshold):
    """``scrapy-bodytext extract --site-memory on --threshold T`` over saved pages with their URLs: a
    page its site's memory knows nothing of is an article exactly from T on, as without the memory."""
    from test_cli import run

    own = own_probabilities(server.base_url)
    lines = []
    for number, path in enumerate(UNSURE):
        saved = tmp_path / f"page-{number}.html"
        saved.write_bytes(PAGES[path][0] if isinstance(PAGES[path][0], bytes) else PAGES[path][0].encode())
        lines.append(f"{saved}\t{server.base_url}{path}")
    listing = tmp_path / "urls.tsv"
    listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    files = [line.split("\t")[0] for line in lines]
    code, out, _ = run(
        capsys,
        "extract",
        "--json",
        "--site-memory",
        "on",
        "--threshold",
        str(threshold),
        "--url-list",
        str(listing),
        *files,
    )
    assert code == 0
    found = [json.loads(line) for line in out.splitlines()]
    assert len(found) == len(UNSURE)
    for record, path in zip(found, UNSURE):
        assert record["is_article"] == (own[path] >= threshold), (path, own[path], record["article_probability"])
