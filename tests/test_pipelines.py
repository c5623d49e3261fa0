"""The pipeline: one extraction per page, fields written, non-articles and failures dropped or kept."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import sys
import types
from concurrent.futures import Future
from pathlib import Path

import pytest
import scrapy
from scrapy import Spider
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_bodytext import BodyTextPipeline, NotAnArticle, extract, extractors
from scrapy_bodytext.plugin.decision import Decision
from scrapy_bodytext.plugin.pipelines import ExtractionFailed
from scrapy_bodytext.plugin.review import RejectedPage, page_rejected
from scrapy_bodytext.plugin.spidermiddlewares import Page
from scrapy_bodytext.workers.executors import ThreadExecutor, WorkerDied, WorkerTimeout

SITE = Path(__file__).parent / "site"
REAL_ARTICLE = (SITE / "article-harbour.html").read_bytes()
BINARY = b"%PDF-1.4\n" + bytes(range(256)) * 20
LOGGER = "scrapy_bodytext.plugin.pipelines"


class CountingExecutor(ThreadExecutor):
    def __init__(self):
        super().__init__(2)
        self.submitted = 0

    def submit(self, fn, /, *args):
        self.submitted += 1
        return super().submit(fn, *args)


class FailingExecutor:
    def __init__(self, exception):
        self.exception = exception

    def start(self):
        pass

    def shutdown(self):
        pass

    def submit(self, fn, /, *args):
        future = Future()
        future.set_exception(self.exception)
        return future


def register_extractor(monkeypatch, name, run):
    """Put a method into the extractor registry for one test."""
    module = types.ModuleType(f"{name}_extractor")

    @dataclasses.dataclass(frozen=True)
    class Options:
        pass

    module.NAME, module.Options, module.extract = name, Options, run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(extractors.EXTRACTORS, name, module.__name__)


def scripted(doc, options):
    """A method whose verdict the page states (a paragraph "p=0.9"), so that these tests exercise the
    pipeline whatever the quality of the real methods."""
    slots = [slot for slot, text in enumerate(doc.texts) if text[:2] not in ("p=", "t=")]
    probability = next((float(text[2:]) for text in doc.texts if text.startswith("p=")), 0.0)
    page_type = next((text[2:] for text in doc.texts if text.startswith("t=")), None)
    return extractors.Extraction(slots, probability, page_type=page_type)


def scripted_page(probability: float, page_type: str | None = None) -> bytes:
    typed = f"<p>t={page_type}</p>" if page_type else ""
    return f"<html><body><p>p={probability}</p>{typed}<p>First paragraph.</p><p>Second one.</p></body></html>".encode()


ARTICLE, LISTING = scripted_page(0.9), scripted_page(0.1)


@pytest.fixture(autouse=True)
def scripted_method(monkeypatch):
    register_extractor(monkeypatch, "scripted", scripted)


def make_pipeline(executor=None, **settings):
    crawler = get_crawler(
        Spider,
        settings_dict={  # in-process threads: "scripted" is registered here only
            "ADDONS": {"scrapy_bodytext.Addon": 0},
            "BODYTEXT_EXTRACTOR": "scripted",
            "BODYTEXT_WORKERS": 0,
            # the page judged alone: the site memory's verdicts are tested by real crawls (test_sites_crawl)
            "BODYTEXT_SITE_MEMORY": False,
            **settings,
        },
    )
    crawler.spider = crawler._create_spider("test")
    crawler.stats.open_spider()
    pipeline = build_from_crawler(BodyTextPipeline, crawler)
    if executor is not None:
        pipeline.executor = executor
    return pipeline


def stats(pipeline) -> dict:
    return {name: value for name, value in pipeline.crawler.stats.get_stats().items() if name.startswith("bodytext/")}


def new_page(body=ARTICLE, url="https://example.com/a", extractor=None) -> Page:
    return Page(url=url, body=body, encoding="utf-8", content_type="text/html", extractor=extractor)


def process(pipeline, *items_and_pages):
    """Process (item, page) pairs concurrently, as Scrapy does for the items of one response; returns
    each item or the exception it raised."""

    async def run():
        pipeline.open_spider()
        for item, page in items_and_pages:
            if page is not None:
                pipeline.links.link(item, page)
        try:
            return await asyncio.gather(
                *(pipeline.process_item(item) for item, _ in items_and_pages), return_exceptions=True
            )
        finally:
            await pipeline.close_spider()

    return asyncio.run(run())


def test_an_article_gets_what_the_configured_method_extracts():
    pipeline = make_pipeline(BODYTEXT_EXTRACTOR="bodytext")
    item = {"url": "https://example.com/a"}
    [out] = process(pipeline, (item, new_page(REAL_ARTICLE)))
    expected = extract(REAL_ARTICLE, encoding="utf-8", url="https://example.com/a")
    assert expected.is_article
    assert out is item
    assert item["main_text"] == expected.text and "harbour wall" in item["main_text"]
    assert item["article_probability"] == expected.article_probability
    assert 0.5 <= item["article_probability"] <= 1
    found = stats(pipeline)
    assert found["bodytext/items/articles"] == found["bodytext/items/extracted"] == 1
    assert found["bodytext/pages/extracted"] == found["bodytext/extractor/bodytext"] == 1
    assert found["bodytext/extraction_time/max_ms"] <= found["bodytext/extraction_time/total_ms"]


def test_many_items_of_one_page_share_one_extraction():
    executor = CountingExecutor()
    pipeline = make_pipeline(executor)
    page = new_page()
    items = [{"n": n} for n in range(5)]
    outs = process(pipeline, *((item, page) for item in items))
    assert outs == items and len({item["main_text"] for item in items}) == 1
    assert executor.submitted == 1
    assert stats(pipeline)["bodytext/pages/extracted"] == 1
    assert stats(pipeline)["bodytext/items/articles"] == 5
    assert page.body is None  # let go once the result is known


def test_a_non_article_is_dropped_with_one_short_line_per_page(caplog):
    pipeline = make_pipeline()
    page = new_page(LISTING, url="https://example.com/local")
    items = [{"n": 1}, {"n": 2}]
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        outs = process(pipeline, *((item, page) for item in items))
    assert all(isinstance(out, NotAnArticle) for out in outs)
    assert outs[0].url == "https://example.com/local" and (outs[0].probability, outs[0].threshold) == (0.1, 0.5)
    assert outs[0].log_level == "DEBUG"  # Scrapy's "Dropped: ... <item>" line stays out of INFO logs
    assert "https://example.com/local" in str(outs[0]) and "\n" not in str(outs[0])
    lines = [record.getMessage() for record in caplog.records if record.name == LOGGER]
    assert len(lines) == 1 and "Not an article" in lines[0] and "\n" not in lines[0]
    assert caplog.records[0].levelno == logging.INFO
    found = stats(pipeline)
    assert found["bodytext/items/non_articles"] == 2 and found["bodytext/pages/non_articles"] == 1
    assert items == [{"n": 1}, {"n": 2}]  # dropped items are not given the text (Scrapy logs them at DEBUG)


def test_non_articles_are_kept_when_dropping_is_off():
    pipeline = make_pipeline(BODYTEXT_DROP_NON_ARTICLES=False)
    item = {}
    [out] = process(pipeline, (item, new_page(LISTING)))
    assert out is item and item["article_probability"] < 0.5
    assert stats(pipeline)["bodytext/items/non_articles"] == 1


def test_the_threshold_decides():
    strict, lenient = make_pipeline(BODYTEXT_ARTICLE_THRESHOLD=0.95), make_pipeline(BODYTEXT_ARTICLE_THRESHOLD=0.05)
    [dropped] = process(strict, ({}, new_page(ARTICLE)))
    [kept] = process(lenient, ({}, new_page(LISTING)))
    assert isinstance(dropped, NotAnArticle) and dropped.threshold == 0.95
    assert kept == {"main_text": "First paragraph.\nSecond one.", "article_probability": 0.1}


def test_items_of_untagged_responses_pass_untouched():
    pipeline = make_pipeline()
    item = {"url": "x"}
    assert process(pipeline, (item, None)) == [{"url": "x"}]
    assert stats(pipeline) == {"bodytext/items/untagged": 1}


def test_a_failed_page_is_dropped_with_its_reason_logged_once(caplog):
    pipeline = make_pipeline()
    page = new_page(BINARY, url="https://example.com/file")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        outs = process(pipeline, ({}, page), ({}, page))
    assert all(isinstance(out, ExtractionFailed) and out.reason.value == "not_html" for out in outs)
    lines = [record.getMessage() for record in caplog.records if record.name == LOGGER]
    assert len(lines) == 1 and "not_html" in lines[0] and "dropped" in lines[0]
    found = stats(pipeline)
    assert found["bodytext/items/failed/not_html"] == 2 and found["bodytext/pages/failed/not_html"] == 1


def test_a_failed_page_can_be_stored_with_empty_text():
    pipeline = make_pipeline(BODYTEXT_ON_FAILURE="store")
    item = {}
    assert process(pipeline, (item, new_page(b""))) == [item]
    assert item == {"main_text": "", "article_probability": 0.0}
    assert stats(pipeline)["bodytext/items/failed/empty"] == 1


@pytest.mark.parametrize(
    ("exception", "reason"),
    [
        (WorkerTimeout("exceeded 60 s"), "time_limit"),
        (WorkerDied("died during the job"), "error"),
        (MemoryError(), "error"),
    ],
)
def test_a_lost_extraction_costs_that_page_only(exception, reason, caplog):
    pipeline = make_pipeline(FailingExecutor(exception))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        [out] = process(pipeline, ({}, new_page()))
    assert isinstance(out, ExtractionFailed) and out.reason.value == reason
    assert caplog.records[0].levelno == logging.WARNING
    kind = f"worker_{reason}" if isinstance(exception, WorkerDied | WorkerTimeout) else "MemoryError"
    assert stats(pipeline)[f"bodytext/errors/{kind}"] == 1


def test_field_names_are_settings():
    pipeline = make_pipeline(BODYTEXT_TEXT_FIELD="body", BODYTEXT_PROBABILITY_FIELD=None)
    item = {}
    process(pipeline, (item, new_page()))
    assert set(item) == {"body"}


class Bare(scrapy.Item):
    url = scrapy.Field()


@dataclasses.dataclass
class TextOnly:
    main_text: str = ""


def test_a_typed_item_lacking_the_fields_gets_one_error_naming_them(caplog):
    pipeline = make_pipeline()
    article, listing = new_page(), new_page(LISTING)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        outs = process(
            pipeline,
            (Bare(url="a"), article),
            (Bare(url="b"), article),
            (Bare(url="c"), listing),
            (TextOnly(), article),
        )
    assert outs[:2] == [Bare(url="a"), Bare(url="b")]  # stored, without the fields
    assert isinstance(outs[2], NotAnArticle)  # the verdict still applies
    assert outs[3].main_text  # a class that has the text field gets it
    errors = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert len(errors) == 2
    assert "Bare" in errors[0] and "main_text" in errors[0] and "article_probability" in errors[0]
    assert "TextOnly" in errors[1] and "article_probability" in errors[1] and "main_text," not in errors[1]
    assert stats(pipeline)["bodytext/errors/missing_fields"] == 3


@pytest.fixture
def last_text_extractor(monkeypatch):
    """A second method: the page's last text only, probability 0.8."""
    register_extractor(monkeypatch, "last", lambda doc, options: extractors.Extraction([len(doc.texts) - 1], 0.8))
    return "last"


