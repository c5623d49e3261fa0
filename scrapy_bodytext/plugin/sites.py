"""The crawl's site memory: each judged page's verdict is weighed with what the crawl learned of its
site (``scrapy_bodytext.sites``); an uncertain page of a site with too little evidence yet waits for
more, bounded in count and in time, and never past the crawl's end
([site-memory.md](../../docs/site-memory.md#in-a-crawl)).

Scrapy keeps a response in its scraper slot until every item of it is processed, so a waiting page
holds its response: at most ``BODYTEXT_SITE_WAIT_PAGES`` pages wait at once in the whole crawl (the
oldest is decided on what is known when one more comes), each at most ``BODYTEXT_SITE_WAIT_SECONDS``;
when nothing but waiting pages is left in flight (the crawl would wait on itself) the oldest is
decided at once, and every waiting page is decided when the engine closes.

A memory in Redis is asked from a thread of its own, one call after another (``SerialWork``), so a
slow or frozen server never holds up downloads; each call is bounded by ``BODYTEXT_REDIS_TIMEOUT``
and goes through one guard (``stores.OutageGuard``): a failure, a timeout or a resting server is the
page's own verdict, one WARNING per outage, counted under ``bodytext/sites/redis/``. Every page's
decision resolves on every path: success, error, release, close
([site-memory.md](../../docs/site-memory.md#when-redis-fails)).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy.utils.asyncio import create_looping_call

from ..api import apply_site_verdict
from ..result import ExtractionResult, Reason
from ..sites import SiteMemory, site_key
from ..sites.summary import DEFAULT_MOST, DEFAULT_SITES_LOGGED, learned_sites, summarize_site
from ..stores import StoreUnavailable
from ..workers.executors import wait_for
from ..workers.serial import SerialWork
from .settings import BodyTextSettings, redis_link

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from ..sites import SiteVerdict
    from .spidermiddlewares import Page

#: seconds between two looks at the waiting pages (time bound, a crawl waiting on itself, closing)
TICK_SECONDS = 0.1
#: looks in a row that must find the crawl waiting on itself before the oldest page is released
#: (a download may be about to start between two looks)
STALLED_TICKS = 2
#: probabilities closer than this are the same (the site's combination may round the page's own)
SAME_PROBABILITY = 1e-9
#: how a waiting page was let go, by stat name
BY_COUNT, BY_TIME, WHEN_STALLED, ON_CLOSE = (
    "released_by_count",
    "released_by_time",
    "released_when_stalled",
    ("released_on_close"),
)


@dataclass(eq=False)
class Waiting:
    """One uncertain page waiting for its site's evidence; ``decided`` gets its final result."""

    page: Page
    result: ExtractionResult
    site: str  # the memory's key of the page's site
    since: float  # time.monotonic() when it started waiting
    decided: Future
    complete: bool = True  # the page's body arrived whole


