"""Real crawls of a real HTTP server on 127.0.0.1, with a real feed export: every item is either stored
with its fields or dropped with a reason, none lost."""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter
from urllib.parse import urlsplit

import pytest
from conftest import CORPUS_DIR, require_corpus
from crawl_runner import ADDON, Crawl, run_crawl, without_copy_fields
from http_server import SITE, SiteServer, site_pages
from scrapy.http import HtmlResponse

from scrapy_bodytext import ExtractionResult, extract, extractors
from scrapy_bodytext.plugin.review import FIELDS
from scrapy_bodytext.plugin.settings import FIELD_PRESETS

ARTICLES = {f"/{path.name}" for path in SITE.glob("article-*.html")}
KINDS = ("dict", "item", "dataclass", "attrs")
#: the add-on, items kept at the threshold only, each page judged alone: these crawls check the plumbing
#: of the verdict at the threshold against extract() on the same bytes; the pages the method types
#: articles below it are checked by test_pages_kept_in_doubt_are_stored_and_listed_for_review_with_their_page_type,
#: and what a site's evidence changes by tests/test_sites_crawl.py
AT_THRESHOLD = {"ADDONS": ADDON, "BODYTEXT_KEPT_PAGE_TYPES": [], "BODYTEXT_SITE_MEMORY": False}
PNG = b"\x89PNG\r\n\x1a\n" + bytes(200)
BIG = (SITE / "article-harbour.html").read_bytes().replace(b"</main>", b"<p>comment</p>" * 4000 + b"</main>")
SIZE_LIMIT = 50_000
HOSTILE = {
    "/hostile.html": (
        b"<html><body><h1>Files</h1><ul><li><a href='/binary.html'>binary</a></li><li>"
        b"<a href='/empty.html'>empty</a></li><li><a href='/big.html'>big</a></li><li>"
        b"<a href='/photo.png'>photo</a></li></ul></body></html>",
        "text/html",
    ),
    "/binary.html": (b"%PDF-1.4\n" + bytes(range(256)) * 40, "text/html"),
    "/empty.html": (b"", "text/html; charset=utf-8"),
    "/big.html": (BIG, "text/html"),
    "/photo.png": (PNG, "image/png"),
}


@pytest.fixture(scope="module")
def site():
    assert len(BIG) > SIZE_LIMIT
    with SiteServer({**site_pages(), **HOSTILE}) as server:
        yield server


@pytest.fixture(scope="module")
def addon_crawl(site, tmp_path_factory) -> Crawl:
    """The add-on line in the settings, a spider yielding one item of each kind per page."""
    return run_crawl(
        tmp_path_factory.mktemp("addon"),
        settings={**AT_THRESHOLD},
        start=site.url("/index.html"),
        kinds=",".join(KINDS),
    )


def path_of(item: dict) -> str:
    return urlsplit(item["url"]).path


def assert_clean(crawl: Crawl) -> None:
    assert crawl.returncode == 0, crawl.log[-3000:]
    assert crawl.stats.get("finish_reason") == "finished", crawl.log[-3000:]
    assert "Traceback" not in crawl.log and "Unhandled" not in crawl.log, crawl.log[-3000:]
    assert crawl.stat("log_count/ERROR") == 0


def assert_accounted(crawl: Crawl, items_in: int) -> None:
    """items in = items stored (in the feed) + items dropped (each with a reason)."""
    reasons = crawl.stats_under("item_dropped_reasons_count/")
    assert crawl.stored == crawl.stat("item_scraped_count")
    assert sum(reasons.values()) == crawl.dropped
    assert crawl.stored + crawl.dropped == items_in


def core_result(site: SiteServer, url: str, **options) -> ExtractionResult:
    """What extract() says of the page served at ``url``, given the encoding Scrapy chooses for it
    (``options``: other arguments of extract())."""
    body, content_type = site.pages[urlsplit(url).path]
    encoding = HtmlResponse(url, body=body, headers={"Content-Type": content_type}).encoding
    return extract(body, url=url, encoding=encoding, content_type=content_type, **options)


def dropped_pages(crawl: Crawl) -> set[str]:
    """URLs of the pages whose items were dropped as non-articles (one log line per page)."""
    return {line.rsplit(" ", 1)[1] for line in crawl.log.splitlines() if "Not an article (" in line}