def test_the_meta_extractor_is_used_for_that_page(last_text_extractor):
    pipeline = make_pipeline()
    chosen, default = {}, {}
    process(
        pipeline,
        (chosen, new_page(extractor=last_text_extractor)),
        (default, new_page()),
        ({}, new_page(extractor=last_text_extractor)),
    )
    assert chosen["main_text"] == "Second one." and chosen["article_probability"] == 0.8
    assert default["main_text"] == "First paragraph.\nSecond one." and default["article_probability"] == 0.9
    found = stats(pipeline)
    assert found["bodytext/extractor/last"] == 2 and found["bodytext/extractor/scripted"] == 1
    assert len(pipeline._configs) == 1  # one derived configuration per name


@pytest.mark.parametrize("name", ["no-such-method", 42])
def test_an_unknown_meta_extractor_fails_its_pages_with_one_error(name, caplog):
    pipeline = make_pipeline()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        outs = process(pipeline, ({}, new_page(extractor=name)), ({}, new_page(extractor=name)))
    assert all(isinstance(out, ExtractionFailed) and out.reason.value == "error" for out in outs)
    errors = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert len(errors) == 1 and "bodytext_extractor" in errors[0]
    assert stats(pipeline)["bodytext/errors/unknown_extractor"] == 2


def test_manual_enabling_without_the_middlewares_is_reported(caplog):
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        make_pipeline(ADDONS={}, ITEM_PIPELINES={BodyTextPipeline: 200}).open_spider()
    assert {"BodyTextDownloaderMiddleware", "BodyTextSpiderMiddleware"} <= {
        word for record in caplog.records for word in record.getMessage().split()
    }
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        make_pipeline().open_spider()
    assert not caplog.records


