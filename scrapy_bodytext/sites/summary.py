"""What a site's memory learned, readable: its confident articles and non-articles, the URL shapes of
its articles and of its listings with their counts, its templates and its furniture lines, as one log
line or a dict. These are the rules a user would otherwise write by hand (``allow=r"/\\d{4}/\\d{2}/"``),
shown so that a crawl's verdicts can be checked (docs/site-memory.md#what-the-crawl-learned)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .boilerplate import is_recurring
from .domains import FILE_SITE
from .evidence import ARTICLE_SHAPE_COUNT, ARTICLE_SHAPE_RATIO, SITE_ARTICLES, SITE_OTHERS, STORED
from .memory import SiteMemory
from .verdict import Weights, load_weights

#: shapes shown per list by default (the ones with the most confident verdicts)
DEFAULT_MOST = 5
#: sites given a line at the close of a crawl by default (the ones with the most confident verdicts)
DEFAULT_SITES_LOGGED = 20
#: sites whose teaching a crawl tallies at most (those it taught most; the tally never grows past twice
#: this, however many sites the crawl meets)
TALLIED_SITES = 1000


class SiteFields(Protocol):
    """What a summary reads from a store (``LocalStore``, the Redis store)."""

    def read(self, site: str, names: Sequence[str]) -> list[int | str | None]: ...

    def fields(self, site: str) -> dict[str, int | str]: ...

    def site_names(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class ShapeCount:
    """A URL shape (or coarse shape, or template) and the confident articles and non-articles the site
    holds of it."""

    key: str
    articles: int
    others: int

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "articles": self.articles, "others": self.others}


@dataclass(frozen=True, slots=True)
class Kinds:
    """A site's shapes (or coarse shapes, or templates) sorted into those of its articles, those of its
    listings and the unsettled ones (too few verdicts, or mixed); only the ``most`` of each kind with the
    most verdicts are kept, the number of the rest is said."""

    articles: tuple[ShapeCount, ...] = ()
    listings: tuple[ShapeCount, ...] = ()
    more_articles: int = 0
    more_listings: int = 0
    unsettled: int = 0

    @property
    def article_count(self) -> int:
        return len(self.articles) + self.more_articles

    @property
    def listing_count(self) -> int:
        return len(self.listings) + self.more_listings

    def as_dict(self) -> dict[str, Any]:
        return {
            "articles": [shape.as_dict() for shape in self.articles],
            "listings": [shape.as_dict() for shape in self.listings],
            "more_articles": self.more_articles,
            "more_listings": self.more_listings,
            "unsettled": self.unsettled,
        }


@dataclass(frozen=True, slots=True)
class SiteSummary:
    """What the memory holds of one site.

    ``articles``, ``others``: its confident articles and non-articles; ``shapes``, ``coarse``,
    ``templates``: its URL shapes, coarse shapes and templates, each of its articles (at least
    ``ARTICLE_SHAPE_COUNT`` confident articles and ``ARTICLE_SHAPE_RATIO`` times its non-articles: the
    shapes a link counts towards as an article's), of its listings (the same the other way round: at
    least that many non-articles and that many times its articles) or unsettled; ``furniture_lines``: the lines that recur on enough of its
    ``stored`` counted articles to be taken out of its later ones."""

    site: str
    articles: int
    others: int
    shapes: Kinds
    coarse: Kinds
    templates: Kinds
    furniture_lines: int
    stored: int

    def line(self) -> str:
        """One line, for a log, e.g. ``example.org: 24 confident articles, 3 non-articles; article
        shapes: /{year}/{month}/{slug}/ 24; listing shapes: /tag/{slug}/ 3; templates: 1 of articles
        (the first holds 100 %), 1 of listings; furniture lines: 2 (of 24 articles counted)``: each
        shape with its confident articles (of a listing shape: its non-articles), the other kind in
        brackets when there are some."""
        parts = [f"{self.site}: {_count(self.articles, 'confident article')}, {_count(self.others, 'non-article')}"]
        parts.append("article shapes: " + _shapes(self.shapes.articles, self.shapes.more_articles, True))
        parts.append("listing shapes: " + _shapes(self.shapes.listings, self.shapes.more_listings, False))
        if self.shapes.unsettled:
            parts.append(f"unsettled shapes: {self.shapes.unsettled}")
        top = self.templates.articles[0].articles if self.templates.articles else 0
        share = f" (the first holds {round(100 * top / self.articles)} %)" if top and self.articles else ""
        templates = self.templates
        parts.append(f"templates: {templates.article_count} of articles{share}, {templates.listing_count} of listings")
        parts.append(f"furniture lines: {self.furniture_lines} (of {_count(self.stored, 'article')} counted)")
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """The summary as plain values (for JSON and stats)."""
        return {
            "site": self.site,
            "articles": self.articles,
            "others": self.others,
            "shapes": self.shapes.as_dict(),
            "coarse_shapes": self.coarse.as_dict(),
            "templates": self.templates.as_dict(),
            "furniture_lines": self.furniture_lines,
            "stored": self.stored,
        }


def _count(number: int, noun: str) -> str:
    """``1 confident article``, ``3 confident articles``."""
    return f"{number} {noun}{'s' * (number != 1)}"


def _shapes(shown: Sequence[ShapeCount], more: int, articles: bool) -> str:
    if not shown:
        return "none"
    texts = []
    for shape in shown:
        count, other = (shape.articles, shape.others) if articles else (shape.others, shape.articles)
        aside = f" ({_count(other, 'non-article' if articles else 'article')})" if other else ""
        texts.append(f"{shape.key} {count}{aside}")
    return ", ".join(texts) + (f", +{more} more" if more else "")


def within_site(site: str, shapes: Mapping[str, list[int]]) -> dict[str, list[int]]:
    """A site's path shapes in its own terms: the local files of a ``file:`` crawl are one site, their
    shapes hold the folder the site was read from (the machine's, not the site's), so the folders
    every one of them starts with are taken off (``/home/{slug}/site/tag/{slug}.html`` ->
    ``/tag/{slug}.html``); a web site's shapes are its own already."""
    if site != FILE_SITE or not shapes:
        return dict(shapes)
    folders = [key.partition("?")[0].split("/")[1:-1] for key in shapes]
    common = 0
    while all(len(path) > common for path in folders) and len({path[common] for path in folders}) == 1:
        common += 1
    moved: dict[str, list[int]] = {}
    for key, counts in shapes.items():
        relative = "/" + "/".join(key.split("/")[1 + common :])
        found = moved.setdefault(relative, [0, 0])
        found[0] += counts[0]
        found[1] += counts[1]
    return moved