class SiteCheck:
    """One crawl's site memory and the verdict on each of its pages."""

    def __init__(self, settings: BodyTextSettings, crawler: Crawler, log: Callable[..., None]):
        self.settings = settings
        self.crawler = crawler
        self._log = log  # the pipeline's: its per-page lines share one logger
        self.memory: Any = None
        self._decisions: WeakKeyDictionary[Page, Future] = WeakKeyDictionary()
        self._evidence: WeakKeyDictionary[Page, dict] = WeakKeyDictionary()  # the verdict's site_evidence
        self._little: WeakKeyDictionary[Page, dict] = WeakKeyDictionary()  # decided on little evidence
        self._waiting: dict[Page, Waiting] = {}  # oldest first
        self._seen: dict[str, None] = {}  # the sites of the pages judged, in the order first met
        self._stalled_ticks = 0
        self._ticker: Any = None
        self._looking = False  # a look at the waiting pages is queued or running
        self._waits = False  # pages may wait: waiting is on and a running engine can release them
        self._work = SerialWork("bodytext-sites", threaded=False)  # where the memory is asked
        self.guard: Any = None  # the Redis memory's outage guard

    @property
    def stats(self) -> Any:
        return self.crawler.stats

    @property
    def waiting(self) -> int:
        """Pages waiting for evidence now."""
        return len(self._waiting)

    def _count(self, name: str, count: int = 1) -> None:
        self.stats.inc_value(f"bodytext/sites/{name}", count)

    def _count_redis(self, name: str, count: int = 1) -> None:
        self.stats.inc_value(f"bodytext/sites/redis/{name}", count)

    # --- life cycle ------------------------------------------------------------------------------

    def open(self) -> None:
        """Builds the memory (in memory, or in Redis); a Redis that cannot be reached is one ERROR line,
        and every page keeps its own verdict (``bodytext/sites/errors``)."""
        from ..sites import RedisSiteMemory  # loads redis only when asked for

        settings = self.settings
        try:
            if settings.site_memory_redis_url is None:
                self.memory = SiteMemory(max_sites=settings.site_memory_sites)
            else:
                link = redis_link(settings, "BODYTEXT_SITE_MEMORY_REDIS_URL", settings.site_memory_redis_url)
                self.guard = link.guard(
                    "site memory in Redis",
                    fallback="pages keep their own verdicts",
                    log=logging.getLogger(__name__),
                    count=self._count_redis,
                )
                self.memory = RedisSiteMemory(
                    link,
                    prefix=settings.site_memory_redis_prefix,
                    max_sites=settings.site_memory_sites,
                    guard=self.guard,
                )
                self._work = SerialWork("bodytext-sites", threaded=True)
                self._probe()
        except Exception as exc:  # noqa: BLE001 - an unreachable memory must not lose the crawl's items
            self.memory = None
            self._count("errors")
            self._log(logging.ERROR, "Site memory unavailable, every page keeps its own verdict: %s", exc)
        # outside a crawl's engine (a pipeline driven by hand) nothing could release a waiting page
        self._waits = bool(settings.site_wait_pages) and self.memory is not None and self._engine() is not None
        if self._waits:
            self._ticker = create_looping_call(self._tick)
            self._ticker.start(TICK_SECONDS, now=False)

    def _probe(self) -> None:
        """One round trip at the start: a Redis that cannot be reached says so now (one ERROR line);
        the memory stays, and is used as soon as its guard finds Redis answering."""
        try:
            len(self.memory.store)
        except StoreUnavailable as exc:
            self._count("errors")
            self._log(
                logging.ERROR,
                "Site memory not reachable at the start, pages keep their own verdicts until it answers: %s",
                exc,
            )

    async def close(self) -> None:
        """Decides every page still waiting (none normally: the engine's close released them), and
        records the memory's size; the memory's thread ends after its last call."""
        if self._ticker is not None and self._ticker.running:
            self._ticker.stop()
        try:
            await wait_for(self._work.submit(self._closing))
        finally:
            self._work.shutdown()
            if self.guard is not None:
                self.guard.close()

    def _closing(self) -> None:
        self._release_all(ON_CLOSE)
        if self.memory is None:
            return
        self._say_what_was_learned()
        try:
            remembered = len(self.memory.store)
            if remembered:
                self.stats.set_value("bodytext/sites/sites_remembered", remembered)
        except Exception as exc:  # noqa: BLE001 - a size Redis cannot tell is left out of the stats
            self._log(logging.WARNING, "Site memory could not tell its size: %s", exc)
        closing = getattr(self.memory, "close", None)
        if callable(closing):
            try:
                closing()
            except Exception as exc:  # noqa: BLE001 - closing a lost connection is not the crawl's error
                self._log(logging.WARNING, "Site memory did not close cleanly: %s", exc)

    def _say_what_was_learned(self) -> None:
        """One INFO line per site the crawl judged pages of (the sites with the most confident
        verdicts first, at most ``DEFAULT_SITES_LOGGED``): its article and listing shapes, the rules
        a user would otherwise write by hand (``bodytext/sites/sites_learned``: how many sites)."""
        try:
            ranked = learned_sites(self.memory, self._seen)
            shown = [
                summarize_site(self.memory.store, site, most=DEFAULT_MOST, weights=self.memory.weights)
                for site in ranked[:DEFAULT_SITES_LOGGED]
            ]
        except Exception as exc:  # noqa: BLE001 - what was learned is a report: its failure costs nothing else
            self._log(logging.INFO, "Site memory could not tell what the crawl learned: %s", exc)
            return
        if ranked:
            self.stats.set_value("bodytext/sites/sites_learned", len(ranked))
        for summary in shown:
            if summary is not None:
                self._log(logging.INFO, "Site memory learned: %s", summary.line())
        if len(ranked) > len(shown):
            self._log(logging.INFO, "Site memory learned of %d more sites (not shown)", len(ranked) - len(shown))

    # --- one verdict per page --------------------------------------------------------------------

    async def decide(self, page: Page, result: ExtractionResult) -> ExtractionResult:
        """The page's result as its site's evidence has it (the page's own for failed pages, or when
        the memory is off or failing); the first item of a page asks, its other items share the answer."""
        if self.memory is None or result.reason is not Reason.OK:
            return result
        decided = self._decisions.get(page)
        if decided is None:
            decided = self._decisions[page] = Future()
            self._work.submit(self._start_safely, page, result, decided)
        return decided.result() if decided.done() else await wait_for(decided)

    def evidence(self, page: Page) -> dict | None:
        """The page's ``site_evidence`` (None: not judged by the memory)."""
        return self._evidence.get(page)

    def little_evidence(self, page: Page) -> dict | None:
        """The evidence of a page decided while its site had too little of it (listed for review)."""
        return self._little.get(page)

    def _start_safely(self, page: Page, result: ExtractionResult, decided: Future) -> None:
        """``_start``, whatever fails: a page that is not waiting has its answer when this returns
        (its own verdict when anything failed)."""
        try:
            self._start(page, result, decided)
        except Exception as exc:  # noqa: BLE001 - a page must never wait on a failed decision
            self._count("errors")
            self._log(logging.WARNING, "Site memory failed, the page keeps its own verdict (%s): %s", exc, page.url)
        finally:
            if page not in self._waiting:
                _resolve(decided, result)

    def _start(self, page: Page, result: ExtractionResult, decided: Future) -> None:
        complete = page.complete
        verdict = self._judge(page.url, result, complete)
        if verdict is None:
            _resolve(decided, result)
            return
        self._count("judged")
        self._seen.setdefault(_site_of(page.url))
        if verdict.evidence.get("capped"):
            self._count("not_raised")
        if verdict.settled or not self._waits:
            self._settle(page, result, verdict, decided)
            return
        # a page that waits teaches at once what its verdict teaches (a confident page is evidence
        # whether or not it is settled); the pages of its site that wait are judged again with it
        try:
            learned = self._learn(page.url, result, verdict)
        except Exception as exc:  # noqa: BLE001 - the page waits all the same; the memory misses it
            self._failed("the page is not recorded", exc, page.url)
            learned = False
        if learned:
            self._count("taught_while_waiting")
            self._judge_waiting(_site_of(page.url))
        self._waiting[page] = Waiting(page, result, _site_of(page.url), time.monotonic(), decided, complete)
        self._count("waited")
        if len(self._waiting) > self.settings.site_wait_pages:
            self._release_oldest(BY_COUNT)
        self.stats.max_value("bodytext/sites/waiting_max", len(self._waiting))

    def _judge(self, url: str, result: ExtractionResult, complete: bool = True) -> SiteVerdict | None:
        try:
            return self.memory.judge(url, result, complete=complete)
        except Exception as exc:  # noqa: BLE001 - a failing memory leaves the page its own verdict
            self._failed("the page keeps its own verdict", exc, url)
            return None

    def _failed(self, outcome: str, exc: Exception, url: str) -> None:
        """Counts a failed call of the memory; a Redis outage is said once by its guard (the page's
        line goes to DEBUG), any other failure is one WARNING for the page."""
        self._count("errors")
        level = logging.DEBUG if isinstance(exc, StoreUnavailable) else logging.WARNING
        self._log(level, "Site memory failed, %s (%s): %s", outcome, exc, url)

    def _settle(self, page: Page, result: ExtractionResult, verdict: SiteVerdict, decided: Future) -> None:
        """Records the verdict, gives the page its final result, and judges again the pages of its
        site that wait (the site knows one page more)."""
        try:
            self._learn(page.url, result, verdict)
        except Exception as exc:  # noqa: BLE001 - the verdict stands; the memory misses one page
            self._failed("the page is not recorded", exc, page.url)
        try:
            final = self._apply(page, result, verdict)
        except Exception as exc:  # noqa: BLE001 - the furniture lines could not be read: its own verdict
            self._failed("the page keeps its own verdict", exc, page.url)
            _resolve(decided, result)
            return
        self._evidence[page] = dict(verdict.evidence)
        if not verdict.settled:
            self._count("decided_with_little_evidence")
            self._little[page] = dict(verdict.evidence)
        _resolve(decided, final)
        self._judge_waiting(_site_of(page.url))

    def _learn(self, url: str, result: ExtractionResult, verdict: SiteVerdict) -> bool:
        """``memory.learn`` (True when the page taught its site something), counting the sites an
        in-memory store forgets to make room for a new one (a shared Redis store is bounded by every
        process at once: not counted there)."""
        sites = getattr(self.memory.store, "sites", None)  # the in-memory store's sites, oldest first
        site = verdict.evidence.get("site")
        new = isinstance(sites, dict) and site is not None and site not in sites
        before = len(self.memory.store) if new else 0
        learned = self.memory.learn(url, result, verdict)
        if learned and new and len(self.memory.store) == before:
            self._count("sites_forgotten")
        return learned

    def _apply(self, page: Page, result: ExtractionResult, verdict: SiteVerdict) -> ExtractionResult:
        """``result`` as the site's verdict has it (``extract(..., memory=...)``'s rule: the memory's
        fitted decision, the type that follows, an article's text without the site's furniture)."""
        if verdict.is_article == result.is_article and (
            abs(verdict.probability - result.article_probability) < SAME_PROBABILITY
        ):
            return result  # the site changes nothing: the page keeps its own figures, to the last digit
        final = apply_site_verdict(result, verdict, self.memory, page.url)
        if final.is_article != result.is_article:
            self._count("overturned_to_article" if final.is_article else "overturned_to_non_article")
            self._log(
                logging.INFO,
                "Site memory: %s (article_probability %.2f on the page, %.2f with its site: %s): %s",
                "an article" if final.is_article else "not an article",
                result.article_probability,
                verdict.probability,
                verdict.evidence.get("why", "") or "site evidence",
                page.url,
            )
        return final

    # --- waiting pages ---------------------------------------------------------------------------

    def _judge_waiting(self, site: str) -> None:
        """Judges again the waiting pages of ``site`` (it gained evidence); those its evidence now
        settles are decided."""
        for entry in [entry for entry in self._waiting.values() if entry.site == site]:
            if entry.page not in self._waiting:  # decided meanwhile (a page decided before it settled it)
                continue
            verdict = self._judge(entry.page.url, entry.result, entry.complete)
            if verdict is None or verdict.settled:
                del self._waiting[entry.page]
                self._count("settled_while_waiting" if verdict is not None else "released_on_error")
                self._decide_now(entry, verdict)

    def _release_oldest(self, how: str) -> None:
        """Decides the page that has waited longest on what its site's evidence is now."""
        entry = self._waiting.pop(next(iter(self._waiting)))
        self._count(how)
        self._decide_now(entry, self._judge(entry.page.url, entry.result, entry.complete))

    def _decide_now(self, entry: Waiting, verdict: SiteVerdict | None) -> None:
        """A page out of the waiting ones gets its answer, whatever fails (then its own verdict)."""
        try:
            if verdict is not None:
                self._settle(entry.page, entry.result, verdict, entry.decided)
        except Exception as exc:  # noqa: BLE001 - the page is decided on its own verdict, the others go on
            self._failed("the page keeps its own verdict", exc, entry.page.url)
        finally:
            _resolve(entry.decided, entry.result)  # nothing when settled

    def _release_all(self, how: str) -> None:
        while self._waiting:
            self._release_oldest(how)

    def _tick(self) -> None:
        """The bounds that do not come with a new page: time, the crawl waiting on itself, closing.
        Reads the engine here (the crawl's thread) and looks at the waiting pages where the memory is
        asked; never raises, so the looping call never dies."""
        if not self._waiting:
            self._stalled_ticks = 0
            return
        if self._looking:
            return
        try:
            closing, stalled = self._engine_closing(), self._stalled()
        except Exception:  # noqa: BLE001 - an engine that cannot be read is one that closes
            closing, stalled = True, False
        self._looking = True
        try:
            looked = self._work.submit(self._look_safely, closing, stalled)
        except Exception:  # noqa: BLE001 - nothing queued: look again next tick
            self._looking = False
            return
        looked.add_done_callback(self._looked)

    def _looked(self, _future: Future) -> None:
        self._looking = False

    def _look_safely(self, closing: bool, stalled: bool) -> None:
        """``_look``; a failure there would leave pages waiting with nothing to release them: they are
        all decided (each on its own verdict where the memory fails)."""
        try:
            self._look(closing, stalled)
        except Exception as exc:  # noqa: BLE001 - never leave a page waiting on a broken look
            self._count("errors")
            self._log(logging.ERROR, "Site memory's waiting pages decided at once after an error: %r", exc)
            self._waits = False
            self._release_all(ON_CLOSE)

    def _look(self, closing: bool, stalled: bool) -> None:
        if not self._waiting:
            self._stalled_ticks = 0
            return
        if closing:
            self._release_all(ON_CLOSE)
            return
        deadline = time.monotonic() - self.settings.site_wait_seconds
        while self._waiting and next(iter(self._waiting.values())).since <= deadline:
            self._release_oldest(BY_TIME)
        self._stalled_ticks = self._stalled_ticks + 1 if self._waiting and stalled else 0
        if self._stalled_ticks >= STALLED_TICKS:
            self._stalled_ticks = 0
            self._release_oldest(WHEN_STALLED)

    def _engine(self) -> Any:
        """The crawl's engine, None before the crawl starts (or when no crawl runs the pipeline)."""
        try:
            return self.crawler.engine
        except RuntimeError:  # Scrapy's "not set yet"
            return None

    def _engine_closing(self) -> bool:
        engine = self._engine()
        slot = getattr(engine, "_slot", None)
        return engine is None or not engine.running or slot is None or bool(getattr(slot, "closing", None))

    def _stalled(self) -> bool:
        """Whether the crawl waits on itself: nothing downloading, and every response in the scraper is
        one whose items wait (they hold the scraper slot; no evidence can come)."""
        engine = self._engine()
        try:
            slot = engine.scraper.slot
            if engine.downloader.active or slot.queue:
                return False
            return len(self._waiting) >= len(slot.active)
        except AttributeError:  # another Scrapy's engine: the time bound still holds
            return False

    def review_detail(self, page: Page) -> str:
        """What the review feed says of a page decided on little site evidence ('' for other pages)."""
        evidence = self._little.get(page)
        if evidence is None:
            return ""
        return "decided with little site evidence: " + json.dumps(evidence, sort_keys=True, default=str)


def _resolve(decided: Future, result: ExtractionResult) -> None:
    """Hands ``result`` to the items awaiting ``decided`` (none when their task was cancelled)."""
    if not decided.done():
        decided.set_result(result)


def _site_of(url: str) -> str:
    return site_key(url)
