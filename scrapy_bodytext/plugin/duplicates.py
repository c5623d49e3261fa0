"""The crawl's duplicate check: each stored article is looked up in the crawl-wide index (in memory, or
shared through Redis) once per page; a copy of a stored story is flagged (``duplicate_of``,
``duplicate_similarity``) or dropped, by ``BODYTEXT_DUPLICATES`` ([duplicates.md](../../docs/duplicates.md)).

Redis is asked synchronously, as scrapy-redis's scheduler asks it: one round trip per stored page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from itemadapter import ItemAdapter
from scrapy.utils.python import global_object_name

from ..result import ExtractionResult
from .settings import BodyTextSettings

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
        self._log = log  # the pipeline's: its per-page lines share one logger
        self.deduplicator: Deduplicator | None = None
        self._verdicts: WeakKeyDictionary[Page, Match | None] = WeakKeyDictionary()
        self._unflaggable: dict[type, bool] = {}  # item class -> lacks the duplicate fields

    @property
    def dropping(self) -> bool:
        return self.settings.duplicates == "drop"

    def open(self) -> None:
        """Connects the index; a Redis that cannot be reached is one ERROR line, and the crawl goes on
        storing every article unchecked (counted in ``bodytext/duplicates/errors``)."""
        from ..duplicates import Deduplicator  # datasketch is loaded when the check is on

        settings = self.settings
        try:
            self.deduplicator = Deduplicator(
                settings.duplicates,
                settings.duplicate_similarity,
                redis_url=settings.duplicate_redis_url,
                prefix=settings.duplicate_redis_prefix,
                capacity=settings.duplicate_capacity,
            )
        except Exception as exc:  # noqa: BLE001 - an unreachable index must not lose the crawl's items
            self.stats.inc_value("bodytext/duplicates/errors")
            self._log(logging.ERROR, "Duplicate index unavailable, articles stored unchecked: %s", exc)

    def close(self) -> None:
        if self.deduplicator is None:
            return
        evicted = getattr(self.deduplicator.index, "evicted", 0)
        if evicted:
            self.stats.set_value("bodytext/duplicates/evicted", evicted)
        self.deduplicator.close()

    @property
    def checked(self) -> WeakKeyDictionary[Page, Match | None]:
        """The pages asked about already, with their verdicts."""
        return self._verdicts

    def verdict(self, page: Page, result: ExtractionResult) -> Match | None:
        """The stored copy ``page`` repeats, or None when it is the first (then it is indexed); asked
        once per page, for an article about to be stored."""
        if page in self._verdicts:
            return self._verdicts[page]
        match = self._check(page.url, result)
        self._verdicts[page] = match
        if match is not None:
            self.stats.inc_value("bodytext/duplicates/dropped" if self.dropping else "bodytext/duplicates/flagged")
            if self.dropping:
                self._log(
                    logging.INFO,
                    "Duplicate (similarity %.2f to %s), items dropped: %s",
                    match.similarity,
                    match.url,
                    page.url,
                )
        return match

    def _check(self, url: str, result: ExtractionResult) -> Match | None:
        if self.deduplicator is None:
            return FIRST_COPY
        try:
            outcome, match = self.deduplicator.claim(url, result)
        except Exception as exc:  # noqa: BLE001 - a Redis error stores the article unchecked
            self.stats.inc_value("bodytext/duplicates/errors")
            self._log(logging.WARNING, "Duplicate check failed, article stored unchecked (%s): %s", exc, url)
            return FIRST_COPY
        if outcome in ("indexed", "duplicate"):
            self.stats.inc_value("bodytext/duplicates/checked")
        if outcome in ("indexed", "no_text"):
            self.stats.inc_value(f"bodytext/duplicates/{outcome}")
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
