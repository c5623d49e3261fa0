"""The crawl's site memory: each judged page's verdict is weighed with what the crawl learned of its
site (``scrapy_bodytext.sites``); an uncertain page of a site with too little evidence yet waits for
more, bounded in count and in time, and never past the crawl's end
([site-memory.md](../../docs/site-memory.md#in-a-crawl)).

Scrapy keeps a response in its scraper slot until every item of it is processed, so a waiting page
holds its response: at most ``BODYTEXT_SITE_WAIT_PAGES`` pages wait at once in the whole crawl (the
oldest is decided on what is known when one more comes), each at most ``BODYTEXT_SITE_WAIT_SECONDS``;
when nothing but waiting pages is left in flight (the crawl would wait on itself) the oldest is
decided at once, and every waiting page is decided when the engine closes.

The waiting policy itself (what waits, what teaches, when waiting pages are judged again, the final
result) is ``sites.waiting.WaitingRoom``, the same the fitting replays and ``extract(..., memory=...)``
follows; this module adds its thread, the bounds in time and count and the looks at the engine. The
site's verdict decides at ``BODYTEXT_ARTICLE_THRESHOLD``: a stored page's probability is never below it.

A memory in Redis is asked from a thread of its own, one call after another (``SerialWork``), so a
slow or frozen server never holds up downloads; each call is bounded by ``BODYTEXT_REDIS_TIMEOUT``
and goes through one guard (``stores.OutageGuard``): a failure, a timeout or a resting server is the
page's own verdict, one WARNING per outage, counted under ``bodytext/sites/redis/``. Counts and log
lines made on that thread are handed to the reactor (``on_reactor``). Every page's decision resolves
on every path: success, error, release, close, a thread that no longer takes work
([site-memory.md](../../docs/site-memory.md#when-redis-fails)).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from scrapy.utils.asyncio import create_looping_call

from ..result import ExtractionResult, Reason
from ..sites import SiteMemory
from ..sites.summary import DEFAULT_MOST, DEFAULT_SITES_LOGGED, TaughtSites, learned_sites, summarize_site
from ..sites.waiting import BY_TIME, ON_CLOSE, WHEN_STALLED, Decided, WaitingRoom, with_own_verdict
from ..stores import StoreUnavailable
from ..workers.executors import wait_for
from ..workers.serial import SerialWork
from .on_reactor import ReactorCounts, on_reactor
from .settings import BodyTextSettings, redis_link

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from .spidermiddlewares import Page

#: seconds between two looks at the waiting pages (time bound, a crawl waiting on itself, closing)
TICK_SECONDS = 0.1
#: looks in a row that must find the crawl waiting on itself before the oldest page is released
#: (a download may be about to start between two looks)
STALLED_TICKS = 2
#: sites read at the close to rank what the crawl learned (the ones it taught most)
SITES_READ_AT_CLOSE = 2 * DEFAULT_SITES_LOGGED


class SiteCheck:
    """One crawl's site memory and the verdict on each of its pages."""

    def __init__(self, settings: BodyTextSettings, crawler: Crawler, log: Callable[..., None]):
        self.settings = settings
        self.crawler = crawler
        self._log = log  # the pipeline's: its per-page lines share one logger
        self.room: WaitingRoom | None = None
        self._memory: Any = None
        self.counts = ReactorCounts(crawler.stats, "bodytext/sites", log)
        self._decisions: WeakKeyDictionary[Page, Future] = WeakKeyDictionary()  # shared by a page's items
        self._evidence: WeakKeyDictionary[Page, dict] = WeakKeyDictionary()  # the verdict's site_evidence
        self._little: WeakKeyDictionary[Page, dict] = WeakKeyDictionary()  # decided on little evidence
        self._pending: dict[Page, tuple[Future, ExtractionResult]] = {}  # pages in the room: answer, own result
        self.taught = TaughtSites()  # what the crawl taught each site, bounded
        self._stalled_ticks = 0
        self._ticker: Any = None
        self._looking = False  # a look at the waiting pages is queued or running
        self._waits = False  # pages may wait: waiting is on and a running engine can release them
        self._closed = False  # closing or closed: a page asked now keeps its own verdict
        self._said: set[str] = set()  # the kinds of failure said once (an unreadable engine, page signals)
        self._work = SerialWork("bodytext-sites", threaded=False)  # where the memory is asked
        self.guard: Any = None  # the Redis memory's outage guard

    @property
    def memory(self) -> Any:
        """The crawl's site memory (None: off, or it could not be built); its waiting room asks it."""
        return self._memory

    @memory.setter
    def memory(self, memory: Any) -> None:
        self._memory = memory
        if self.room is not None:
            self.room.memory = memory

    @property
    def stats(self) -> Any:
        return self.crawler.stats

    @property
    def waiting(self) -> int:
        """Pages waiting for evidence now."""
        return len(self.room) if self.room is not None else 0

    def _count(self, name: str, count: int = 1) -> None:
        self.counts.count(name, count)

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
                # the guard's counts and lines reach the stats and the log on the reactor thread
                redis_counts = ReactorCounts(self.stats, "bodytext/sites/redis", logging.getLogger(__name__).log)
                self.guard = link.guard(
                    "site memory in Redis",
                    fallback="pages keep their own verdicts",
                    log=redis_counts.log,
                    count=redis_counts.count,
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
        if self.memory is not None:
            self.room = WaitingRoom(
                self.memory,
                threshold=settings.extract.threshold,
                capacity=settings.site_wait_pages if self._waits else 0,
                count=self._count,
                failed=self._failed,
                taught=self.taught.add,
            )
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
        self._closed = True
        try:
            await wait_for(self._work.submit(self._closing))
        except Exception as exc:  # noqa: BLE001 - the thread took no more work: decide what is left here
            self._count("errors")
            self._log(
                logging.WARNING, "Site memory could not close on its thread, pages keep their own verdicts: %s", exc
            )
        finally:
            self._work.shutdown()
            self._resolve_left()
            if self.guard is not None:
                self.guard.close()

    def _closing(self) -> None:
        self._release(ON_CLOSE)
        if self.memory is None:
            return
        self._say_what_was_learned()
        try:
            remembered = len(self.memory.store)
            if remembered:
                self.counts.set_value("sites_remembered", remembered)
        except Exception as exc:  # noqa: BLE001 - a size Redis cannot tell is left out of the stats
            self._log_here(logging.WARNING, "Site memory could not tell its size: %s", exc)
        closing = getattr(self.memory, "close", None)
        if callable(closing):
            try:
                closing()
            except Exception as exc:  # noqa: BLE001 - closing a lost connection is not the crawl's error
                self._log_here(logging.WARNING, "Site memory did not close cleanly: %s", exc)

    def _resolve_left(self) -> None:
        """Every page still pending gets its own verdict (the thread that held them is gone)."""
        for page, (decided, result) in list(self._pending.items()):
            _resolve(decided, with_own_verdict(result, page.url, "the crawl closed"))
        self._pending.clear()

    def _say_what_was_learned(self) -> None:
        """One INFO line per site the crawl taught most (at most ``DEFAULT_SITES_LOGGED``, read from the
        memory; a bounded number of reads, however many sites the crawl met): its article and listing
        shapes, the rules a user would otherwise write by hand (``bodytext/sites/sites_learned``: the
        sites whose first confident verdict the crawl taught)."""
        if self.taught.first:
            self.counts.set_value("sites_learned", self.taught.first)
        try:
            ranked = learned_sites(self.memory, self.taught.ranked(SITES_READ_AT_CLOSE))
            shown = [
                summarize_site(self.memory.store, site, most=DEFAULT_MOST, weights=self.memory.weights)
                for site in ranked[:DEFAULT_SITES_LOGGED]
            ]
        except Exception as exc:  # noqa: BLE001 - what was learned is a report: its failure costs nothing else
            self._log_here(logging.INFO, "Site memory could not tell what the crawl learned: %s", exc)
            return
        for summary in shown:
            if summary is not None:
                self._log_here(logging.INFO, "Site memory learned: %s", summary.line())
        more = max(len(self.taught), self.taught.first) - len(shown)
        if more > 0:
            self._log_here(logging.INFO, "Site memory learned of %d more sites (not shown)", more)

    def _log_here(self, level: int, message: str, *args: Any) -> None:
        """A log line from any thread, written on the reactor."""
        self.counts.log(level, message, *args)

    # --- one verdict per page --------------------------------------------------------------------

    async def decide(self, page: Page, result: ExtractionResult) -> ExtractionResult:
        """The page's result as its site's evidence has it (the page's own for failed pages, or when
        the memory is off or failing); the first item of a page asks, its other items share the answer,
        each awaiting a copy of it (one item cancelled never cancels the others')."""
        if self.memory is None or result.reason is not Reason.OK:
            return result
        decided = self._decisions.get(page)
        if decided is None and self._closed:  # the memory's thread is gone: never ask it here instead
            return with_own_verdict(result, page.url, "the site memory is closed")
        if decided is None:
            decided = self._decisions[page] = Future()
            try:
                self._work.submit(self._arrive, page, result, decided)
            except Exception as exc:  # noqa: BLE001 - no thread to ask: the page keeps its own verdict now
                self._failed("the page keeps its own verdict", exc, page.url)
                _resolve(decided, with_own_verdict(result, page.url, f"the site memory could not be asked: {exc}"))
        if decided.done():
            return decided.result()
        return await wait_for(_copy_of(decided))

    def evidence(self, page: Page) -> dict | None:
        """The page's ``site_evidence`` (None: not judged by the memory)."""
        return self._evidence.get(page)

    def little_evidence(self, page: Page) -> dict | None:
        """The evidence of a page decided while its site had too little of it (listed for review)."""
        return self._little.get(page)

    def _arrive(self, page: Page, result: ExtractionResult, decided: Future) -> None:
        """The page in the waiting room (on the memory's thread): decided at once or held; whatever
        fails, a page not held has its answer when this returns (its own verdict when anything failed)."""
        assert self.room is not None
        self._pending[page] = (decided, result)
        self._signals_failed(page.url, result)
        try:
            self._finish(self.room.arrive(page, page.url, result, complete=page.complete, now=time.monotonic()))
            self.counts.max_value("waiting_max", len(self.room))
        except Exception as exc:  # noqa: BLE001 - a page must never wait on a failed decision
            self._failed("the page keeps its own verdict", exc, page.url)
        finally:
            if page not in self.room:
                self._pending.pop(page, None)
                _resolve(decided, with_own_verdict(result, page.url))  # nothing when decided

    def _signals_failed(self, url: str, result: ExtractionResult) -> None:
        """A page whose page-level signals could not be read (a bug in the extraction: the page is
        judged without them) is counted in ``errors``; the first is one WARNING line."""
        failure = result.debug.get("signals_failed")
        if failure:
            self._error_once(
                "signals", "Site memory judges pages without their signals, reading them failed (%s): %s", failure, url
            )

    def _error_once(self, what: str, message: str, *args: Any) -> None:
        """A failure the memory works around: counted in ``errors`` each time, one WARNING line per
        kind (``what``) in the crawl."""
        self._count("errors")
        if what not in self._said:
            self._said.add(what)
            self._log_here(logging.WARNING, message, *args)

    def _finish(self, decided: list[Decided]) -> None:
        """Hands each decided page its final result and keeps its evidence for the pipeline."""
        for outcome in decided:
            page = outcome.key
            future = self._pending.pop(page, None)
            evidence = outcome.result.debug.get("site_evidence")
            if evidence is not None:
                self._evidence[page] = evidence
            verdict = outcome.verdict
            if verdict is not None and not verdict.settled:
                self._little[page] = evidence or verdict.evidence
            if future is not None:
                _resolve(future[0], outcome.result)

    def _failed(self, outcome: str, exc: Exception, url: str) -> None:
        """Counts a failed call of the memory; a Redis outage is said once by its guard (the page's
        line goes to DEBUG), any other failure is one WARNING for the page."""
        self._count("errors")
        level = logging.DEBUG if isinstance(exc, StoreUnavailable) else logging.WARNING
        self._log_here(level, "Site memory failed, %s (%s): %s", outcome, exc, url)

    # --- waiting pages ---------------------------------------------------------------------------

    def _release(self, how: str) -> None:
        if self.room is not None:
            self._finish(self.room.release_all(how))

    def _tick(self) -> None:
        """The bounds that do not come with a new page: time, the crawl waiting on itself, closing.
        Reads the engine here (the crawl's thread) and looks at the waiting pages where the memory is
        asked; never raises, so the looping call never dies."""
        if not self.waiting:
            self._stalled_ticks = 0
            return
        if self._looking:
            return
        try:
            closing, stalled = self._engine_closing(), self._stalled()
        except Exception as exc:  # noqa: BLE001 - an engine that cannot be read is one that closes
            closing, stalled = True, False
            self._error_once(
                "engine", "Site memory cannot read the crawl's engine, waiting pages are decided now: %r", exc
            )
        self._looking = True
        try:
            looked = self._work.submit(self._look_safely, closing, stalled, time.monotonic())
        except Exception:  # noqa: BLE001 - nothing queued: look again next tick (close decides the rest)
            self._looking = False
            return
        looked.add_done_callback(lambda _done: on_reactor(self._looked))

    def _looked(self) -> None:
        self._looking = False

    def _look_safely(self, closing: bool, stalled: bool, now: float) -> None:
        """``_look``; a failure there would leave pages waiting with nothing to release them: they are
        all decided (each on its own verdict where the memory fails)."""
        try:
            self._look(closing, stalled, now)
        except Exception as exc:  # noqa: BLE001 - never leave a page waiting on a broken look
            self._count("errors")
            self._log_here(logging.ERROR, "Site memory's waiting pages decided at once after an error: %r", exc)
            self._waits = False
            self._release(ON_CLOSE)

    def _look(self, closing: bool, stalled: bool, now: float) -> None:
        assert self.room is not None
        if not self.waiting:
            self._stalled_ticks = 0
            return
        if closing:
            self._release(ON_CLOSE)
            return
        self._finish(self.room.release_since(now - self.settings.site_wait_seconds, BY_TIME))
        self._stalled_ticks = self._stalled_ticks + 1 if self.waiting and stalled else 0
        if self._stalled_ticks >= STALLED_TICKS:
            self._stalled_ticks = 0
            self._finish(self.room.release_oldest(WHEN_STALLED))

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
            return self.waiting >= len(slot.active)
        except AttributeError:  # another Scrapy's engine: the time bound still holds
            return False

    def review_detail(self, page: Page) -> str:
        """What the review feed says of a page decided on little site evidence ('' for other pages)."""
        evidence = self._little.get(page)
        if evidence is None:
            return ""
        return "decided with little site evidence: " + json.dumps(evidence, sort_keys=True, default=str)


def _resolve(decided: Future, result: ExtractionResult) -> None:
    """Hands ``result`` to the items awaiting ``decided`` (nothing when it has its answer already)."""
    if not decided.done():
        try:
            decided.set_result(result)
        except Exception:  # noqa: BLE001, S110 - answered meanwhile on another thread: the first answer stands
            pass


def _copy_of(shared: Future) -> Future:
    """A future of one awaiter that gets ``shared``'s answer: cancelling it leaves ``shared`` and the
    page's other items alone."""
    mine: Future = Future()

    def copy(done: Future) -> None:
        if not mine.done():
            try:
                mine.set_result(done.result())
            except Exception:  # noqa: BLE001, S110 - the awaiter was cancelled meanwhile
                pass

    shared.add_done_callback(copy)
    return mine
