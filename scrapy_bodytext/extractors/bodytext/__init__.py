"""bodytext: the recommended default method.

It combines what the published methods measure with the structure a page gives, in four steps:

1. **Paragraphs** (``units``): the lines the renderer prints, each candidate with a row of named
   features — length, link density (CTD, P value), stop-word density (Wu & Yang), tag density (BTE,
   TTR), structure, class/id words, text cues and the kind of line (``vocabulary``).
2. **First pass**: a logistic model scores each paragraph on its own features.
3. **Second pass** (``context``): each paragraph is scored again with the first-pass scores of its
   neighbours, its enclosing regions, its group of same-shaped siblings (``groups``) and the region
   of the heading that shows the page's title (``anchor``) (jusText's context-sensitive revision,
   learned), by a logistic
   model and boosted oblivious trees whose probabilities are averaged. Paragraphs at or above the
   cut are the main text; lines that are page furniture (lone labels, counters, short prompts,
   copyright lines, comment-thread headers) never are.
4. **Page type and article probability** (``page``): a multinomial logistic model over page-level
   evidence (the selection's size, contiguity and dates, declarations, structure, page-kind, shop and
   service vocabulary, URL shape) gives each page type a share; the article share, calibrated by
   Platt scaling, is the article probability, and the page is typed an article from the decision
   rule chosen out of fold (at most 1 % of the articles lost), else the likeliest other type.

Every weight is in ``model.json``, fitted by ``python -m scrapy_bodytext.training`` on a labelled
corpus with grouped cross-validation (no source or site both fitted and scored); see
``docs/development.md``.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from ...page.document import Document
from ...page.signature import read_page_signals, selection_links, template_signature
from .. import Extraction
from ..options import check_number
from . import context, page, units
from .comments import comment_paragraphs, without_comments
from .model import load_model

NAME = "bodytext"


@dataclass(frozen=True)
class Options:
    """Options of the default method.

    ``min_paragraph_probability``: paragraphs scored below this are not main text (``None``: the
    cut the fitted model was chosen with; higher favours precision, lower recall).
    """

    min_paragraph_probability: float | None = None

    def __post_init__(self) -> None:
        check_number(self, "min_paragraph_probability", minimum=0, maximum=1, optional=True)


@dataclass(slots=True)
class Scored:
    """A page's paragraphs with their first- and second-pass scores (one per paragraph)."""

    paras: units.Paragraphs
    first: list[float]
    scores: list[float]


def score(doc: Document) -> Scored:
    """Paragraphs of ``doc`` and their probabilities of being main text."""
    model = load_model()
    paras = units.paragraphs(doc)
    n = len(paras.starts)
    first = [0.0] * n
    scores = [0.0] * n
    if paras.candidates:
        doc.check_time()
        for i, value in zip(paras.candidates, model.first_pass(paras.rows).tolist()):
            first[i] = value
        rows = paras.rows.join(context.context_rows(paras, first))
        for i, value in zip(paras.candidates, model.second_pass(rows).tolist()):
            scores[i] = value
    return Scored(paras, first, scores)


@dataclass(frozen=True)
class Guard:
    """The recall guard of the selection (fitted: chosen out of fold by the harness).

    The article is a region of the page: the selection's *core* is the narrowest element holding
    ``share`` of the selected text, and inside it every paragraph scored at least ``cut`` is kept
    (headings, lists, specs and item blocks between the good paragraphs). When the selection holds
    less than ``prose_ratio`` of the prose of the page's prose core (``context.smallest_region``),
    the selection went astray and that core is kept the same way; and so is the title anchor's
    region (``context.anchor_region``) when the selection holds less than ``anchor_ratio`` of its
    prose (the selection sits in a comment thread or a sidebar beside a short post). ``share`` 0
    turns the guard off. The guard never adds the headline, a caption, a picture credit, a byline or a
    widget's line (``Paragraphs.anchor``, ``captions``, ``bylines``, ``widgets``:
    docs/methods.md#what-main-text-is).
    """

    share: float = 0.0
    cut: float = 0.0
    prose_ratio: float = 0.0
    anchor_ratio: float = 0.0


def select(
    paras: units.Paragraphs,
    scores: list[float],
    cut: float,
    relative_cut: float,
    guard: Guard | None = None,
    first: list[float] | None = None,
) -> list[int]:
    """Indices of the main-text paragraphs: scored at or above the cut — which comes down to
    ``relative_cut`` times the best score on pages whose best paragraph is below it, so that an
    unusual template does not leave a real article with no text — and neither page furniture nor a
    caption or picture credit (``Paragraphs.captions``: the result's ``captions``); with the lead the
    first-pass scores (``first``) keep on its own evidence (``lead``); then widened by the recall
    guard to the regions the article lies in. Captions are short beside the article they belong
    to: where the selected captions hold more text than the rest of the selection
    (``captions_are_short``), they are the page's prose and main text, so that a page never loses
    its main text to its markup's word for it."""
    best = max(scores, default=0.0)
    cut = min(cut, relative_cut * best)
    captions = paras.captions
    selected = [i for i, value in enumerate(scores) if value >= cut and value > 0.0 and i not in paras.furniture]
    if not captions_are_short(paras, selected):
        captions = frozenset()  # the page's prose is what its markup calls captions: it is the article
    furniture = paras.furniture | captions
    keep = [i for i in selected if i not in captions]
    if first is not None and keep:
        keep = sorted({*keep, *lead(paras, first, cut, keep[0], captions)})
    if guard is None or not guard.share or not keep:
        return keep
    chars = paras.chars
    kept = set(keep)
    regions = [
        context.smallest_region(
            paras, [0, *accumulate(c if i in kept else 0 for i, c in enumerate(chars))], guard.share
        )
    ]
    if guard.prose_ratio or guard.anchor_ratio:
        prose = [0.0, *accumulate(context.prose_weights(paras))]
        kept_prose = lambda lo, hi: sum(prose[i + 1] - prose[i] for i in keep if lo <= i < hi)  # noqa: E731
        if guard.prose_ratio:
            lo, hi = core = context.smallest_region(paras, prose, context.PROSE_CORE_SHARE)
            if kept_prose(0, len(scores)) < guard.prose_ratio * (prose[hi] - prose[lo]):
                regions.append(core)
        if guard.anchor_ratio:
            lo, hi = anchor = context.anchor_region(paras, prose)
            if hi > lo and kept_prose(lo, hi) < guard.anchor_ratio * (prose[hi] - prose[lo]):
                regions.append(anchor)
    refused = furniture | paras.bylines | paras.widgets | {paras.anchor}  # the headline is the title
    for lo, hi in regions:
        kept.update(i for i in range(lo, hi) if scores[i] >= guard.cut and scores[i] > 0.0 and i not in refused)
    return sorted(kept)