def _kinds(counts: Mapping[str, tuple[int, int]], most: int) -> Kinds:
    articles, listings, unsettled = [], [], 0
    for key, (on_articles, on_others) in counts.items():
        if on_articles >= ARTICLE_SHAPE_COUNT and on_articles >= ARTICLE_SHAPE_RATIO * on_others:
            articles.append(ShapeCount(key, on_articles, on_others))
        elif on_others >= ARTICLE_SHAPE_COUNT and on_others >= ARTICLE_SHAPE_RATIO * on_articles:
            listings.append(ShapeCount(key, on_articles, on_others))
        else:
            unsettled += 1
    articles.sort(key=lambda shape: (-shape.articles, -shape.others, shape.key))
    listings.sort(key=lambda shape: (-shape.others, -shape.articles, shape.key))
    return Kinds(
        tuple(articles[:most]),
        tuple(listings[:most]),
        max(0, len(articles) - most),
        max(0, len(listings) - most),
        unsettled,
    )


def summarize_fields(
    site: str, fields: Mapping[str, int | str], *, most: int = DEFAULT_MOST, weights: Weights | None = None
) -> SiteSummary:
    """The summary of a site from its fields (the counters of ``evidence``; marks are skipped)."""
    if most < 0:
        raise ValueError(f"most must be at least 0, got {most}")
    weights = weights or load_weights()
    pairs: dict[str, dict[str, list[int]]] = {"s": {}, "c": {}, "t": {}}
    lines: list[int] = []
    for name, value in fields.items():
        prefix, colon, key = name.partition(":")
        if not colon:
            continue
        if prefix == "bl":
            lines.append(int(value))
        elif len(prefix) == 2 and prefix[0] in pairs and prefix[1] in "an":
            pairs[prefix[0]].setdefault(key, [0, 0])[prefix[1] == "n"] += int(value)
    stored = int(fields.get(STORED, 0) or 0)
    share, minimum = weights.boilerplate_share, weights.boilerplate_count
    kinds = {
        prefix: _kinds({key: (a, n) for key, (a, n) in within_site(site, found).items()}, most)
        for prefix, found in pairs.items()
    }
    return SiteSummary(
        site=site,
        articles=int(fields.get(SITE_ARTICLES, 0) or 0),
        others=int(fields.get(SITE_OTHERS, 0) or 0),
        shapes=kinds["s"],
        coarse=kinds["c"],
        templates=kinds["t"],
        furniture_lines=sum(is_recurring(count, stored, share, minimum) for count in lines),
        stored=stored,
    )


