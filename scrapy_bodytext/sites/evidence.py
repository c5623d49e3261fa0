"""What a site's memory holds, under which field names, and how a page's counts are read from it
(the page itself never counted) and explained."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..page.signature import SIGNALS
from ..result import ExtractionResult
from .domains import site_key
from .shapes import coarse_shape, dated_shape, url_shape
from .verdict import SIGNAL_RARE, Counts, signal_verdicts

#: field names of a site's counters: confident articles (``A``) and non-articles (``N``) in all, per
#: URL shape (``sa:``, ``sn:``), coarse shape (``ca:``, ``cn:``), date-anchored shape (``da:``,
#: ``dn:``) and template (``ta:``, ``tn:``); confident articles showing each page-level signal
#: (``ga:``, see ``page.signature.SIGNALS``); the furniture lines (``bl:``) and the stored articles they were counted on (``stored``); ``u:`` marks a
#: page already learned (what it taught, so that it never counts towards its own decision)
SITE_ARTICLES, SITE_OTHERS, STORED = "A", "N", "stored"
#: a link to a URL of one of these shapes points at an article: the shape has this many confident
#: articles at least, and at least this many times its non-articles
ARTICLE_SHAPE_COUNT, ARTICLE_SHAPE_RATIO = 2, 3


def url_mark(url: str) -> str:
    """The field that marks ``url`` as learned."""
    return "u:" + hashlib.blake2b(url.encode("utf-8", "replace"), digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class PageKeys:
    """The keys a page is counted under."""

    site: str
    shape: str
    coarse: str
    template: str
    mark: str
    dated: str = ""  # the date-anchored shape ("" without a date segment)
    signals: tuple[str, ...] = ()  # the page-level signals the page shows

    @classmethod
    def of(cls, url: str, result: ExtractionResult) -> PageKeys:
        shape = url_shape(url)
        return cls(
            site_key(url),
            shape,
            coarse_shape(shape),
            result.template,
            url_mark(url),
            dated_shape(shape),
            tuple(result.signals),
        )

    def counters(self, article: bool) -> tuple[str, ...]:
        """The counters a confident verdict of this page adds one to."""
        kind = "a" if article else "n"
        found = [SITE_ARTICLES if article else SITE_OTHERS, f"s{kind}:{self.shape}", f"c{kind}:{self.coarse}"]
        if self.dated:
            found.append(f"d{kind}:{self.dated}")
        if self.template:
            found.append(f"t{kind}:{self.template}")
        if article:
            found.extend(f"ga:{name}" for name in self.signals)
        return tuple(found)


def site_links(keys: PageKeys, links: Sequence[str]) -> dict[str, int]:
    """Shapes of the selection's links to other pages of the same site, each with its link count."""
    shapes: dict[str, int] = {}
    for link in links:
        if site_key(link) == keys.site and url_mark(link) != keys.mark:
            shape = url_shape(link)
            shapes[shape] = shapes.get(shape, 0) + 1
    return shapes


