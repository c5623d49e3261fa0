"""The crawl's duplicate check: each stored article is looked up in the crawl-wide index (in memory, or
shared through Redis) once per page; a copy of a stored story is flagged (``duplicate_of``,
``duplicate_similarity``) or dropped, by ``BODYTEXT_DUPLICATES`` ([duplicates.md](../../docs/duplicates.md)).

An index in Redis is asked from a thread of its own, one call after another, so a slow or frozen
server never holds up downloads; every call is bounded by ``BODYTEXT_REDIS_TIMEOUT`` and goes through
one guard: a failure, a timeout or a resting server stores the article unchecked, one WARNING per
outage; a server that refuses the index's commands (a read-only replica, a full server) is one ERROR
line and the index off for the crawl ([duplicates.md](../../docs/duplicates.md#when-redis-fails)). The
counts and log lines of that thread reach Scrapy's stats and log on the reactor thread (``on_reactor``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from itemadapter import ItemAdapter
from scrapy.utils.python import global_object_name

from ..result import ExtractionResult
from ..stores import StoreUnavailable
from ..workers.executors import wait_for
from ..workers.serial import SerialWork
from .on_reactor import ReactorCounts
from .settings import BodyTextSettings, redis_link

if TYPE_CHECKING:
    from ..duplicates import Deduplicator, Match
    from .spidermiddlewares import Page

#: the index's answer for a page that is the first stored copy (or could not be checked)
FIRST_COPY = None


class DuplicateCheck:
    """One crawl's index and the verdict on each of its pages."""

    def __init__(self, settings: BodyTextSettings, stats: Any, log: Callable[..., None]):
        self.settings = settings
        self.stats = stats
        # the pipeline's log: its per-page lines share one logger
        counts = ReactorCounts(stats, "bodytext/duplicates", log)
        self._count, self._log = counts.count, counts.log
        self.deduplicator: Deduplicator | None = None
        self._verdicts: WeakKeyDictionary[Page, Future] = WeakKeyDictionary()  # each page's one answer
        self._unflaggable: dict[type, bool] = {}  # item class -> lacks the duplicate fields
        self._work = SerialWork("bodytext-duplicates", threaded=False)  # where the index is asked
        self.guard: Any = None  # the Redis index's outage guard

    @property
    def dropping(self) -> bool:
        return self.settings.duplicates == "drop"

    def open(self) -> None:
        """Connects the index; a Redis that cannot be reached is one ERROR line, and the crawl goes on
        storing every article unchecked (counted in ``bodytext/duplicates/errors``); one that refuses
        the index's commands is one ERROR line from its guard, and the index is off for the crawl."""
        from ..duplicates import Deduplicator  # datasketch is loaded when the check is on

        settings = self.settings
        link = None
        if settings.duplicate_redis_url is not None:
            link = redis_link(settings, "BODYTEXT_DUPLICATE_REDIS_URL", settings.duplicate_redis_url)
            redis_counts = ReactorCounts(self.stats, "bodytext/duplicates/redis", logging.getLogger(__name__).log)
            self.guard = link.guard(
                "the duplicate index in Redis",
                fallback="articles are stored unchecked",
                log=redis_counts.log,
                count=redis_counts.count,
            )
        try:
            self.deduplicator = Deduplicator(
                settings.duplicates,
                settings.duplicate_similarity,
                redis_url=link,
                prefix=settings.duplicate_redis_prefix,
                capacity=settings.duplicate_capacity,
                guard=self.guard,
            )
            if link is not None:
                self._work = SerialWork("bodytext-duplicates", threaded=True)
                if self.guard.in_outage:
                    self._count("errors")
                    self._log(
                        logging.ERROR,
                        "Duplicate index not reachable at the start, articles stored unchecked until it answers: %s",
                        self.guard.what,
                    )
        except Exception as exc:  # noqa: BLE001 - an unreachable index must not lose the crawl's items
            self._count("errors")
            self._log(logging.ERROR, "Duplicate index unavailable, articles stored unchecked: %s", exc)

    def close(self) -> None:
        """Lets the index's last calls finish, then records what it evicted and closes it."""
        self._work.shutdown()
        if self.guard is not None:
            self.guard.close()
        if self.deduplicator is None:
            return
        evicted = getattr(self.deduplicator.index, "evicted", 0)
        if evicted:
            self.stats.set_value("bodytext/duplicates/evicted", evicted)
        try:
            self.deduplicator.close()
        except Exception as exc:  # noqa: BLE001 - closing a lost connection is not the crawl's error
            self._count("errors")
            self._log(logging.WARNING, "Duplicate index did not close cleanly: %s", exc)

    def asked(self, page: Page) -> bool:
        """Whether ``page`` was asked about already (by another of its items)."""
        return page in self._verdicts

    async def verdict(self, page: Page, result: ExtractionResult) -> Match | None:
        """The stored copy ``page`` repeats, or None when it is the first (then it is indexed); asked
        once per page, for an article about to be stored; the page's other items share the answer,
        each awaiting a copy of it (an item cancelled while it waits leaves the others their answer)."""
        decided = self._verdicts.get(page)
        if decided is None:
            decided = self._verdicts[page] = self._ask(page.url, result)
        return decided.result() if decided.done() else await wait_for(_copy_of(decided))

    def _ask(self, url: str, result: ExtractionResult) -> Future:
        """The future of the index's answer; answered at once (stored unchecked) when the question
        cannot be asked (the index's thread is shut down: a page arriving after the close)."""
        try:
            return self._work.submit(self._decide, url, result)
        except Exception as exc:  # noqa: BLE001 - every item of the page gets an answer
            self._count("errors")
            self._log(logging.WARNING, "Duplicate check not made, article stored unchecked (%s): %s", exc, url)
            unchecked: Future = Future()
            unchecked.set_result(FIRST_COPY)
            return unchecked

    def _decide(self, url: str, result: ExtractionResult) -> Match | None:
        """The index's answer for one page, counted and logged; never raises."""
        try:
            match = self._check(url, result)
        except Exception as exc:  # noqa: BLE001 - whatever fails, the article is stored unchecked
            self._count("errors")
            self._log(logging.WARNING, "Duplicate check failed, article stored unchecked (%s): %s", exc, url)
            return FIRST_COPY
        if match is not None:
            self._count("dropped" if self.dropping else "flagged")
            if self.dropping:
                self._log(
                    logging.INFO,
                    "Duplicate (similarity %.2f to %s), items dropped: %s",
                    match.similarity,
                    match.url,
                    url,
                )
        return match

    def _check(self, url: str, result: ExtractionResult) -> Match | None:
        if self.deduplicator is None:
            return FIRST_COPY
        try:
            outcome, match = self.deduplicator.claim(url, result)
        except Exception as exc:  # noqa: BLE001 - a Redis error stores the article unchecked
            self._count("errors")
            # a Redis outage is said once by its guard; the page's own line goes to DEBUG
            level = logging.DEBUG if isinstance(exc, StoreUnavailable) else logging.WARNING
            self._log(level, "Duplicate check failed, article stored unchecked (%s): %s", exc, url)
            return FIRST_COPY
        if outcome == "unchecked":  # the index's guard said the outage once; the page's line goes to DEBUG
            self._count("errors")
            self._log(logging.DEBUG, "Duplicate index unavailable, article stored unchecked: %s", url)
            return FIRST_COPY
        if outcome in ("indexed", "duplicate"):
            self._count("checked")
        if outcome in ("indexed", "no_text"):
            self._count(outcome)
        return match

    def flag(self, item: Any, match: Match) -> None:
        """``duplicate_of`` and ``duplicate_similarity`` into the item, where it can hold them."""
        fields = self.settings.duplicate_fields
        if not fields or self._lacks_fields(type(item)):
            return
        ItemAdapter(item).update(match.fields())

    def _lacks_fields(self, item_class: type) -> bool:
        """A typed item class without the duplicate fields: said once per class (WARNING), and its
        duplicates are stored unflagged (``bodytext/duplicates/unflaggable``)."""
        lacks = self._unflaggable.get(item_class)
        if lacks is None:
            declared = ItemAdapter.get_field_names_from_class(item_class)
            lacks = declared is not None and not set(self.settings.duplicate_fields) <= set(declared)
            self._unflaggable[item_class] = lacks
            if lacks:
                self._log(
                    logging.WARNING,
                    "Item class %s has no field duplicate_of or duplicate_similarity: its duplicates are stored "
                    "unflagged; declare both (e.g. duplicate_of = scrapy.Field()), or set BODYTEXT_DUPLICATES "
                    'to "drop" or "off"',
                    global_object_name(item_class),
                )
        if lacks:
            self.stats.inc_value("bodytext/duplicates/unflaggable")
        return lacks


def _copy_of(shared: Future) -> Future:
    """A future with ``shared``'s outcome, for one awaiter: cancelling it leaves ``shared`` alone."""
    copy: Future = Future()

    def settle(done: Future) -> None:
        if not copy.set_running_or_notify_cancel():  # its awaiter was cancelled: nobody reads it
            return
        try:
            copy.set_result(done.result())
        except Exception as exc:  # noqa: BLE001 - the shared outcome, handed on as it is
            copy.set_exception(exc)

    shared.add_done_callback(settle)
    return copy