def test_the_fields_setting_chooses_the_values_written_and_lists_stay_lists():
    pipeline = make_pipeline(
        BODYTEXT_FIELDS={
            "main_text": "body",
            "reason": "reason",
            "authors": "authors",
            "tags": "tags",
            "title": "headline",
        }
    )
    item = {"url": "https://example.com/a"}
    [out] = process(pipeline, (item, new_page()))
    assert out is item
    assert set(item) == {"url", "body", "reason", "authors", "tags", "headline"}
    assert item["reason"] == "ok" and item["body"] == "First paragraph.\nSecond one."
    assert item["authors"] == [] and isinstance(item["authors"], list) and item["tags"] == []


class TextAndTitle(scrapy.Item):
    main_text = scrapy.Field()
    article_probability = scrapy.Field()


def test_a_typed_item_lacking_a_metadata_field_gets_one_error_naming_it(caplog):
    pipeline = make_pipeline(BODYTEXT_FIELDS="main_text,article_probability,title,language")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        outs = process(pipeline, (TextAndTitle(), new_page()), (TextAndTitle(), new_page()))
    assert all(out["main_text"] and "title" not in out for out in outs)
    errors = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert len(errors) == 1 and "TextAndTitle" in errors[0] and "title, language" in errors[0]
    assert "BODYTEXT_FIELDS" in errors[0]


