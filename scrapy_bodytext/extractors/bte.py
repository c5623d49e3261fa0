"""BTE — Body Text Extraction (Finn, Kushmerick & Smyth 2001) in Baroni's linear form
(docs/methods.md#bte).

The page is a sequence of N tokens, B_n = 1 for a tag and 0 for a word. Finn chooses i ≤ j maximising

    T(i,j) = Σ_{n<i} B_n + Σ_{n=i..j} (1 − B_n) + Σ_{n>j} B_n  =  N_tag + Σ_{n=i..j} w_n,  w_n = ±1

(+1 a word, −1 a tag), so the best span is the maximum-sum contiguous run of w (Baroni 2005). Equal
signs are merged into runs (an optimal span starts and ends on word runs) and Kadane's scan over the
runs finds it in O(R). Ties: highest score, then longest span (in tokens), then earliest start.

The tokens come from the shared document columns: before each text slot ``tags_before`` tag tokens
(void elements 1, others 2: start and end), then the slot's words (one token per CJK character),
then ``trailing_tags``. The output is the span's text slots.

Article probability (BTE has none; docs/methods.md#bte-article-probability): the region P of the
span, mapped by ``CALIBRATION`` — the chance that a page with that region P is an article, fitted on
the dev corpus with articles and non-articles weighted as equally common.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..page.document import Document
from ..page.tokens import CJK_RE
from . import Extraction
from .calibration import LogitMap
from .maxsubarray import max_subarray
from .options import check_flag, check_number
from .regionp import slot_ranges_region_p

NAME = "bte"

#: raw region P of the span -> article probability; fitted on the dev corpus (1269 pages) with
#: ``python scripts/calibrate.py bte`` (class-balanced logistic regression on logit(P)); the 0.5
#: boundary lies at raw P = 0.239
CALIBRATION = LogitMap(0.9266, 1.0726)


@dataclass(frozen=True)
class Options:
    """Options of BTE (docs/methods.md#bte-options).

    ``cjk_token_weight`` (default 1.0, not in the paper; docs/methods.md#characters-and-tokens):
    weight of a CJK/kana/Hangul character token against a tag; per-character tokens roughly double the
    token mass of CJK text (0.6 is a reasonable alternative). ``snap_to_blocks`` (default False, not
    in the paper; docs/methods.md#bte-ties): widen the span to the paragraphs it starts and ends in,
    which avoids a truncated first sentence; off to stay faithful.
    """

    cjk_token_weight: float = 1.0
    snap_to_blocks: bool = False

    def __post_init__(self) -> None:
        check_number(self, "cjk_token_weight", positive=True)
        check_flag(self, "snap_to_blocks")


def token_runs(doc: Document, cjk_token_weight: float = 1.0) -> tuple[list[float], list[int], list[tuple[int, int]]]:
    """Run-length coded token stream: ``(weights, lengths, slots)``.

    ``weights[r]`` is −(tags) for a tag run and +(word weight) for a word run, ``lengths[r]`` its
    number of tokens, ``slots[r]`` the half-open slot range of a word run (``(0, 0)`` for tag runs).
    Slots without a word (pure punctuation) add nothing and end up inside a span or outside it.
    """
    counts = doc.token_counts
    if cjk_token_weight != 1.0:
        discount = 1.0 - cjk_token_weight
        word_weights = [n - discount * len(CJK_RE.findall(text)) if n else 0 for n, text in zip(counts, doc.texts)]
    else:
        word_weights = counts
    weights: list[float] = []
    lengths: list[int] = []
    slots: list[tuple[int, int]] = []
    pending_tags = 0
    for slot, (tags, words) in enumerate(zip(doc.tags_before, counts)):
        pending_tags += tags
        if not words:
            continue
        if pending_tags or not weights:
            if pending_tags:
                weights.append(-pending_tags)
                lengths.append(pending_tags)
                slots.append((0, 0))
                pending_tags = 0
            weights.append(word_weights[slot])
            lengths.append(words)
            slots.append((slot, slot + 1))
        else:  # no tag since the previous word slot: same run
            weights[-1] += word_weights[slot]
            lengths[-1] += words
            slots[-1] = (slots[-1][0], slot + 1)
    pending_tags += doc.trailing_tags
    if pending_tags:
        weights.append(-pending_tags)
        lengths.append(pending_tags)
        slots.append((0, 0))
    return weights, lengths, slots


def best_span(doc: Document, options: Options) -> tuple[int, int, float]:
    """Half-open slot range of the maximum-score span and its score Σw (0 when no span scores > 0)."""
    weights, lengths, slots = token_runs(doc, options.cjk_token_weight)
    start, end, score = max_subarray(weights, lengths)
    if score <= 0:
        return 0, 0, 0
    return slots[start][0], slots[end - 1][1], score


def snap(doc: Document, start: int, end: int) -> tuple[int, int]:
    """Widen ``[start, end)`` to the block boundaries (``breaks == 2``) around it."""
    breaks = doc.breaks
    while start > 0 and breaks[start] != 2:
        start -= 1
    while end < len(breaks) and breaks[end] != 2:
        end += 1
    return start, end


def extract(doc: Document, options: Options) -> Extraction:
    start, end, score = best_span(doc, options)
    if end <= start:
        return Extraction((), 0.0, "no span with more words than tags")
    if options.snap_to_blocks:
        start, end = snap(doc, start, end)
    raw = slot_ranges_region_p(doc, [(start, end)])
    probability = CALIBRATION(raw)
    return Extraction(
        range(start, end),
        probability,
        f"span of slots {start}-{end} (words - tags = {score:g}), region P={raw:.2f}",
        debug={"region_p": raw, "score": score},
    )
