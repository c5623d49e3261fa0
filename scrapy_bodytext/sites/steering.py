"""Steering a crawl: which links to fetch first and which not at all, from what each site's pages
turned out to be (no Scrapy: ``plugin/steering.py`` holds the middlewares that ask).

For every fetched page (``Steering.fetched``), ``Steering.link`` gives each of its same-site links a
role (``links``), a priority bonus and, where the site's pages say the link leads nowhere, a reason to
prune it; ``Steering.recheck`` looks again when the link's request is about to be fetched; the
page's outcome (``Steering.outcome``: an article stored, or not) teaches its site. A page is
**barren** when it is no article and none of the new links it was the first to find turned out an
article, once every new article link of it was answered (a page without items, a 404, is wasted and
teaches nothing). Pruning is by two rules: a URL shape (``links.link_shape``) whose last
``shape_pages`` pages were barren and which never held an article, except one new link in
``probe_every`` (a probe: the shape resumes when a probe is an article or finds one); and the
pagination of a list (``links.list_key``) whose last ``paging_pages`` pages were barren. A link whose
role is article is never pruned.

Memory is bounded per site (``MAX_SHAPES`` shapes, ``MAX_LISTS`` lists, ``MAX_COUNTS`` counters) and
in total (``max_sites`` sites, the least recently fetched forgotten first; ``max_links`` links
remembered as seen, as found by a page, and pages awaiting their outcome).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

from .domains import site_key
from .links import NO_ANCHOR, Anchor, LinkRole, link_role, link_shape, list_key, prior_role, shape_names
from .shapes import dated_shape, url_shape

MODES = ("off", "observe", "prioritize", "prune")
#: priority bonus per role (added to a request's priority; Scrapy fetches higher first): articles first,
#: by probability; then pages of lists that keep yielding new article links; then other lists; then
#: the rest; service pages and feeds last
ARTICLE_PRIORITY = 300
PRODUCTIVE_PAGING_PRIORITY = 200
LISTING_PRIORITY = 100
OTHER_PRIORITY = 0
SERVICE_PRIORITY = -100
#: bounds per site
MAX_SHAPES, MAX_LISTS, MAX_COUNTS = 64, 64, 256
#: a link's role counts as an article link from this probability
ARTICLE_LINK = 0.5


@dataclass(frozen=True, slots=True)
class Decision:
    url: str
    role: LinkRole
    new: bool  # not seen before on its site (in the crawl's bounded memory of links)
    priority: int  # the bonus for the request's priority
    prune: str = ""  # why the link would be pruned ("" to fetch it)
    probe: bool = False  # a link of a pruned shape let through to probe it


@dataclass(slots=True)
class _Run:
    """A shape's or a list's pages: how many were articles, the current run of barren pages."""

    pages: int = 0
    articles: int = 0
    barren: int = 0
    skipped: int = 0  # links pruned since the last probe


@dataclass(slots=True)
class _Site:
    shapes: OrderedDict[str, _Run] = field(default_factory=OrderedDict)
    lists: OrderedDict[str, _Run] = field(default_factory=OrderedDict)
    counts: OrderedDict[str, int] = field(default_factory=OrderedDict)  # sa:/sn:/da:/dn: as site memory names them


@dataclass(slots=True, eq=False)
class _Pending:
    site: str
    shape: str
    listed: str  # the list the page is a page of ("" for a page no list's)
    outstanding: int = 0  # new article links let through, not answered yet
    credited: int = 0  # new links of the page that turned out articles
    streamed: bool = False  # every link of the page was seen
    article: bool | None = None  # the outcome, once known
    judged: bool = True  # the page had items to judge (a page without, a 404, teaches nothing)
    resolved: bool = False  # its shape and list were told whether it was barren
    shadowed: str = ""  # the page would have been pruned (observe) or was a probe (prune): why
    found_by: tuple[_Pending, bool] | None = None  # the page that first linked here; counted as outstanding


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a page's outcome taught: whether it was an article, how many pages were found barren
    (this one, or pages whose last new article link it answered), and whether it was an article that
    the steering would have pruned (observe) or fetched only as a probe (prune)."""

    article: bool
    barren: int
    pruned_but_article: bool


def _bump(table: OrderedDict, key: str, bound: int, make=_Run):
    found = table.get(key)
    if found is None:
        found = table[key] = make()
        while len(table) > bound:
            table.popitem(last=False)
    else:
        table.move_to_end(key)
    return found