@dataclasses.dataclass
class Teaser:
    url: str


def test_items_of_other_classes_pass_untouched_and_counted():
    executor = CountingExecutor()
    pipeline = make_pipeline(executor, BODYTEXT_ITEM_CLASSES=[Bare])
    listing = new_page(LISTING)
    teasers = [Teaser(url=f"https://example.com/{n}") for n in range(3)]
    outs = process(pipeline, *((teaser, listing) for teaser in teasers), (Bare(url="x"), listing))
    assert outs[:3] == teasers and teasers[0] == Teaser(url="https://example.com/0")
    assert isinstance(outs[3], NotAnArticle)
    found = stats(pipeline)
    assert found["bodytext/items/out_of_scope"] == 3 and found["bodytext/items/non_articles"] == 1
    assert executor.submitted == 1


def test_each_page_listed_for_review_is_announced_once():
    """A page dropped or stored within the review band of the threshold, and a page dropped for another
    reason than its probability, are announced once each, whatever their number of items; a page far
    from the threshold is not."""
    pipeline = make_pipeline(BODYTEXT_REVIEW_BAND=0.35)
    announced = []
    pipeline.crawler.signals.connect(
        lambda page, spider: announced.append((page, spider)), signal=page_rejected, weak=False
    )
    near = new_page(scripted_page(0.2), url="https://example.com/l")
    far, failed = new_page(LISTING, url="https://example.com/far"), new_page(b"", url="https://example.com/e")
    stored_near = new_page(scripted_page(0.8), url="https://example.com/a")
    process(
        pipeline, ({}, near), ({}, near), ({}, failed), ({}, failed), ({}, far), ({}, stored_near), ({}, new_page())
    )
    pages = {page.url: page for page, spider in announced}
    assert len(announced) == 3 and all(spider is pipeline.crawler.spider for _, spider in announced)
    assert pages["https://example.com/l"] == RejectedPage(
        url="https://example.com/l",
        outcome="dropped",
        reason="not_an_article",
        article_probability=0.2,
        threshold=0.5,
        decided_by="page",
        extractor="scripted",
        page_type="other",
        title="",
        detail="",
    )
    assert (pages["https://example.com/a"].outcome, pages["https://example.com/a"].reason) == ("stored", "article")
    assert pages["https://example.com/e"].reason == "empty" and pages["https://example.com/e"].article_probability == 0
    found = stats(pipeline)
    assert found["bodytext/pages/rejected"] == 3 and found["bodytext/pages/review"] == 2