def test_articles_are_stored_with_both_fields_and_non_articles_dropped(site, addon_crawl):
    crawl = addon_crawl
    assert_clean(crawl)
    assert_accounted(crawl, len(KINDS) * crawl.stat("bodytext/responses/tagged"))
    assert crawl.dropped == crawl.stat("item_dropped_reasons_count/NotAnArticle") > 0
    stored_pages = {item["url"] for item in crawl.items}
    assert ARTICLES <= {urlsplit(url).path for url in stored_pages}
    assert len(stored_pages | dropped_pages(crawl)) == crawl.stat("bodytext/responses/tagged")
    assert sorted(item["kind"] for item in crawl.items) == sorted(KINDS * len(stored_pages))
    assert_core_verdicts(site, crawl)


def assert_core_verdicts(site: SiteServer, crawl: Crawl) -> None:
    """Every page got exactly the core's verdict, text and probability."""
    for url in dropped_pages(crawl):
        assert not core_result(site, url).is_article, url
    for item in crawl.items:
        expected = core_result(site, item["url"])
        assert expected.is_article, item["url"]
        assert (item["main_text"], item["article_probability"]) == (expected.text, expected.article_probability)
        assert item["main_text"] and 0.5 <= item["article_probability"] <= 1


def test_the_text_is_the_article_decoded_as_scrapy_decoded_it(addon_crawl):
    texts = {path_of(item): item["main_text"] for item in addon_crawl.items}
    assert "Crews worked through most of the winter" in texts["/article-harbour.html"]
    assert "Fähre" in texts["/article-storm.html"]  # iso-8859-1, declared in a <meta>


def test_one_extraction_per_response_whatever_the_number_of_items(addon_crawl):
    crawl = addon_crawl
    assert crawl.stat("bodytext/pages/extracted") == crawl.stat("bodytext/responses/tagged")
    assert crawl.stat("bodytext/items/extracted") == len(KINDS) * crawl.stat("bodytext/pages/extracted")
    assert crawl.stat("bodytext/items/articles") == crawl.stored
    assert crawl.stat("bodytext/items/non_articles") == crawl.dropped
    assert crawl.stat("bodytext/responses/skipped/status") > 0  # the site's broken links
    assert crawl.stat("bodytext/extraction_time/total_ms") >= crawl.stat("bodytext/extraction_time/max_ms") > 0


def test_enabled_from_the_spider_with_project_settings_overriding_the_defaults(site, tmp_path):
    crawl = run_crawl(
        tmp_path,
        spider="crawl_spiders.AddonSpider",
        settings={
            "BODYTEXT_TEXT_FIELD": "body",
            "BODYTEXT_PROBABILITY_FIELD": "p",
            "BODYTEXT_DROP_NON_ARTICLES": False,
            "BODYTEXT_SITE_MEMORY": False,  # each page judged alone, as core_result judges it
        },
        start=site.url("/index.html"),
    )
    assert_clean(crawl)
    assert crawl.dropped == 0 and crawl.stored == crawl.stat("bodytext/responses/tagged")
    for item in crawl.items:
        assert without_copy_fields(item) == {"url", "kind", "body", "p"}
        assert item["p"] == core_result(site, item["url"]).article_probability
    assert any(item["p"] < 0.5 for item in crawl.items)  # non-articles kept


def test_manual_enabling_with_explicit_orders_on_a_reactor_without_asyncio(site, tmp_path):
    crawl = run_crawl(
        tmp_path,
        settings={
            "DOWNLOADER_MIDDLEWARES": {"scrapy_bodytext.BodyTextDownloaderMiddleware": 575},
            "SPIDER_MIDDLEWARES": {"scrapy_bodytext.BodyTextSpiderMiddleware": 40},
            "ITEM_PIPELINES": {"scrapy_bodytext.BodyTextPipeline": 300},
            "TWISTED_REACTOR": "twisted.internet.selectreactor.SelectReactor",
            "BODYTEXT_KEPT_PAGE_TYPES": [],
            "BODYTEXT_SITE_MEMORY": False,  # each page judged alone, as core_result judges it
        },
        start=site.url("/index.html"),
    )
    assert_clean(crawl)
    assert "SelectReactor" in crawl.log
    assert_accounted(crawl, crawl.stat("bodytext/responses/tagged"))
    assert_core_verdicts(site, crawl)


def second_extractor() -> str:
    return next(name for name in extractors.names() if name != extractors.DEFAULT_EXTRACTOR)


