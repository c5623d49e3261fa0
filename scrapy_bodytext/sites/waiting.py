"""The waiting room: the one policy by which a site's pages are decided when they may wait for their
site's evidence, used as it is by the crawl (``plugin.sites`` adds only its thread, its time and
count bounds and its looks at the engine) and by the fitting replay (``training.site_memory``);
``extract(..., memory=...)`` is the same with no page waiting. No threads and no clock of its own:
the caller says when a page came and when to let pages go.

What waits: a page its site cannot settle yet (``SiteVerdict.settled`` False). What teaches: every
page when it comes, whether or not it waits (``SiteMemory.learn``). When waiting pages are judged
again: when a page of their site taught it something that may settle them (the site reaching
``Weights.min_evidence`` confident verdicts); the pages that settles are decided, one after another
(a waiting page taught when it came: deciding it teaches nothing more, so nothing recurses).
Release: the oldest page when more than ``capacity`` wait, and whatever the caller lets go, each on
what its site holds then. The final result: ``api.apply_site_verdict`` (a capped page keeps its text
whole). A memory that fails leaves the page its own verdict; every page gets its outcome."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, replace

from ..api import apply_site_verdict
from ..config import DEFAULT_THRESHOLD
from ..result import ExtractionResult, Reason
from .memory import SiteMemory, own_verdict
from .verdict import SiteVerdict

#: pages held at most while they wait for their sites' evidence (the crawl's BODYTEXT_SITE_WAIT_PAGES)
WAIT_PAGES = 16
#: how a page was decided: when it came, when its site's evidence settled it while it waited, let go
#: because too many waited, because it waited too long, because the crawl waited on itself, at the
#: close, or on its own verdict after the memory failed
AT_ONCE, SETTLED_WHILE_WAITING, BY_COUNT, BY_TIME, WHEN_STALLED, ON_CLOSE, ON_ERROR = (
    "at_once",
    "settled_while_waiting",
    "released_by_count",
    "released_by_time",
    "released_when_stalled",
    "released_on_close",
    "released_on_error",
)


@dataclass(frozen=True, slots=True)
class Decided:
    """A page's final outcome: ``result`` (its own where ``verdict`` is None: the memory failed),
    ``how`` it was decided (one of the names above) and whether it ``waited``."""

    key: Hashable
    url: str
    result: ExtractionResult
    verdict: SiteVerdict | None
    how: str
    waited: bool


@dataclass(eq=False, slots=True)
class Waiting:
    """One page waiting for its site's evidence."""

    key: Hashable
    url: str
    result: ExtractionResult
    site: str
    since: float  # the caller's time when it came
    complete: bool = True  # the page's body arrived whole


def _ignore(*_args: object) -> None:
    return None