def test_a_page_at_the_edge_of_the_review_band_is_listed_and_one_beyond_it_is_not():
    pipeline = make_pipeline(BODYTEXT_REVIEW_BAND=0.1)
    announced = []
    pipeline.crawler.signals.connect(lambda page, spider: announced.append(page.url), signal=page_rejected, weak=False)
    pages = {p: new_page(scripted_page(p), url=f"https://example.com/{p}") for p in (0.39, 0.4, 0.6, 0.61)}
    process(pipeline, *(({}, page) for page in pages.values()))
    assert sorted(announced) == ["https://example.com/0.4", "https://example.com/0.6"]


def test_a_page_dropped_above_the_decision_rule_is_not_typed_an_article_for_review():
    """The review record's page type is the final decision's: a page the method types an article that
    the threshold drops is listed as another kind of page."""
    pipeline = make_pipeline(BODYTEXT_ARTICLE_THRESHOLD=0.9)
    announced = []
    pipeline.crawler.signals.connect(lambda page, spider: announced.append(page), signal=page_rejected, weak=False)
    [out] = process(pipeline, ({}, new_page(scripted_page(0.85, "article"))))
    assert isinstance(out, NotAnArticle)
    [listed] = announced
    assert (listed.outcome, listed.reason, listed.page_type) == ("dropped", "not_an_article", "other")


@pytest.mark.parametrize(
    ("probability", "threshold", "shown"),
    [
        (0.14, 0.1, "0.14 >= 0.10"),
        (0.08, 0.5, "0.08 < 0.50"),
        (0.4999, 0.5, "0.4999 < 0.5000"),
        (0.5, 0.5, "0.50 >= 0.50"),
    ],
)
def test_a_decision_states_its_comparison_as_the_figures_have_it(probability, threshold, shown):
    result = extract(b"<p>x</p>", threshold=threshold)
    result = dataclasses.replace(result, article_probability=probability, is_article=probability >= threshold)
    assert Decision.of(result, threshold).comparison == shown


def test_a_review_feed_without_its_extension_is_reported(caplog):
    by_hand = {
        "ADDONS": {},
        "ITEM_PIPELINES": {BodyTextPipeline: 200},
        "DOWNLOADER_MIDDLEWARES": {"scrapy_bodytext.BodyTextDownloaderMiddleware": 575},
        "SPIDER_MIDDLEWARES": {"scrapy_bodytext.BodyTextSpiderMiddleware": 40},
    }
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        make_pipeline(**by_hand, BODYTEXT_REJECTED_FEED="rejected.jsonl").open_spider()
    [warning] = [record.getMessage() for record in caplog.records]
    assert "BODYTEXT_REJECTED_FEED" in warning and "RejectedFeed" in warning


class ZyteShaped(scrapy.Item):
    """A typed item with some of Zyte's Article fields, not articleBodyHtml."""

    url = scrapy.Field()
    articleBody = scrapy.Field()
    headline = scrapy.Field()
    metadata = scrapy.Field()


