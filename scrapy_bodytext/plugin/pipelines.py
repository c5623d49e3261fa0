"""Item pipeline: extracts each page once, writes the fields, keeps articles and drops the rest.

For an item linked to its page by :class:`BodyTextSpiderMiddleware`, the configured extractor runs on
the page's body in a bounded pool (threads, or worker processes with ``BODYTEXT_WORKERS``), once per
page however many items the page produced. Articles get the result values ``BODYTEXT_FIELDS`` names
(``main_text`` and ``article_probability`` by default), the page's verdict weighed first with its
site's evidence (``BODYTEXT_SITE_MEMORY``: an uncertain page may wait for more); items of non-article pages raise
:class:`NotAnArticle`; items of pages the extractor could not handle follow ``BODYTEXT_ON_FAILURE``.
An article repeating one the crawl stored already is flagged (``duplicate_of``,
``duplicate_similarity``) or dropped (:class:`DuplicateArticle`), by ``BODYTEXT_DUPLICATES``. A page's
drop line, stats, review record and item state its one :class:`Decision`; each page listed for review
(within ``BODYTEXT_REVIEW_BAND`` of the threshold, kept in doubt, or dropped for another reason than
its probability) is announced once with the ``page_rejected`` signal (the review feed's input).
Items of untagged responses, and of classes outside ``BODYTEXT_ITEM_CLASSES``, pass untouched.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem
from scrapy.utils.asyncio import run_in_thread
from scrapy.utils.conf import build_component_list
from scrapy.utils.misc import load_object
from scrapy.utils.python import global_object_name

from ..config import ExtractConfig
from ..result import ExtractionResult, Reason, empty_result
from ..workers.executors import Executor, WorkerLost, announce, extract_timed, make_executor, wait_for
from . import zyte
from .decision import Decision
from .duplicates import DuplicateCheck
from .middlewares import BodyTextDownloaderMiddleware
from .review import (
    ARTICLE,
    DROPPED,
    DUPLICATE,
    KEPT_TYPE,
    NOT_AN_ARTICLE,
    STORED,
    UNCERTAIN_ARTICLE,
    RejectedFeed,
    RejectedPage,
    page_rejected,
)
from .settings import CRAWL_VALUES, BodyTextSettings
from .sites import SiteCheck
from .spidermiddlewares import META_EXTRACTOR, BodyTextSpiderMiddleware, ItemLinks, Page
from .startup import crawler_settings

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..duplicates import Match

logger = logging.getLogger(__name__)

#: reasons that are a verdict on the page (the extractor looked and found no article text)
JUDGED = frozenset({Reason.OK, Reason.NO_MAIN_TEXT})
#: failure reasons worth a warning (the others are ordinary pages the plugin does not handle)
WARN_REASONS = frozenset({Reason.TIME_LIMIT, Reason.ERROR})
#: Scrapy's own "Dropped: <reason> <whole item>" line goes to DEBUG, next to "Scraped from <item>";
#: the pipeline logs one short INFO line per page instead
DROP_LOG_LEVEL = "DEBUG"


class NotAnArticle(DropItem):
    """The item's page is not an article: its final probability below ``BODYTEXT_ARTICLE_THRESHOLD``
    (``decided_by``: "page", or "site" when its site's evidence decided)."""

    def __init__(self, url: str, decision: Decision, extractor: str):
        super().__init__(
            f"not an article: article_probability {decision.comparison} ({extractor}, decided by "
            f"{decision.judge}) {url}",
            log_level=DROP_LOG_LEVEL,
        )
        self.url = url
        self.probability = decision.article_probability
        self.threshold = decision.threshold
        self.decided_by = decision.decided_by


class ExtractionFailed(DropItem):
    """No main text could be extracted from the item's page (``BODYTEXT_ON_FAILURE = "drop"``)."""

    def __init__(self, url: str, reason: Reason, detail: str):
        super().__init__(f"no extraction ({reason.value}: {detail}) {url}", log_level=DROP_LOG_LEVEL)
        self.url = url
        self.reason = reason


class DuplicateArticle(DropItem):
    """The item's page repeats an article the crawl stored already (``BODYTEXT_DUPLICATES = "drop"``)."""

    def __init__(self, url: str, match: Match):
        super().__init__(f"duplicate: similarity {match.similarity:.2f} to {match.url} {url}", log_level=DROP_LOG_LEVEL)
        self.url = url
        self.duplicate_of = match.url
        self.similarity = match.similarity


class BodyTextPipeline:
    """Gives the items of each tagged page the page's main text and article probability, or drops them."""

    def __init__(self, crawler: Crawler, settings: BodyTextSettings, executor: Executor | None = None):
        self.crawler = crawler
        self.settings = settings
        self.links = ItemLinks.of(crawler)
        self.executor = executor or make_executor(
            settings.threads, settings.workers, max_tasks=settings.worker_max_tasks, timeout=settings.worker_timeout
        )
        self._configs: dict[Any, ExtractConfig | str] = {}  # Request.meta extractor -> config or error
        # id of a config -> (that config, kept so the id stays its own; the one Zyte Articles need)
        self._article_configs: dict[int, tuple[ExtractConfig, ExtractConfig]] = {}
        self._missing: dict[type, tuple[str, ...]] = {}  # item class -> fields it lacks
        self.duplicates = None if settings.duplicates == "off" else DuplicateCheck(settings, crawler.stats, self._log)
        self.sites = SiteCheck(settings, crawler, self._log) if settings.site_memory else None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BodyTextPipeline:
        return cls(crawler, crawler_settings(crawler))

    @property
    def stats(self) -> Any:
        return self.crawler.stats

    def _log(self, level: int, message: str, *args: Any) -> None:
        logger.log(level, message, *args, extra={"spider": self.crawler.spider})

    def open_spider(self) -> None:
        self._warn_missing_components()
        self.executor.start()
        announce(self.executor, self.crawler.settings.get("BODYTEXT_WORKERS"))
        if self.duplicates is not None:
            self.duplicates.open()
        if self.sites is not None:
            self.sites.open()

    async def close_spider(self) -> None:
        if self.sites is not None:
            await self.sites.close()
        await run_in_thread(self.executor.shutdown)
        if self.duplicates is not None:
            self.duplicates.close()
        counts = getattr(self.executor, "counts", None)
        if counts is not None:  # worker processes
            self.stats.set_value("bodytext/workers/pool_size", self.settings.workers)
            for name in ("started", "recycled", "replaced"):
                self.stats.set_value(f"bodytext/workers/{name}", getattr(counts, name))

    async def process_item(self, item: Any) -> Any:
        page = self.links.pop(item)
        if not self.settings.in_scope(item):
            self.stats.inc_value("bodytext/items/out_of_scope")
            return item
        if page is None:
            self.stats.inc_value("bodytext/items/untagged")
            return item
        result = await self._result_of(page, zyte.is_article(item))
        self.stats.inc_value("bodytext/items/extracted")
        if result.reason not in JUDGED:
            self.stats.inc_value(f"bodytext/items/failed/{result.reason.value}")
            if self.settings.on_failure == "drop":
                raise ExtractionFailed(page.url, result.reason, result.detail)
        elif result.is_article:
            self.stats.inc_value("bodytext/items/articles")
        elif self.settings.keeps(result):
            self.stats.inc_value(f"bodytext/items/kept_types/{result.page_type}")
        else:
            self.stats.inc_value("bodytext/items/non_articles")
            if self.settings.drop_non_articles:
                raise NotAnArticle(page.url, Decision.of(result, self._threshold), result.extractor)
        duplicate = await self._duplicate_of(page, result)
        self._write(item, result, page)
        if duplicate is not None and self.duplicates is not None:
            self.duplicates.flag(item, duplicate)
        return item

    async def _duplicate_of(self, page: Page, result: ExtractionResult) -> Match | None:
        """The stored article this article repeats (None: the first copy, now indexed); its items are
        dropped instead with ``BODYTEXT_DUPLICATES = "drop"``. Only articles about to be stored are
        looked up, so a dropped page never makes a later one a duplicate."""
        if self.duplicates is None or not result.is_article:
            return None
        first = not self.duplicates.asked(page)
        match = await self.duplicates.verdict(page, result)
        if match is not None and self.duplicates.dropping:
            if first:
                self.stats.inc_value("bodytext/pages/rejected")
                detail = f"duplicate of {match.url} (similarity {match.similarity:.2f})"
                self._announce(page, result, Decision.of(result, self._threshold), DROPPED, DUPLICATE, detail)
            raise DuplicateArticle(page.url, match)
        if first and self.duplicates.dropping:  # held back until it was known not to be a copy
            self._review(page, result, Decision.of(result, self._threshold), STORED, ARTICLE)
        return match

    @property
    def _threshold(self) -> float:
        return self.settings.extract.threshold

    # --- one extraction per page -------------------------------------------------------------

    async def _result_of(self, page: Page, article: bool = False) -> ExtractionResult:
        """The page's result, extracting it if no other item of the page did, weighed with its site's
        evidence; reported once. ``article``: the item is a Zyte ``Article``, whose fields need the
        page's metadata and plain text."""
        if page.result is None:
            await self._extract(page, article)
        assert page.result is not None
        if self.sites is not None:
            page.result = await self.sites.decide(page, page.result)
        if not page.reported:
            page.reported = True
            self._report(page, page.result)
        return page.result

    async def _extract(self, page: Page, article: bool = False) -> None:
        config = self._config_for(page.extractor)
        if article and not isinstance(config, str):
            config = self._article_config(config)
        if isinstance(config, str):
            page.result = empty_result(
                str(page.extractor), Reason.ERROR, config, output_format=self.settings.extract.output_format
            )
            page.body = None
            return
        if page.pending is None:
            page.pending = self.executor.submit(
                extract_timed, page.body, config, page.url, page.encoding, page.content_type
            )
        try:
            result, seconds = await wait_for(page.pending)
        except WorkerLost as exc:
            self.stats.inc_value(f"bodytext/errors/worker_{exc.reason}")
            detail, reason = f"worker {exc}", Reason(exc.reason)
            result, seconds = empty_result(config.extractor, reason, detail, output_format=config.output_format), 0.0
        except Exception as exc:  # noqa: BLE001 - a failing page must not fail the crawl
            self.stats.inc_value(f"bodytext/errors/{type(exc).__name__}")
            detail = f"{type(exc).__name__}: {exc}"[:300]
            result = empty_result(config.extractor, Reason.ERROR, detail, output_format=config.output_format)
            seconds = 0.0
        if page.result is None:  # the first item of the page to resume records the extraction
            page.result, page.seconds = result, seconds
            page.body = page.pending = None
            self._count_extraction(result, seconds)

    def _config_for(self, extractor: Any) -> ExtractConfig | str:
        """The configuration for a page: the settings', or one derived for a Request.meta extractor
        (cached per name); a string is the error message for an invalid name."""
        default = self.settings.extract
        if extractor is None or extractor == default.extractor:
            return default
        key = extractor if isinstance(extractor, str) else repr(extractor)
        found = self._configs.get(key)
        if found is None:
            try:
                if not isinstance(extractor, str):
                    raise ValueError("expected the name of an extractor")
                found = default.replace(extractor=extractor)
            except (ValueError, ImportError) as exc:
                found = f"invalid Request.meta[{META_EXTRACTOR!r}] {extractor!r}"
                self._log(logging.ERROR, "%s: %s", found, exc)
            self._configs[key] = found
        if isinstance(found, str):
            self.stats.inc_value("bodytext/errors/unknown_extractor")
        return found

    def _article_config(self, config: ExtractConfig) -> ExtractConfig:
        """``config`` reading the page's metadata and plain text too (what a Zyte ``Article`` holds)."""
        if config.metadata and config.plain_text:
            return config
        found = self._article_configs.get(id(config))
        if found is None:
            found = self._article_configs[id(config)] = (config, config.replace(metadata=True, plain_text=True))
        return found[1]

    def _count_extraction(self, result: ExtractionResult, seconds: float) -> None:
        stats = self.stats
        milliseconds = round(seconds * 1000)
        stats.inc_value("bodytext/pages/extracted")
        stats.inc_value(f"bodytext/extractor/{result.extractor}")
        stats.inc_value("bodytext/extraction_time/total_ms", milliseconds)
        stats.max_value("bodytext/extraction_time/max_ms", milliseconds)

    def _report(self, page: Page, result: ExtractionResult) -> None:
        """Stats and at most one log line per page (never per item, never the page's text), each
        stating the page's one decision (``Decision``); the page is listed for review when its
        probability is within ``BODYTEXT_REVIEW_BAND`` of the threshold, kept in doubt, or dropped
        for another reason than its probability."""
        if result.reason not in JUDGED:
            self.stats.inc_value(f"bodytext/pages/failed/{result.reason.value}")
            outcome = "dropped" if self.settings.on_failure == "drop" else "stored with empty text"
            level = logging.WARNING if result.reason in WARN_REASONS else logging.INFO
            self._log(
                level, "No main text (%s: %s), items %s: %s", result.reason.value, result.detail, outcome, page.url
            )
            if self.settings.on_failure == "drop":
                self.stats.inc_value("bodytext/pages/rejected")
                decision = Decision.of(result, self._threshold)
                self._announce(page, result, decision, DROPPED, result.reason.value, result.detail)
            return
        decision = Decision.of(result, self._threshold)
        self.stats.inc_value(f"bodytext/pages/decided_by/{decision.decided_by}")
        if result.is_article:
            self.stats.inc_value("bodytext/pages/articles")
            if self.duplicates is None or not self.duplicates.dropping:  # else once it is known not a copy
                self._review(page, result, decision, STORED, ARTICLE)
        elif self.settings.keeps(result):
            self.stats.inc_value(f"bodytext/pages/kept_types/{result.page_type}")
            if result.page_type == "article":  # typed an article below the threshold: kept, and listed for review
                self._log(
                    logging.INFO,
                    "Kept for review (typed an article at article_probability %s, %s, decided by %s): %s",
                    decision.comparison,
                    result.extractor,
                    decision.judge,
                    page.url,
                )
                self._announce(page, result, decision, STORED, UNCERTAIN_ARTICLE, decision.why, review=True)
            else:
                self._review(page, result, decision, STORED, KEPT_TYPE)
        else:
            self.stats.inc_value("bodytext/pages/non_articles")
            reason = NOT_AN_ARTICLE if result.reason is Reason.OK else result.reason.value
            if self.settings.drop_non_articles:
                self.stats.inc_value("bodytext/pages/rejected")
                self._log(
                    logging.INFO,
                    "Not an article (article_probability %s, %s, decided by %s), items dropped: %s",
                    decision.comparison,
                    result.extractor,
                    decision.judge,
                    page.url,
                )
                self._review(page, result, decision, DROPPED, reason)
            else:
                self._review(page, result, decision, STORED, reason)

    def _review(self, page: Page, result: ExtractionResult, decision: Decision, outcome: str, reason: str) -> None:
        """Lists a judged page for review when its probability is within the review band."""
        if decision.near(self.settings.review_band):
            self._announce(page, result, decision, outcome, reason, decision.why, review=True)

    def _announce(
        self,
        page: Page,
        result: ExtractionResult,
        decision: Decision,
        outcome: str,
        reason: str,
        detail: str = "",
        *,
        review: bool = False,
    ) -> None:
        """The ``page_rejected`` signal (the review feed's input), once per page listed, stating its
        ``decision``; ``review``: a page listed for its verdict (counted in ``bodytext/pages/review``)."""
        if review:
            self.stats.inc_value("bodytext/pages/review")
        page_type = result.page_type
        if not decision.is_article and page_type == "article" and reason != UNCERTAIN_ARTICLE:
            page_type = "other"  # the final decision: not an article, whatever the method typed it
        evidence = result.debug.get("site_evidence") if isinstance(result.debug, dict) else None
        listed = RejectedPage(
            url=page.url,
            outcome=outcome,
            reason=reason,
            article_probability=decision.article_probability,
            threshold=decision.threshold,
            decided_by=decision.decided_by,
            extractor=result.extractor,
            page_type=page_type,
            title=result.title,
            detail=detail,
            site_evidence=dict(evidence) if isinstance(evidence, dict) else None,
        )
        self.crawler.signals.send_catch_log(page_rejected, page=listed, spider=self.crawler.spider)

    # --- item fields ---------------------------------------------------------------------------

    def _write(self, item: Any, result: ExtractionResult, page: Page) -> None:
        """The result values BODYTEXT_FIELDS names, into their item fields (tuples as lists), and the
        crawl's (``site_evidence``); Zyte's fields and shapes for a Zyte ``Article`` and with the
        zyte-article preset."""
        if zyte.is_article(item):
            zyte.fill_article(item, result, overwrite=self.settings.zyte_overwrite)
            return
        missing = self._missing_fields(type(item))
        adapter = ItemAdapter(item)
        values = {}
        for value_name, field in self.settings.field_map:
            if field not in missing:
                value = self._crawl_value(value_name, page) if value_name in CRAWL_VALUES else result.value(value_name)
                values[field] = list(value) if isinstance(value, tuple) else value
        if self.settings.zyte:
            shaped = zyte.article_values(result)
            values.update(
                (field, value)
                for field, value in shaped.items()
                if field in values or (field == zyte.HTML_FIELD and field not in missing)
            )
            zyte.fill_dict(adapter, values, overwrite=self.settings.zyte_overwrite)
        else:
            adapter.update(values)
        if missing:
            self.stats.inc_value("bodytext/errors/missing_fields")

    def _crawl_value(self, name: str, page: Page) -> Any:
        """A value the crawl adds to the page's own: ``site_evidence`` (None: the page was not judged
        with its site), ``decided_by`` ("page" or "site", as its drop line and review record say)."""
        if name == "decided_by":
            assert page.result is not None
            return Decision.of(page.result, self._threshold).decided_by
        assert name == "site_evidence", name
        return self.sites.evidence(page) if self.sites is not None else None

    def _missing_fields(self, item_class: type) -> tuple[str, ...]:
        """Fields a typed item class lacks; reported once per class, with what to declare."""
        missing = self._missing.get(item_class)
        if missing is None:
            declared = ItemAdapter.get_field_names_from_class(item_class)
            missing = () if declared is None else tuple(f for f in self.settings.fields if f not in declared)
            self._missing[item_class] = missing
            if missing:
                self._log(
                    logging.ERROR,
                    "Item class %s has no field %s: declare %s in it (e.g. %s = scrapy.Field(), or a dataclass/"
                    "attrs field with a default), or choose fields it has with BODYTEXT_FIELDS (or "
                    "BODYTEXT_TEXT_FIELD / BODYTEXT_PROBABILITY_FIELD). Its items are still kept or dropped by "
                    "article probability, without %s.",
                    global_object_name(item_class),
                    ", ".join(missing),
                    " and ".join(missing),
                    missing[0],
                    "these fields" if len(missing) > 1 else "this field",
                )
        return missing

    def _warn_missing_components(self) -> None:
        """Manual enabling that forgot a component would leave every item untagged, or write no review
        feed: say so."""
        settings = self.crawler.settings
        for setting, component in (
            ("DOWNLOADER_MIDDLEWARES", BodyTextDownloaderMiddleware),
            ("SPIDER_MIDDLEWARES", BodyTextSpiderMiddleware),
        ):
            enabled = {load_object(path) for path in build_component_list(settings.getwithbase(setting))}
            if component not in enabled:
                self._log(
                    logging.WARNING,
                    "BodyTextPipeline is enabled but %s is not in %s: no item will get "
                    "main text (enable both, or use ADDONS = {'scrapy_bodytext.Addon': 0})",
                    component.__name__,
                    setting,
                )
        if self.settings.rejected_feeds and self.crawler.get_extension(RejectedFeed) is None:
            self._log(
                logging.WARNING,
                "BODYTEXT_REJECTED_FEED is set but the RejectedFeed extension is not in "
                "EXTENSIONS: no review feed will be written (add it, or use ADDONS = "
                "{'scrapy_bodytext.Addon': 0})",
            )