def summarize_site(
    store: SiteFields, site: str, *, most: int = DEFAULT_MOST, weights: Weights | None = None
) -> SiteSummary | None:
    """The summary of ``site`` as ``store`` holds it; None when the store holds nothing of it."""
    fields = store.fields(site)
    if not fields:
        return None
    return summarize_fields(site, fields, most=most, weights=weights)


class TaughtSites:
    """What a crawl taught each site (confident verdicts), counted in the crawl, bounded: past twice
    ``most`` sites only the ``most`` taught most are kept, so a crawl of a million one-page sites holds
    a few thousand counters; ``first``: sites whose first confident verdict the crawl taught (exact)."""

    def __init__(self, most: int = TALLIED_SITES) -> None:
        if most < 1:
            raise ValueError(f"most must be at least 1, got {most}")
        self.most = most
        self.first = 0
        self._counts: dict[str, int] = {}

    def add(self, site: str, first: bool = False) -> None:
        """One confident verdict the crawl taught ``site`` (``first``: the site held none before)."""
        self.first += first
        self._counts[site] = self._counts.get(site, 0) + 1
        if len(self._counts) > 2 * self.most:
            kept = sorted(self._counts.items(), key=lambda item: -item[1])[: self.most]
            self._counts = dict(kept)

    def __len__(self) -> int:
        return len(self._counts)

    def ranked(self, limit: int | None = None) -> list[str]:
        """The sites taught most first (then by name), at most ``limit`` (None: all tallied)."""
        found = sorted(self._counts, key=lambda site: (-self._counts[site], site))
        return found if limit is None else found[: max(0, limit)]


def learned_sites(memory: SiteMemory, sites: Iterable[str]) -> list[str]:
    """The sites among ``sites`` of which ``memory`` holds confident verdicts, the most first (then by
    name); a site of which nothing was learned, or that was forgotten, is left out. Reads two counters
    a site (in Redis: one HMGET each)."""
    totals = []
    for site in dict.fromkeys(sites):
        articles, others = memory.store.read(site, [SITE_ARTICLES, SITE_OTHERS])
        verdicts = int(articles or 0) + int(others or 0)
        if verdicts:
            totals.append((-verdicts, site))
    return [site for _, site in sorted(totals)]


def crawl_summaries(
    memory: SiteMemory, sites: Iterable[str], most: int = DEFAULT_MOST, limit: int | None = DEFAULT_SITES_LOGGED
) -> list[SiteSummary]:
    """What ``memory`` learned of ``sites`` (the sites a crawl saw): the ``learned_sites``, the most
    confident verdicts first, at most ``limit`` of them (None: all), each read in full (in Redis: one
    HGETALL a site shown) with its ``most`` shapes of each kind."""
    ranked = learned_sites(memory, sites)
    chosen = ranked if limit is None else ranked[: max(0, limit)]
    found = (summarize_site(memory.store, site, most=most, weights=memory.weights) for site in chosen)
    return [summary for summary in found if summary is not None]


def memory_summaries(
    store: SiteFields, *, most: int = DEFAULT_MOST, weights: Weights | None = None
) -> list[SiteSummary]:
    """Every site ``store`` remembers, in name order."""
    found = (summarize_site(store, site, most=most, weights=weights) for site in sorted(store.site_names()))
    return [summary for summary in found if summary is not None]