class WaitingRoom:
    """One crawl's (or one replay's) pages waiting for their sites' evidence, oldest first, at most
    ``capacity`` (0: none waits). Each call returns the pages it decided.

    ``count(name, n)``: what happened, by name ("judged", "waited", "taught_while_waiting",
    "not_raised", "decided_with_little_evidence", "sites_forgotten", "overturned_to_article",
    "overturned_to_non_article" and the ways waiting pages are decided);
    ``failed(outcome, exc, url)``: a call of the memory that failed (the page keeps its own verdict,
    or the memory misses it); ``taught(site, first)``: a page taught its site a confident verdict
    (``first``: the site held none before)."""

    def __init__(
        self,
        memory: SiteMemory,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        capacity: int = WAIT_PAGES,
        count: Callable[[str, int], None] = _ignore,
        failed: Callable[[str, Exception, str], None] = _ignore,
        taught: Callable[[str, bool], None] = _ignore,
    ) -> None:
        self.memory = memory
        self.threshold = threshold
        self.capacity = capacity
        self._count = count
        self._failed = failed
        self._taught = taught
        self._waiting: dict[Hashable, Waiting] = {}  # oldest first
        self._by_site: dict[str, dict[Hashable, Waiting]] = {}

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._waiting

    def oldest_since(self) -> float | None:
        """When the page that has waited longest came (None: none waits)."""
        return next(iter(self._waiting.values())).since if self._waiting else None

    # --- a page comes ----------------------------------------------------------------------------

    def arrive(
        self, key: Hashable, url: str, result: ExtractionResult, *, complete: bool = True, now: float = 0.0
    ) -> list[Decided]:
        """Judges a page when it comes, lets it teach its site, and decides it at once or holds it; the
        pages decided (this one among them unless it waits, and any it settled or pushed out)."""
        if result.reason is not Reason.OK:
            return [Decided(key, url, result, None, AT_ONCE, False)]
        verdict = self._judge(url, result, complete)
        if verdict is None:
            return [self._own(key, url, result, AT_ONCE, False)]
        self._count("judged", 1)
        if verdict.capped:
            self._count("not_raised", 1)
        taught = self._learn(url, result, verdict)
        if verdict.settled or self.capacity <= 0:
            decided = [self._final(key, url, result, verdict, AT_ONCE, False)]
        else:
            decided = []
            entry = Waiting(key, url, result, verdict.site, now, complete)
            self._waiting[key] = entry
            self._by_site.setdefault(entry.site, {})[key] = entry
            self._count("waited", 1)
            if taught:
                self._count("taught_while_waiting", 1)
        if taught and self._may_settle(verdict):
            decided.extend(self._judge_again(verdict.site))
        while len(self._waiting) > max(0, self.capacity):
            decided.extend(self.release_oldest(BY_COUNT))
        return decided

    # --- pages let go ----------------------------------------------------------------------------

    def release_oldest(self, how: str) -> list[Decided]:
        """Decides the page that has waited longest on what its site holds now (and any page its
        teaching settles)."""
        if not self._waiting:
            return []
        entry = self._take(next(iter(self._waiting)))
        return self._decide_waiting(entry, how)

    def release_since(self, deadline: float, how: str = BY_TIME) -> list[Decided]:
        """Decides every page that came at or before ``deadline``, oldest first."""
        decided: list[Decided] = []
        while self._waiting and next(iter(self._waiting.values())).since <= deadline:
            decided.extend(self.release_oldest(how))
        return decided

    def release_all(self, how: str = ON_CLOSE) -> list[Decided]:
        """Decides every waiting page, oldest first."""
        decided: list[Decided] = []
        while self._waiting:
            decided.extend(self.release_oldest(how))
        return decided

    def pages(self) -> Iterator[Waiting]:
        """The waiting pages, oldest first."""
        return iter(list(self._waiting.values()))

    # --- the policy ------------------------------------------------------------------------------

    def _may_settle(self, verdict: SiteVerdict) -> bool:
        """Whether one more verdict of the page's site can settle its waiting pages: a waiting page
        is settled once its site holds ``min_evidence`` confident verdicts, and ``verdict`` counted
        them without the page that has just taught."""
        if verdict.site not in self._by_site:
            return False
        known = sum(verdict.counts.site) + 1 if verdict.counts is not None else 0
        return known >= self.memory.weights.min_evidence

    def _judge_again(self, site: str) -> list[Decided]:
        """Judges again the waiting pages of ``site``, one after another (never by recursion: a page
        taught when it came, so deciding it now teaches nothing more); those its evidence now settles
        are decided."""
        decided: list[Decided] = []
        for entry in list(self._by_site.get(site, {}).values()):
            verdict = self._judge(entry.url, entry.result, entry.complete)
            if verdict is not None and not verdict.settled:
                continue
            self._take(entry.key)
            if verdict is None:
                decided.append(self._own(entry.key, entry.url, entry.result, ON_ERROR, True))
            else:
                decided.append(self._final(entry.key, entry.url, entry.result, verdict, SETTLED_WHILE_WAITING, True))
        return decided

    def _decide_waiting(self, entry: Waiting, how: str) -> list[Decided]:
        verdict = self._judge(entry.url, entry.result, entry.complete)
        if verdict is None:
            return [self._own(entry.key, entry.url, entry.result, ON_ERROR, True)]
        return [self._final(entry.key, entry.url, entry.result, verdict, how, True)]

    def _take(self, key: Hashable) -> Waiting:
        entry = self._waiting.pop(key)
        of_site = self._by_site[entry.site]
        del of_site[key]
        if not of_site:
            del self._by_site[entry.site]
        return entry

    # --- the memory, whatever fails --------------------------------------------------------------

    def _judge(self, url: str, result: ExtractionResult, complete: bool) -> SiteVerdict | None:
        try:
            return self.memory.judge(url, result, complete=complete, threshold=self.threshold)
        except Exception as exc:  # noqa: BLE001 - a failing memory leaves the page its own verdict
            self._failed("the page keeps its own verdict", exc, url)
            return None

    def _learn(self, url: str, result: ExtractionResult, verdict: SiteVerdict) -> bool:
        """``memory.learn`` (True when the page taught its site something), counting the sites an
        in-memory store forgets to make room for a new one (a shared store is bounded by every
        process at once: not counted there)."""
        sites = getattr(self.memory.store, "sites", None)  # the in-memory store's sites, oldest first
        new = isinstance(sites, dict) and verdict.site not in sites
        try:
            before = len(self.memory.store) if new else 0
            learned = self.memory.learn(url, result, verdict)
            if learned and new and len(self.memory.store) == before:
                self._count("sites_forgotten", 1)
            if learned:
                self._taught(verdict.site, verdict.counts is not None and not sum(verdict.counts.site))
            return learned
        except Exception as exc:  # noqa: BLE001 - the verdict stands; the memory misses one page
            self._failed("the page is not recorded", exc, url)
            return False

    def _final(
        self, key: Hashable, url: str, result: ExtractionResult, verdict: SiteVerdict, how: str, waited: bool
    ) -> Decided:
        try:
            final = apply_site_verdict(result, verdict, self.memory, url)
        except Exception as exc:  # noqa: BLE001 - the furniture lines could not be read: its own verdict
            self._failed("the page keeps its own verdict", exc, url)
            return self._own(key, url, result, ON_ERROR if waited else how, waited)
        if not verdict.settled:
            self._count("decided_with_little_evidence", 1)
        if how != AT_ONCE:
            self._count(how, 1)
        if final.is_article != result.is_article:
            self._count("overturned_to_article" if final.is_article else "overturned_to_non_article", 1)
        return Decided(key, url, final, verdict, how, waited)

    def _own(self, key: Hashable, url: str, result: ExtractionResult, how: str, waited: bool) -> Decided:
        """The page decided on its own verdict (the memory failed), its evidence saying so."""
        if how != AT_ONCE:
            self._count(how, 1)
        return Decided(key, url, with_own_verdict(result, url), None, how, waited)


def with_own_verdict(result: ExtractionResult, url: str, why: str = "the site memory failed") -> ExtractionResult:
    """``result`` as it is, its ``site_evidence`` saying the page kept its own verdict and ``why``."""
    evidence = {**own_verdict(url, result).evidence, "decided_by": "page", "why": why}
    return replace(result, debug={**result.debug, "site_evidence": evidence})
