"""CTD: Content Extraction via composite Text Density (Sun, Song & Liao, SIGIR 2011),
docs/methods.md#ctd.

Per element i: C characters, T descendant elements, LC link characters (all text of ``a``, ``button``
and ``select``), LT link tags, ratio = LC/C of ``<body>``. Zero counts count as 1 (C = 0 gives 0):

    CTD_i = (C/T) · ln(C·T / (LC·LT)) / ln(ln(C·LC/(C−LC) + ratio·C + e))

    DensitySum_i = Σ_children CTD_c + Σ_{text runs r directly in i} |r|·ln|r| / ln(ln(ratio·|r| + e))

(a leaf's DensitySum is its own CTD). The element with the largest DensitySum sets the threshold t =
min CTD over it and its ancestors; then, top down from ``<body>``, every element with CTD ≥ t that is
not yet content has the largest-DensitySum element of its subtree marked as content; elements below t
are not explored. The text of the content subtrees is the output.

Deviations, all small: characters are whitespace-normalised (docs/methods.md#characters-and-tokens),
not the browser's rendered text; a page without any link text (ratio = 0, where the reference divides
by ln(ln(e)) = 0) scores loose text as a text-only child, |r|·ln|r| / ln(ln(1 + e)); text lying
directly in container elements is not output. Article probability: the region P
(docs/methods.md#region-p) of the content, calibrated on the dev corpus.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import accumulate

from ..output.text import element_slots
from ..page.document import Document
from . import Extraction
from .calibration import LogitMap
from .options import check_flag
from .regionp import page_valid_chars, region_p

NAME = "ctd"

#: elements whose whole text counts as link text [CETD code: CountLinkChar]
LINK_TAGS = frozenset(("a", "button", "select"))

#: region P -> article probability, fitted on the dev corpus by ``python scripts/calibrate.py ctd``
#: (class-balanced Platt scaling on logit P, see ``calibration.py``)
CALIBRATION = LogitMap(1.0032, 0.9707)


@dataclass(frozen=True)
class Options:
    """Options of CTD.

    ``calibrated`` (default True; not in the paper, docs/methods.md#region-p and
    docs/methods.md#calibration): the article probability is the region P of the content mapped by
    ``CALIBRATION`` (fitted on the dev corpus); False gives the raw region P.
    """

    calibrated: bool = True

    def __post_init__(self) -> None:
        check_flag(self, "calibrated")


def composite_text_density(c: int, t: int, lc: int, lt: int, ratio: float) -> float:
    """CTD of one element from its counts (the reference code's exact form)."""
    if c <= 0:
        return 0.0
    nlc = (c - lc) or 1
    t, lc, lt = t or 1, lc or 1, lt or 1
    return (c / t) * math.log(c * t / (lc * lt)) / math.log(math.log(c * lc / nlc + ratio * c + math.e))


def loose_text_density(length: int, ratio: float) -> float:
    """DensitySum share of a run of text lying directly in an element (between its children)."""
    if length <= 1:
        return 0.0
    inner = ratio * length + math.e if ratio > 0 else 1 + math.e
    return length * math.log(length) / math.log(math.log(inner))


@dataclass
class Densities:
    """Per element (document pre-order): the counts, CTD, DensitySum, and ``best``: the first element
    of largest DensitySum in its subtree."""

    chars: list[int]
    tags: list[int]
    link_chars: list[int]
    link_tags: list[int]
    ctd: list[float]
    density_sum: list[float]
    best: list[int]


def densities(doc: Document) -> Densities:
    """Counts and densities of every element: prefix sums, then one bottom-up pass."""
    tags, parents, ends, owners = doc.tags, doc.parents, doc.ends, doc.owners
    n = len(tags)
    chars = doc.prefix("chars")
    starts, slot_ends = doc.slot_starts, doc.slot_ends
    in_link = [False] * n
    for e in range(n):
        in_link[e] = tags[e] in LINK_TAGS or (parents[e] >= 0 and in_link[parents[e]])
    link_prefix = [0, *accumulate(length if in_link[owner] else 0 for length, owner in zip(doc.chars, owners))]
    c = [chars[slot_ends[e]] - chars[starts[e]] for e in range(n)]
    lc = [link_prefix[slot_ends[e]] - link_prefix[starts[e]] for e in range(n)]
    t = [ends[e] - e - 1 for e in range(n)]
    ratio = lc[0] / c[0] if n and c[0] else 0.0
    loose = [0.0] * n
    for length, owner in zip(doc.chars, owners):
        loose[owner] += loose_text_density(length, ratio)
    doc.check_time()

    lt_all = [0] * n
    lt_sum = [0] * n  # Σ over children of their contribution to LT
    ctd = [0.0] * n
    child_ctd = [0.0] * n
    density_sum = [0.0] * n
    best = [-1] * n
    for e in range(n - 1, -1, -1):
        is_link = tags[e] in LINK_TAGS
        lt = lt_all[e] = t[e] if is_link else lt_sum[e]
        ctd[e] = composite_text_density(c[e], t[e], lc[e], lt, ratio)
        density_sum[e] = ctd[e] if ends[e] == e + 1 else child_ctd[e] + loose[e]
        if best[e] < 0 or density_sum[e] >= density_sum[best[e]]:  # the element wins ties
            best[e] = e
        p = parents[e]
        if p < 0:
            continue
        if is_link or (lt == t[e] and lc[e] == c[e] and lt != 0):  # a link, or all-link child
            lt += 1
        lt_sum[p] += lt
        child_ctd[p] += ctd[e]
        # children arrive last to first, so an earlier child takes over on equal DensitySum
        if best[p] < 0 or density_sum[best[e]] >= density_sum[best[p]]:
            best[p] = best[e]
    return Densities(c, t, lc, lt_all, ctd, density_sum, best)


def extract(doc: Document, options: Options) -> Extraction:
    if not doc.tags or doc.total_chars == 0:
        return Extraction((), 0.0, "no text")
    found = densities(doc)
    doc.check_time()
    content = _mark_content(doc, found.ctd, found.best)
    chars = found.chars
    raw = region_p(
        sum(chars[e] for e in content),
        sum(doc.subtree_sum("link_chars", e) for e in content),
        sum(doc.subtree_markup(e) - chars[e] for e in content),
        page_valid_chars(doc),
    )
    probability = CALIBRATION(raw) if options.calibrated else raw
    return Extraction(
        element_slots(doc, content),
        probability,
        f"{len(content)} content element(s), region P={raw:.2f}",
        debug={"region_p": raw, "content_elements": len(content)},
    )


def _mark_content(doc: Document, ctd: list[float], best: list[int]) -> list[int]:
    """GetThreshold then MarkContent of the reference: the roots of the content subtrees, in document
    order of discovery. (The reference also marks their ancestors as containers, which only matters
    for the container text this module does not output.)"""
    parents, ends = doc.parents, doc.ends
    n = len(ctd)
    is_content = bytearray(n)
    target = best[0]
    threshold = ctd[target]
    node = parents[target]
    while node >= 0:
        threshold = min(threshold, ctd[node])
        node = parents[node]
    roots: list[int] = []
    e = 0
    while e < n:
        if is_content[e] or ctd[e] < threshold:
            e = ends[e]  # content already, or below the threshold: not explored
            continue
        target = best[e]
        if not is_content[target]:
            is_content[target] = 1
            roots.append(target)
        e = ends[e] if target == e else e + 1  # a content subtree is not entered
    return roots