def _hash(url: str) -> bytes:
    return hashlib.blake2b(url.encode("utf-8", "replace"), digest_size=8).digest()


class Steering:
    def __init__(
        self,
        mode: str = "prioritize",
        *,
        shape_pages: int = 8,
        paging_pages: int = 3,
        probe_every: int = 20,
        max_sites: int = 1000,
        max_links: int = 200_000,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode
        self.shape_pages, self.paging_pages, self.probe_every = shape_pages, paging_pages, probe_every
        self.max_sites, self.max_links = max_sites, max_links
        self.sites: OrderedDict[str, _Site] = OrderedDict()
        self.seen: OrderedDict[bytes, None] = OrderedDict()
        self.pending: OrderedDict[str, _Pending] = OrderedDict()
        self.shadow: OrderedDict[bytes, str] = OrderedDict()  # links pruned (observe) or probed: why
        # new links let through -> the page that found them, and whether it awaits them
        self.found_by: OrderedDict[bytes, tuple[_Pending, bool]] = OrderedDict()

    # ------------------------------------------------------------------ state
    def _site(self, site: str) -> _Site:
        return _bump(self.sites, site, self.max_sites, _Site)

    def _see(self, url: str) -> bool:
        """Marks ``url`` seen; True when it was not seen before."""
        key = _hash(url)
        if key in self.seen:
            return False
        self.seen[key] = None
        while len(self.seen) > self.max_links:
            self.seen.popitem(last=False)
        return True

    def _remember_shadow(self, url: str, why: str) -> None:
        self.shadow[_hash(url)] = why
        while len(self.shadow) > self.max_links:
            self.shadow.popitem(last=False)

    # ------------------------------------------------------------------ a fetched page and its links
    def fetched(self, url: str) -> None:
        """A page was fetched: its links follow (``link``), then its outcome (``outcome``)."""
        site = site_key(url)
        self._site(site)
        self._see(url)
        listed = list_key(url) if prior_role(url).role in ("pagination", "listing") else ""
        record = _Pending(site, link_shape(url), listed)
        key = _hash(url)
        record.shadowed = self.shadow.pop(key, "")
        record.found_by = self.found_by.pop(key, None)
        self.pending[url] = record
        self.pending.move_to_end(url)
        while len(self.pending) > self.max_links:
            self.pending.popitem(last=False)

    def link(self, page_url: str, url: str, anchor: Anchor = NO_ANCHOR) -> Decision:
        """The decision on one link of the fetched page ``page_url``."""
        site = site_key(url)
        state = self._site(site)
        names = shape_names(url)
        role = link_role(url, anchor, {name: state.counts.get(name, 0) for name in names})
        new = self._see(url)
        record = self.pending.get(page_url)
        prune, probe = self._prune(state, url, role, new)
        if new and record is not None and not (prune and self.mode == "prune"):
            awaited = role.role == "article" and role.probability >= ARTICLE_LINK
            record.outstanding += awaited
            self.found_by[_hash(url)] = (record, awaited)
            while len(self.found_by) > self.max_links:
                self.found_by.popitem(last=False)
        if prune and new and self.mode == "observe":
            self._remember_shadow(url, prune)
        if probe:
            self._remember_shadow(url, "probe")
        return Decision(url, role, new, self._priority(state, url, role), prune, probe)

    def recheck(self, url: str, role: str = "") -> str:
        """Why a request found earlier would be pruned now that it is about to be fetched ("" to fetch
        it): its link's role (``role``: the one it was given when found; an article's is never
        pruned) and its shape's and list's pages as they are now. In ``prune`` mode a pruned request
        no longer awaits an answer; in ``observe`` it is remembered, to count it if it is an article."""
        key = _hash(url)
        if role == "article" or (self.mode == "observe" and key in self.shadow):  # counted when found
            return ""
        state = self._site(site_key(url))
        names = shape_names(url)
        found = link_role(url, NO_ANCHOR, {name: state.counts.get(name, 0) for name in names})
        if found.role == "article":
            return ""
        prune, probe = self._prune(state, url, LinkRole(role or found.role, found.probability, ""), True)
        if probe:
            self._remember_shadow(url, "probe")
        elif prune and self.mode == "observe":
            self._remember_shadow(url, prune)
        elif prune:
            entry = self.found_by.pop(key, None)
            if entry is not None:
                finder, awaited = entry
                finder.outstanding -= awaited
                self._resolve(finder)
        return prune

    def links(self, page_url: str, found: Iterable[tuple[str, Anchor]]) -> list[Decision]:
        """``link`` for each of a page's links, then the page's links are all seen."""
        decisions = [self.link(page_url, url, anchor) for url, anchor in found]
        self.streamed(page_url)
        return decisions

    def _priority(self, state: _Site, url: str, role: LinkRole) -> int:
        if role.role == "article":
            return ARTICLE_PRIORITY + round(100 * role.probability)
        if role.role == "pagination":
            run = state.lists.get(list_key(url))
            productive = run is None or run.barren == 0
            return PRODUCTIVE_PAGING_PRIORITY if productive else LISTING_PRIORITY // 2
        if role.role == "listing":
            return LISTING_PRIORITY
        if role.role in ("service", "feed"):
            return SERVICE_PRIORITY
        return OTHER_PRIORITY

    def _prune(self, state: _Site, url: str, role: LinkRole, new: bool) -> tuple[str, bool]:
        """Why the link would be pruned ("" if it would not), and whether it is let through as a probe
        (one new link in ``probe_every`` of a pruned shape)."""
        if role.role == "article":
            return "", False
        if role.role == "feed":
            return "feed", False
        if role.role == "pagination":
            run = state.lists.get(list_key(url))
            if run is not None and run.barren >= self.paging_pages:
                return "paging", False
        run = state.shapes.get(link_shape(url))
        if run is not None and run.articles == 0 and run.barren >= self.shape_pages:
            if self.mode == "prune" and new:
                run.skipped += 1
                if run.skipped >= self.probe_every:
                    run.skipped = 0
                    return "", True
            return "shape", False
        return "", False

    # ------------------------------------------------------------------ outcomes
    def streamed(self, page_url: str) -> Outcome | None:
        """Every link of the page was given (its outcome may be known already)."""
        record = self.pending.get(page_url)
        if record is None:
            return None
        record.streamed = True
        return self._finish(page_url, record) if record.article is not None else None

    def outcome(self, page_url: str, article: bool, judged: bool = True) -> Outcome | None:
        """The page's items were stored as an article (True) or not; the first outcome of a page
        counts. ``judged`` False: the page had no items (a 404, a page the spider yields nothing for),
        so it tells nothing of its shape or list. None until every link of the page was given, or for
        a page not fetched here."""
        record = self.pending.get(page_url)
        if record is None or record.article is not None:
            return None
        record.article, record.judged = article, judged
        return self._finish(page_url, record) if record.streamed else None

    def _finish(self, page_url: str, record: _Pending) -> Outcome:
        """The page's outcome is known and its links were all seen: its counts, and whether it (or
        the page that found it) was barren."""
        del self.pending[page_url]
        article = bool(record.article)
        barren = 0 if record.judged else self._resolve(record)  # a page without items: wasted
        if record.judged:
            state = self._site(record.site)
            kind = "a" if article else "n"
            shape = url_shape(page_url)
            dated = dated_shape(shape)
            for name in (f"s{kind}:{shape}", *((f"d{kind}:{dated}",) if dated else ())):
                state.counts[name] = state.counts.get(name, 0) + 1
                state.counts.move_to_end(name)
            while len(state.counts) > MAX_COUNTS:
                state.counts.popitem(last=False)
            barren += self._resolve(record)
        if record.found_by is not None:
            finder, awaited = record.found_by
            finder.outstanding -= awaited
            if article:
                finder.credited += 1
                if finder.resolved:  # a late article: its shape and list yield after all
                    self._tell(finder, False)
            barren += self._resolve(finder)
        return Outcome(article, barren, article and bool(record.shadowed))

    def _resolve(self, record: _Pending) -> int:
        """Tells the page's shape and list whether it was barren once its outcome is known and its
        new article links were all answered; 1 when it was barren."""
        if record.resolved or record.article is None or not record.streamed or record.outstanding > 0:
            return 0
        record.resolved = True
        if not record.judged:  # a 404: wasted, and no evidence of its shape or list
            return 1
        barren = not record.article and record.credited == 0
        self._tell(record, barren, count=True)
        return int(barren)

    def _tell(self, record: _Pending, barren: bool, count: bool = False) -> None:
        state = self._site(record.site)
        for table, key, bound in ((state.shapes, record.shape, MAX_SHAPES), (state.lists, record.listed, MAX_LISTS)):
            if not key:
                continue
            run = _bump(table, key, bound)
            if count:
                run.pages += 1
                run.articles += bool(record.article)
            run.barren = run.barren + 1 if barren else 0

    def __len__(self) -> int:
        return len(self.sites)