def test_the_zyte_preset_on_a_typed_item_lacking_fields_writes_those_it_has(caplog):
    pipeline = make_pipeline(BODYTEXT_FIELDS="zyte-article", BODYTEXT_OUTPUT_FORMAT="html")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        (out,) = process(pipeline, (ZyteShaped(url="https://example.com/a", headline="Mine"), new_page()))
    assert out["articleBody"] == "First paragraph.\nSecond one."  # plain text whatever the output format
    assert out["headline"] == "Mine" and out["metadata"] == {"probability": 0.9}
    errors = [record.getMessage() for record in caplog.records if record.levelno == logging.ERROR]
    assert len(errors) == 1 and "articleBodyHtml" in errors[0]


def test_only_stored_articles_make_a_later_page_a_copy():
    """A non-article kept with its text (BODYTEXT_DROP_NON_ARTICLES = False) is not remembered: the first
    article with the same text is the first copy, and the next one names it."""
    pipeline = make_pipeline(BODYTEXT_DROP_NON_ARTICLES=False)
    listing, first, second = {"n": 1}, {"n": 2}, {"n": 3}
    process(  # one extraction thread: the pages are judged in this order
        pipeline,
        (listing, new_page(LISTING, url="https://example.com/listing")),
        (first, new_page(ARTICLE, url="https://example.com/first")),
        (second, new_page(ARTICLE, url="https://example.com/second")),
    )
    assert listing["article_probability"] == 0.1 and "duplicate_of" not in listing and "duplicate_of" not in first
    assert second["duplicate_of"] == "https://example.com/first" and second["duplicate_similarity"] == 1.0
    assert stats(pipeline)["bodytext/duplicates/indexed"] == 1
    assert stats(pipeline)["bodytext/duplicates/flagged"] == 1


def test_the_items_of_a_dropped_copy_share_one_verdict_line_and_review_record(caplog):
    pipeline = make_pipeline(BODYTEXT_DUPLICATES="drop")
    rejected = []
    pipeline.crawler.signals.connect(lambda page, spider: rejected.append(page), signal=page_rejected, weak=False)
    copy = new_page(ARTICLE, url="https://example.com/copy")
    with caplog.at_level(logging.INFO, logger=LOGGER):
        outs = process(
            pipeline,
            ({"n": 0}, new_page(ARTICLE, url="https://example.com/first")),
            *(({"n": n}, copy) for n in (1, 2, 3)),
        )
    assert outs[0] == {"n": 0, "main_text": outs[0]["main_text"], "article_probability": 0.9}
    assert all(type(out).__name__ == "DuplicateArticle" for out in outs[1:])
    assert outs[1].duplicate_of == "https://example.com/first" and outs[1].url == "https://example.com/copy"
    lines = [record.getMessage() for record in caplog.records if "Duplicate (" in record.getMessage()]
    assert lines == [
        "Duplicate (similarity 1.00 to https://example.com/first), items dropped: https://example.com/copy"
    ]
    assert [(page.url, page.reason) for page in rejected] == [("https://example.com/copy", "duplicate")]
    assert stats(pipeline)["bodytext/duplicates/dropped"] == 1 and stats(pipeline)["bodytext/pages/rejected"] == 1