def captions_are_short(paras: units.Paragraphs, selected: list[int]) -> bool:
    """Whether the captions among the ``selected`` paragraphs hold no more text than the others:
    a caption is short beside its article; a page whose prose all sits in caption-classed elements
    (a photo page, a blog theme that classes its body so) is judged on that prose."""
    captions, chars = paras.captions, paras.chars
    in_captions = sum(chars[i] for i in selected if i in captions)
    return in_captions <= sum(chars[i] for i in selected) - in_captions


def article_captions(paras: units.Paragraphs, keep: list[int]) -> list[int]:
    """The captions and picture credits of the article (``Paragraphs.captions``) that are not main
    text: those from its title anchor, or its first kept paragraph, to its last."""
    if not keep:
        return []
    lo = paras.anchor if 0 <= paras.anchor < keep[0] else keep[0]
    kept = set(keep)
    return sorted(i for i in paras.captions if lo <= i <= keep[-1] and i not in kept)


def lead(
    paras: units.Paragraphs, first: list[float], cut: float, body: int, captions: frozenset[int] | None = None
) -> list[int]:
    """The article's lead (standfirst) that the second pass may veto, kept when its own first-pass
    score reaches ``cut``: between the title anchor and the body's first paragraph ``body``, the
    paragraphs of a container named as the lead, else (none named before it) the first paragraph
    after the headline in the anchor's region (bylines, captions and furniture passed over; a heading ends the search); never a
    caption, a credit, a byline or furniture (docs/methods.md#what-main-text-is); ``captions``: the
    page's captions (``Paragraphs.captions`` unless given)."""
    anchor = paras.anchor
    if anchor < 0 or anchor >= body:
        return []
    lo, hi = context.anchor_region(paras, [0.0, *accumulate(context.prose_weights(paras))])
    passed = paras.furniture | (paras.captions if captions is None else captions) | paras.bylines
    found, unnamed = [], True
    for i in paras.candidates[bisect_right(paras.candidates, anchor) :]:
        if i >= body:
            break
        if i in passed:
            continue
        if i in paras.leads:  # a container named as the lead: the lead is there
            unnamed = False
            if first[i] >= cut:
                found.append(i)
        elif unnamed:
            unnamed = False
            if first[i] >= cut and lo <= i < hi and not paras.heading[i]:
                found.append(i)
    return found


def extract(doc: Document, options: Options) -> Extraction:
    model = load_model()
    scored = score(doc)
    paras = scored.paras
    if not paras.candidates:
        return Extraction((), 0.0, "no text", paras.language)
    cut = model.cut if options.min_paragraph_probability is None else options.min_paragraph_probability
    keep = select(paras, scored.scores, cut, model.relative_cut, model.guard, scored.first)
    starts, ends = paras.starts, paras.ends
    slots = [slot for i in keep for slot in range(starts[i], ends[i])]
    comment_slots = [slot for i in comment_paragraphs(paras, keep) for slot in range(starts[i], ends[i])]
    caption_slots = [slot for i in article_captions(paras, keep) for slot in range(starts[i], ends[i])]
    # the page is judged on its article: a comment thread the selection reached into is left out of
    # the judge's evidence, but not out of the main text (a thread found where an article's own
    # paragraphs are would otherwise take the article's text with it)
    article = without_comments(paras, keep)
    row = page.article_row(paras, page.page_evidence(doc, paras), article, scored.scores)
    page_type, probability, type_probability = model.judge(
        row, page.short_body_factor(sum(paras.chars[i] for i in article))
    )
    signals, signals_failed = read_page_signals(doc)
    debug: dict = {"paragraphs": len(starts), "kept": len(keep)}
    if signals_failed:  # site memory counts it and says it (plugin.sites)
        debug["signals_failed"] = signals_failed
    return Extraction(
        slots,
        probability,
        f"{len(keep)} of {len(starts)} paragraphs; {page_type}, P(article)={probability:.2f}",
        paras.language,
        debug,
        comment_slots,
        page_type,
        caption_slots,
        template_signature(doc, slots),
        selection_links(doc, slots),
        page_type_probability=type_probability,
        signals=signals,
    )