def test_request_meta_skips_a_page_or_chooses_its_extractor(site, tmp_path):
    other = second_extractor()
    meta = {
        "/article-harbour.html": {"bodytext_skip": True},
        "/article-glacier.html": {"bodytext_extractor": other},
        "/article-library.html": {"bodytext_extractor": "no-such-method"},
    }
    crawl = run_crawl(
        tmp_path,
        settings={**AT_THRESHOLD, "LOG_LEVEL": "WARNING"},
        start=site.url("/index.html"),
        meta=json.dumps(meta),
    )
    assert crawl.returncode == 0 and "Traceback" not in crawl.log
    assert_accounted(crawl, crawl.stat("bodytext/responses/tagged") + crawl.stat("bodytext/items/untagged"))
    stored = {path_of(item): item for item in crawl.items}
    assert stored["/article-harbour.html"] == {"url": site.url("/article-harbour.html"), "kind": "dict"}
    assert crawl.stat("bodytext/responses/skipped/meta_skip") == crawl.stat("bodytext/items/untagged") == 1
    assert crawl.stat(f"bodytext/extractor/{other}") == 1
    assert "/article-library.html" not in stored
    assert crawl.stat("item_dropped_reasons_count/ExtractionFailed") == 1
    assert crawl.stat("bodytext/errors/unknown_extractor") == 1
    errors = [line for line in crawl.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and "no-such-method" in errors[0] and "bodytext_extractor" in errors[0]


@pytest.mark.parametrize("on_failure", ["drop", "store"])
def test_every_failed_page_gets_the_configured_outcome(site, tmp_path, on_failure):
    crawl = run_crawl(
        tmp_path,
        settings={
            **AT_THRESHOLD,
            "BODYTEXT_ON_FAILURE": on_failure,
            "BODYTEXT_MAX_BODY_SIZE": SIZE_LIMIT,
        },
        start=site.url("/hostile.html"),
    )
    assert_clean(crawl)
    assert_accounted(crawl, crawl.stat("downloader/response_status_count/200"))
    failed = {"/binary.html": "not_html", "/empty.html": "empty", "/big.html": "too_large"}
    for reason in failed.values():
        assert crawl.stat(f"bodytext/pages/failed/{reason}") == crawl.stat(f"bodytext/items/failed/{reason}") == 1
        assert sum(f"({reason}:" in line for line in crawl.log.splitlines() if "No main text" in line) == 1
    stored = {path_of(item): item for item in crawl.items}
    assert stored["/photo.png"] == {"url": site.url("/photo.png"), "kind": "dict"}  # not HTML: untouched
    assert crawl.stat("bodytext/responses/skipped/not_html") == crawl.stat("bodytext/items/untagged") == 1
    if on_failure == "drop":
        assert not set(failed) & set(stored)
        assert crawl.stat("item_dropped_reasons_count/ExtractionFailed") == len(failed)
    else:
        for path in failed:
            assert (stored[path]["main_text"], stored[path]["article_probability"]) == ("", 0.0)


def test_typed_items_lacking_the_fields_get_one_error_naming_them(site, tmp_path):
    crawl = run_crawl(tmp_path, settings={**AT_THRESHOLD}, start=site.url("/index.html"), kinds="bare")
    errors = [line for line in crawl.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1 and "BareItem" in errors[0]
    assert "main_text" in errors[0] and "article_probability" in errors[0]
    assert "KeyError" not in crawl.log and "Traceback" not in crawl.log
    assert_accounted(crawl, crawl.stat("bodytext/responses/tagged"))
    assert all(set(item) == {"url", "kind"} for item in crawl.items)
    # kept or dropped by probability all the same
    assert all(core_result(site, item["url"]).is_article for item in crawl.items)
    assert not any(core_result(site, url).is_article for url in dropped_pages(crawl))
    assert ARTICLES <= {path_of(item) for item in crawl.items}
    assert crawl.stat("bodytext/errors/missing_fields") == crawl.stored


def test_worker_processes_give_the_same_items(site, tmp_path):
    crawl = run_crawl(tmp_path, settings={**AT_THRESHOLD, "BODYTEXT_WORKERS": 2}, start=site.url("/index.html"))
    assert_clean(crawl)
    assert_accounted(crawl, crawl.stat("bodytext/responses/tagged"))
    assert_core_verdicts(site, crawl)
    assert ARTICLES <= {path_of(item) for item in crawl.items}


def test_metadata_fields_with_one_setting(site, tmp_path):
    crawl = run_crawl(tmp_path, settings={**AT_THRESHOLD, "BODYTEXT_FIELDS": "metadata"}, start=site.url("/index.html"))
    assert_clean(crawl)
    assert ARTICLES <= {path_of(item) for item in crawl.items}
    for item in crawl.items:
        expected = core_result(site, item["url"])
        assert without_copy_fields(item) == {"url", "kind", *FIELD_PRESETS["metadata"]}
        for name in FIELD_PRESETS["metadata"]:
            value = expected.value(name)
            assert item[name] == (list(value) if isinstance(value, tuple) else value), name
        assert isinstance(item["authors"], list) and isinstance(item["tags"], list)


@pytest.mark.parametrize(("output_format", "workers"), [("markdown", 0), ("html", 2)])
def test_the_output_format_and_links_by_settings(site, tmp_path, output_format, workers):
    """Items carry the main text in the configured format, as extract() writes it, in the crawl's
    threads and in worker processes alike."""
    crawl = run_crawl(
        tmp_path,
        settings={
            **AT_THRESHOLD,
            "BODYTEXT_OUTPUT_FORMAT": output_format,
            "BODYTEXT_OUTPUT_LINKS": True,
            "BODYTEXT_FIELDS": "main_text,article_probability,output_format",
            "BODYTEXT_WORKERS": workers,
        },
        start=site.url("/index.html"),
    )
    assert_clean(crawl)
    assert ARTICLES <= {path_of(item) for item in crawl.items}
    for item in crawl.items:
        expected = core_result(site, item["url"], output_format=output_format, links=True)
        assert (item["main_text"], item["output_format"]) == (expected.text, output_format)
        assert item["article_probability"] == core_result(site, item["url"]).article_probability
    harbour = next(item["main_text"] for item in crawl.items if path_of(item) == "/article-harbour.html")
    heading = {"markdown": "\n## Stone from the old quarry\n", "html": "\n<h2>Stone from the old quarry</h2>\n"}
    assert heading[output_format] in harbour
    assert output_format != "html" or (harbour.startswith("<article>") and harbour.endswith("</article>"))


def test_scoped_items_pass_and_every_rejected_page_is_in_the_review_feed(site, tmp_path):
    """Article items are judged, link items of another class pass; with the widest review band the
    review feed holds every judged page, and each page whose items were dropped, which neither FEEDS
    nor a storage pipeline after ours ever see."""
    review, recorded, urls = tmp_path / "rejected.jsonl", tmp_path / "recorded.jsonl", tmp_path / "urls.txt"
    urls.write_text(f"{site.url('/index.html')}\n{site.url('/hostile.html')}\n")
    crawl = run_crawl(
        tmp_path,
        spider="crawl_spiders.TeaserSpider",
        settings={
            **AT_THRESHOLD,
            "BODYTEXT_MAX_BODY_SIZE": SIZE_LIMIT,
            "BODYTEXT_ITEM_CLASSES": "crawl_spiders.ArticleItem",
            "BODYTEXT_REJECTED_FEED": str(review),
            "BODYTEXT_REVIEW_BAND": 1.0,
            "ITEM_PIPELINES": {"crawl_spiders.RecordingPipeline": 300},
            "RECORDED_ITEMS": str(recorded),
        },
        urls=str(urls),
    )
    assert_clean(crawl)
    articles_in, links_in = crawl.stat("teaser/article_items"), crawl.stat("teaser/link_items")
    assert_accounted(crawl, articles_in + links_in)
    # every link item passes untouched, listing pages' teasers included, and is counted
    links = [item for item in crawl.items if "source" in item]
    assert len(links) == links_in == crawl.stat("bodytext/items/out_of_scope") > 60
    assert all(set(link) == {"url", "source"} for link in links)
    assert {path_of({"url": link["source"]}) for link in links} >= {"/index.html", "/section-local.html"}
    # every article item is judged: stored with its fields, or dropped with its page in the review feed
    stored = {item["url"] for item in crawl.items if "source" not in item and "main_text" in item}
    untouched = [path_of(item) for item in crawl.items if "source" not in item and "main_text" not in item]
    assert untouched == ["/photo.png"] and crawl.stat("bodytext/items/untagged") == 1  # not HTML
    listed = [json.loads(line) for line in review.read_text(encoding="utf-8").splitlines()]
    rows = [row for row in listed if row["outcome"] == "dropped"]  # the rest were stored
    rejected = {row["url"] for row in rows}
    assert len(rows) == len(rejected) == crawl.dropped == crawl.stat("bodytext/pages/rejected")
    assert crawl.stat("bodytext/rejected_feed/pages") == len(listed)
    verdicts = [row for row in listed if row["reason"] in ("article", "not_an_article", "no_main_text")]
    assert len(verdicts) == crawl.stat("bodytext/pages/review")
    assert {row["url"] for row in listed if row["outcome"] == "stored"} == stored
    assert len(stored) + len(rejected) == articles_in - crawl.stat("bodytext/items/untagged")
    assert not stored & rejected
    assert dropped_pages(crawl) <= rejected
    assert {"/index.html", "/binary.html", "/empty.html", "/big.html"} <= {path_of(row) for row in rows}
    for row in rows:
        assert list(row) == FIELDS
        assert row["threshold"] == 0.5 and row["extractor"] == extractors.DEFAULT_EXTRACTOR
        if row["reason"] in ("not_an_article", "no_main_text"):
            expected = core_result(site, row["url"])
            assert not expected.is_article and row["article_probability"] == expected.article_probability
            assert row["title"] == expected.title and row["page_type"] == expected.page_type
        else:
            assert row["article_probability"] == 0.0
    assert {row["reason"] for row in rows if path_of(row) == "/big.html"} == {"too_large"}
    reasons = sorted(Counter(row["reason"] for row in rows).items())
    print(
        f"teaser crawl: items in {articles_in + links_in} ({articles_in} article, {links_in} link); "
        f"stored {crawl.stored} ({len(links)} link, out of scope), dropped {crawl.dropped}; "
        f"review feed: {len(rows)} pages {reasons}"
    )
    # nothing rejected reached the storage pipeline after ours or the crawl's FEEDS
    after = [json.loads(line) for line in recorded.read_text(encoding="utf-8").splitlines()]
    assert len(after) == crawl.stored
    assert not {row["url"] for row in after if row["class"] == "ArticleItem"} & rejected


def test_pages_kept_in_doubt_are_stored_and_listed_for_review_with_their_page_type(site, tmp_path):
    """A page the method types an article below the threshold is not silently lost: its items are
    stored, and the page is listed in the review feed (``uncertain_article``) with its page type; the
    pages of other types are dropped and listed with theirs. A threshold no page reaches puts every
    article in doubt."""
    review = tmp_path / "review.jsonl"
    crawl = run_crawl(
        tmp_path,
        settings={
            "ADDONS": ADDON,
            "BODYTEXT_ARTICLE_THRESHOLD": 1.0,
            "BODYTEXT_KEPT_PAGE_TYPES": ["article"],
            "BODYTEXT_SITE_MEMORY": False,  # the page's own type decides what is kept in doubt
            "BODYTEXT_FIELDS": "main_text,article_probability,page_type,is_article",
            "BODYTEXT_REJECTED_FEED": str(review),
            "BODYTEXT_REVIEW_BAND": 1.0,
        },
        start=site.url("/index.html"),
    )
    assert_clean(crawl)
    rows = {row["url"]: row for row in map(json.loads, review.read_text(encoding="utf-8").splitlines())}
    stored = {item["url"]: item for item in crawl.items if "main_text" in item}
    doubtful = {url for url, row in rows.items() if row["reason"] == "uncertain_article"}
    assert {path_of({"url": url}) for url in stored} >= ARTICLES  # every article kept, none at the threshold
    assert doubtful == set(stored)  # each listed once for review
    assert all(item["page_type"] == "article" and not item["is_article"] for item in stored.values())
    assert all(rows[url]["page_type"] == "article" for url in doubtful)
    dropped = {url for url in rows if url not in doubtful}
    assert dropped and all(rows[url]["page_type"] != "article" for url in dropped)
    assert len(doubtful) == crawl.stat("bodytext/pages/kept_types/article")
    verdicts = [
        row for row in rows.values() if row["reason"] in ("uncertain_article", "not_an_article", "no_main_text")
    ]
    assert crawl.stat("bodytext/pages/review") == len(verdicts)  # the widest band: every judged page
    assert crawl.stat("bodytext/pages/rejected") == len(dropped)
    # keeping no type below the threshold drops them all; those within the default band are listed
    (tmp_path / "strict").mkdir()
    strict_review = tmp_path / "strict" / "review.jsonl"
    strict = run_crawl(
        tmp_path / "strict",
        settings={
            "ADDONS": ADDON,
            "BODYTEXT_ARTICLE_THRESHOLD": 1.0,
            "BODYTEXT_KEPT_PAGE_TYPES": [],
            "BODYTEXT_SITE_MEMORY": False,
            "BODYTEXT_REJECTED_FEED": str(strict_review),
        },
        start=site.url("/index.html"),
    )
    assert_clean(strict)
    assert not [item for item in strict.items if "main_text" in item]
    listed = [json.loads(line) for line in strict_review.read_text(encoding="utf-8").splitlines()]
    assert listed and all(row["outcome"] == "dropped" and row["article_probability"] >= 0.9 for row in listed)
    assert strict.stat("bodytext/pages/review") == len(listed) < strict.stat("bodytext/pages/rejected")


def test_the_review_feed_takes_feeds_options(site, tmp_path):
    """A FEEDS-style entry: CSV, a URI parameter (the spider's name) and overwrite."""
    review = tmp_path / "site-rejected.csv"
    review.write_text("left from an earlier crawl\n")
    crawl = run_crawl(
        tmp_path,
        settings={
            **AT_THRESHOLD,
            "FEED_EXPORT_FIELDS": ["url", "kind"],
            "BODYTEXT_REJECTED_FEED": {str(tmp_path / "%(name)s-rejected.csv"): {"overwrite": True}},
            "BODYTEXT_REVIEW_BAND": 1.0,
        },
        start=site.url("/index.html"),
    )
    assert_clean(crawl)
    rows = list(csv.DictReader(review.read_text(encoding="utf-8").splitlines()))
    assert list(rows[0]) == FIELDS
    dropped = [row["url"] for row in rows if row["outcome"] == "dropped"]
    assert set(dropped) == dropped_pages(crawl) and len(dropped) == crawl.dropped
    assert all(set(item) == {"url", "kind"} for item in crawl.items)  # FEED_EXPORT_FIELDS is for the items


# --- real pages ------------------------------------------------------------------------------------

PER_LABEL = 40


def corpus_sample() -> dict[str, tuple[bool, bytes]]:
    """Every Nth article and every Nth non-article of the dev corpus (by id order), 40 of each."""
    rows = [
        json.loads(line)
        for line in (CORPUS_DIR / "index.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    sample = {}
    for label in (True, False):
        group = sorted((row for row in rows if row["is_article"] is label), key=lambda row: row["id"])
        step = len(group) // PER_LABEL
        for row in group[::step][:PER_LABEL]:
            data = (CORPUS_DIR / row["file"]).read_bytes()
            sample[row["id"]] = (label, gzip.decompress(data) if row["file"].endswith(".gz") else data)
    return sample


@pytest.mark.corpus
def test_real_pages_with_only_the_addon_line(tmp_path):
    require_corpus()
    sample = corpus_sample()
    pages = {f"/{page_id}.html": (body, "text/html") for page_id, (_, body) in sample.items()}
    with SiteServer(pages) as server:
        url_of = {page_id: server.url(f"/{page_id}.html") for page_id in sample}
        urls = tmp_path / "urls.txt"
        urls.write_text("\n".join(sorted(url_of.values())))
        crawl = run_crawl(tmp_path, settings={**AT_THRESHOLD}, urls=str(urls), follow="0")
    assert_clean(crawl)
    assert_accounted(crawl, len(sample))
    assert crawl.stat("bodytext/pages/extracted") == len(sample)
    stored = {path_of(item)[1 : -len(".html")]: item for item in crawl.items}
    articles_stored = sum(sample[page_id][0] for page_id in stored)
    non_articles_dropped = PER_LABEL - (len(stored) - articles_stored)
    print(
        f"corpus crawl: {len(sample)} pages, stored {crawl.stored}, dropped {crawl.dropped}; "
        f"articles stored {articles_stored}/{PER_LABEL}, non-articles dropped {non_articles_dropped}/{PER_LABEL}"
    )
    # the crawl keeps exactly the pages the core judges articles, with the core's text and probability
    for page_id, (_, body) in sample.items():
        encoding = HtmlResponse("http://x/", body=body, headers={"Content-Type": "text/html"}).encoding
        expected = extract(body, url=url_of[page_id], encoding=encoding, content_type="text/html")
        item = stored.get(page_id)
        assert (item is not None) == expected.is_article, page_id
        if item is not None:
            assert (item["main_text"], item["article_probability"]) == (expected.text, expected.article_probability)
    # most articles stored, non-articles dropped: the default threshold is the judge's decision rule,
    # chosen out of fold to drop at most 1 % of the articles; out of fold it drops 32 % of the dev
    # corpus's non-articles (docs/evaluation.md), in this sample 15 of 40
    assert articles_stored >= 30
    assert non_articles_dropped >= PER_LABEL // 4