def test_pages_of_kept_types_are_stored_and_articles_in_doubt_listed_for_review():
    pipeline = make_pipeline(BODYTEXT_KEPT_PAGE_TYPES=["article", "forum"])
    announced = []
    pipeline.crawler.signals.connect(lambda page, spider: announced.append(page), signal=page_rejected, weak=False)
    doubtful = new_page(scripted_page(0.3, "article"), url="https://example.com/doubt")
    forum = new_page(scripted_page(0.2, "forum"), url="https://example.com/forum")
    shop = new_page(scripted_page(0.2, "product"), url="https://example.com/shop")
    near_shop = new_page(scripted_page(0.45, "product"), url="https://example.com/near-shop")
    outs = process(pipeline, ({}, doubtful), ({}, forum), ({}, shop), ({}, near_shop))
    assert outs[0]["page_type"] == "article" and outs[1]["page_type"] == "forum"  # several types: each says which
    assert isinstance(outs[2], NotAnArticle) and isinstance(outs[3], NotAnArticle)
    assert [(page.url, page.outcome, page.reason, page.page_type) for page in announced] == [
        ("https://example.com/doubt", "stored", "uncertain_article", "article"),  # in doubt: always listed
        ("https://example.com/near-shop", "dropped", "not_an_article", "product"),  # within the review band
    ]
    found = stats(pipeline)
    assert found["bodytext/pages/review"] == 2 and found["bodytext/pages/rejected"] == 2
    assert found["bodytext/items/kept_types/article"] == found["bodytext/items/kept_types/forum"] == 1


class BrokenVerdicts:
    """A site memory whose verdicts are not verdicts: whatever uses them raises."""

    store = ()

    def judge(self, url, result, complete=True):
        return object()


def test_every_item_of_a_page_is_answered_when_the_site_memorys_work_raises(caplog):
    """A page's decision is shared by its items: when the work that makes it raises, every item still
    gets the page's own verdict (none waits for ever), counted and said once."""
    pipeline = make_pipeline(BODYTEXT_SITE_MEMORY=True)
    page, items = new_page(ARTICLE), [{"n": n} for n in range(3)]

    async def run():
        pipeline.open_spider()
        pipeline.sites.memory = BrokenVerdicts()
        for item in items:
            pipeline.links.link(item, page)
        try:
            gathered = asyncio.gather(*(pipeline.process_item(item) for item in items), return_exceptions=True)
            return await asyncio.wait_for(gathered, 60)  # a hang fails here, not the whole run
        finally:
            await pipeline.close_spider()

    with caplog.at_level(logging.WARNING):
        outs = asyncio.run(run())
    assert [out["article_probability"] for out in outs] == [0.9, 0.9, 0.9]
    assert stats(pipeline)["bodytext/sites/errors"] == 1
    assert len([r for r in caplog.records if "Site memory failed" in r.getMessage()]) == 1


@pytest.mark.parametrize(
    ("evidence", "decided_by", "judge"),
    [
        (None, "page", "the page"),
        (
            {"decided_by": "site", "why": "lowered by the site: its shape"},
            "site",
            "the page with its site: lowered by the site: its shape",
        ),
        ({"decided_by": "page", "why": "the page's own verdict", "page_probability": 0.9}, "page", "the page"),
        ({"page_probability": 0.6, "why": "lowered"}, "site", "the page with its site: lowered"),  # moved, not named
        ({"page_probability": 0.2, "why": "agrees"}, "page", "the page"),
    ],
)
def test_a_decision_names_its_judge_from_the_site_evidence(evidence, decided_by, judge):
    result = dataclasses.replace(extract(b"<p>x</p>"), article_probability=0.2, is_article=False)
    if evidence is not None:
        result = dataclasses.replace(result, debug={"site_evidence": evidence})
    decision = Decision.of(result, 0.5)
    assert (decision.decided_by, decision.judge) == (decided_by, judge)


def test_a_copy_near_the_threshold_is_listed_once_as_dropped_and_its_first_copy_once_as_stored():
    pipeline = make_pipeline(BODYTEXT_DUPLICATES="drop", BODYTEXT_REVIEW_BAND=1.0)
    listed = []
    pipeline.crawler.signals.connect(lambda page, spider: listed.append(page), signal=page_rejected, weak=False)
    copy = new_page(ARTICLE, url="https://example.com/copy")
    process(
        pipeline, ({"n": 0}, new_page(ARTICLE, url="https://example.com/first")), ({"n": 1}, copy), ({"n": 2}, copy)
    )
    assert [(page.url, page.outcome, page.reason) for page in listed] == [
        ("https://example.com/first", "stored", "article"),
        ("https://example.com/copy", "dropped", "duplicate"),
    ]