def read_counts(
    keys: PageKeys, links: dict[str, int], read: Callable[[Sequence[str]], Sequence[str | int | None]]
) -> tuple[Counts, str | None]:
    """The page's counts from its site's fields (``read`` returns a site's fields by name), less what
    the page itself taught when it was learned before; and that mark."""
    link_shapes = sorted(links)
    names = [
        SITE_ARTICLES,
        SITE_OTHERS,
        f"sa:{keys.shape}",
        f"sn:{keys.shape}",
        f"ca:{keys.coarse}",
        f"cn:{keys.coarse}",
        f"ta:{keys.template}",
        f"tn:{keys.template}",
        f"da:{keys.dated}",
        f"dn:{keys.dated}",
        *(f"ga:{name}" for name in SIGNALS),
        keys.mark,
        *(f"s{kind}:{shape}" for shape in link_shapes for kind in "an"),
    ]
    values = dict(zip(names, read(names)))
    mark = values.pop(keys.mark)
    counts = {name: int(value or 0) for name, value in values.items()}
    if mark:  # learned before: take back what it taught
        kind, template, _, signals = parse_mark(str(mark))
        own = PageKeys(keys.site, keys.shape, keys.coarse, template, keys.mark, keys.dated, signals).counters(
            kind == "a"
        )
        for name in own:
            if name in counts:
                counts[name] = max(0, counts[name] - 1)
    article_links = sum(
        count
        for shape, count in links.items()
        if counts[f"sa:{shape}"] >= ARTICLE_SHAPE_COUNT
        and counts[f"sa:{shape}"] >= ARTICLE_SHAPE_RATIO * counts[f"sn:{shape}"]
    )
    pair = lambda prefix, key: (counts[f"{prefix}a:{key}"], counts[f"{prefix}n:{key}"])  # noqa: E731
    found = Counts(
        site=(counts[SITE_ARTICLES], counts[SITE_OTHERS]),
        shape=pair("s", keys.shape),
        coarse=pair("c", keys.coarse),
        template=pair("t", keys.template) if keys.template else (0, 0),
        links=article_links,
        dated=pair("d", keys.dated) if keys.dated else (0, 0),
        shown=tuple(name in keys.signals for name in SIGNALS),
        signals=tuple(counts[f"ga:{name}"] for name in SIGNALS),
    )
    return found, (str(mark) if mark else None)


def explain(page_probability: float, probability: float, counts: Counts, weighed: Collection[str] = ()) -> str:
    """One line saying what moved the page's probability, for logs and the item; ``weighed``: the
    features the combination gives a weight (signal verdicts are said only when weighed)."""
    moved = probability - page_probability
    if abs(moved) < 0.05:
        return "the page's own verdict (site evidence agrees or is too thin)"
    direction = "raised" if moved > 0 else "lowered"
    parts = []
    articles = counts.site[0]
    if counts.shape[0] or counts.shape[1]:
        parts.append(f"its URL shape: {counts.shape[0]} confident articles, {counts.shape[1]} others")
    elif articles:
        parts.append(f"none of the site's {articles} confident articles has its URL shape")
    if counts.template[0] or counts.template[1]:
        parts.append(f"its template: {counts.template[0]} articles, {counts.template[1]} others")
    elif articles:
        parts.append("none has its template")
    if counts.dated[0] and not counts.shape[0]:
        parts.append(f"its shape from the date on: {counts.dated[0]} confident articles")
    lacking, missing = signal_verdicts(counts)
    lacking = lacking if "signal_lacking" in weighed else 0
    missing = missing if "signal_missing" in weighed else 0
    if lacking:
        shown = [
            name for name, on, n in zip(SIGNALS, counts.shown, counts.signals) if on and n <= SIGNAL_RARE * articles
        ]
        parts.append(f"it shows what the site's articles lack: {', '.join(shown)}")
    if missing:
        parts.append(f"it lacks {missing} signals nearly all of the site's articles show")
    if counts.links:
        parts.append(f"its text links to {counts.links} pages of the site's article shapes")
    return f"{direction} by the site: " + "; ".join(parts)


def make_mark(article: bool, template: str, lines_counted: bool, signals: Sequence[str] = ()) -> str:
    """What a learned page's mark holds: its verdict, its template, whether its lines were counted,
    the signals it showed."""
    return f"{'a' if article else 'n'}|{template}|{int(lines_counted)}|{','.join(signals)}"


def parse_mark(mark: str) -> tuple[str, str, bool, tuple[str, ...]]:
    """A mark's verdict, template, whether its lines were counted and signals (marks written before
    signals were counted have none)."""
    parts = mark.split("|")
    if len(parts) == 3:
        parts.append("")
    kind, template, lines, signals = parts[0], "|".join(parts[1:-2]), parts[-2], parts[-1]
    return kind, template, lines == "1", tuple(name for name in signals.split(",") if name)
