"""Second pass: each paragraph seen with the first-pass scores of the paragraphs and regions around it.

jusText's context-sensitive revision in learned form. A heading, a list item, a table row or a short
line between good paragraphs of the same region belongs to the article; the same line among menus
does not; prose after the end of the article in a thread of dated, repeated records is a comment.
The features (``FEATURES``) are the first-pass score itself, those of the nearest paragraphs, how
good the enclosing regions are, whether the paragraph lies in the best region (the ancestor whose
paragraphs gain most over their losses, as in BTE but over the tree) and in the best run of
paragraphs, and how much of the good text lies before and after it; and, apart from any score,
where the page's running prose lies (``prose_core``: the smallest region holding half of it, as a
reader finds the article by the block of text, whatever the paragraphs' own cues).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from itertools import accumulate

import numpy as np

from . import groups
from .table import Table
from .units import Paragraphs

FEATURES = (
    "first_pass",
    "prev_score",
    "next_score",
    "prev_max3",
    "next_max3",
    "sandwich",
    "parent_good",
    "grandparent_good",
    "parent_log_good",
    "in_best_container",
    "best_container_share",
    "in_best_run",
    "run_distance",
    "good_before_share",
    "good_after_share",
    "record_good",
    "in_prose_core",
    "region_prose_share",
    *groups.FEATURES,
    "title_heading",
    "in_anchor_region",
)
#: the prose core is the smallest region holding at least this share of the page's prose
PROSE_CORE_SHARE = 0.5
#: the title anchor's region is its nearest ancestor holding at least this much prose besides it
#: (``prose_weights``: about 250 characters of sentences)
ANCHOR_PROSE = 100.0


def prose_weights(paras: Paragraphs) -> list[float]:
    """Running prose per paragraph: its characters outside links times its stop-word density (menus,
    labels and link lists weigh nothing, sentences weigh their length)."""
    return [(c - linked) * d for c, linked, d in zip(paras.chars, paras.link_chars, paras.stop_density)]


def smallest_region(paras: Paragraphs, prefix: list[float], share: float) -> tuple[int, int]:
    """The narrowest region (an element's paragraph range, from the candidates' ancestor chains)
    holding at least ``share`` of the weight whose running sum is ``prefix``; the whole page when
    no element does."""
    total = prefix[-1]
    best = (0, len(prefix) - 1)
    if total <= 0:
        return best
    need = share * total
    seen = set()
    for chain in paras.chains:
        for lo, hi in chain:
            if hi - lo >= best[1] - best[0]:
                break  # the ranges of a chain only widen
            if (lo, hi) in seen:
                continue
            seen.add((lo, hi))
            if prefix[hi] - prefix[lo] >= need:
                best = (lo, hi)
                break
    return best


def context_rows(paras: Paragraphs, first: list[float]) -> Table:
    """The ``FEATURES`` table of the candidates of ``paras`` (one row each), given first-pass
    probabilities ``first`` (one per paragraph, 0 for paragraphs that are not candidates)."""
    chars = paras.chars
    n = len(chars)
    good = [p * c for p, c in zip(first, chars)]
    gain = [(2 * p - 1) * c for p, c in zip(first, chars)]
    good_prefix = [0.0, *accumulate(good)]
    char_prefix = [0, *accumulate(chars)]
    gain_prefix = [0.0, *accumulate(gain)]
    total_good = good_prefix[-1] or 1.0

    best_range, best_gain = (0, 0), -math.inf
    for chain in paras.chains:
        for lo, hi in chain:
            value = gain_prefix[hi] - gain_prefix[lo]
            if value > best_gain or (value == best_gain and hi - lo < best_range[1] - best_range[0]):
                best_range, best_gain = (lo, hi), value
    container_lo, container_hi = best_range
    container_share = (good_prefix[container_hi] - good_prefix[container_lo]) / total_good
    run_lo, run_hi = _best_run(gain)
    prose_prefix = [0.0, *accumulate(prose_weights(paras))]
    total_prose = prose_prefix[-1] or 1.0
    core_lo, core_hi = smallest_region(paras, prose_prefix, PROSE_CORE_SHARE)

    candidates = paras.candidates
    prev_score, next_score, prev_max3, next_max3, sandwich = [], [], [], [], []
    parent_good, grandparent_good, parent_log_good, record_good = [], [], [], []
    for i, chain, record in zip(candidates, paras.chains, paras.records):
        before = first[max(0, i - 3) : i]
        after = first[i + 1 : i + 4]
        prev_max = max(before, default=0.0)
        next_max = max(after, default=0.0)
        own_good, own_chars = good[i], chars[i]
        shares = []
        for lo, hi in chain[:2]:
            region_chars = char_prefix[hi] - char_prefix[lo] - own_chars
            shares.append((good_prefix[hi] - good_prefix[lo] - own_good) / region_chars if region_chars > 0 else 0.0)
        while len(shares) < 2:
            shares.append(0.0)
        parent_lo, parent_hi = chain[0] if chain else (0, n)
        record_lo, record_hi = record
        record_chars = char_prefix[record_hi] - char_prefix[record_lo] - own_chars
        prev_score.append(before[-1] if before else 0.0)
        next_score.append(after[0] if after else 0.0)
        prev_max3.append(prev_max)
        next_max3.append(next_max)
        sandwich.append(min(prev_max, next_max))
        parent_good.append(shares[0])
        grandparent_good.append(shares[1])
        parent_log_good.append(math.log1p(good_prefix[parent_hi] - good_prefix[parent_lo] - own_good))
        record_good.append(
            (good_prefix[record_hi] - good_prefix[record_lo] - own_good) / record_chars
            if record_chars > 0
            else first[i]
        )
    columns = {
        "first_pass": [first[i] for i in candidates],
        "prev_score": prev_score,
        "next_score": next_score,
        "prev_max3": prev_max3,
        "next_max3": next_max3,
        "sandwich": sandwich,
        "parent_good": parent_good,
        "grandparent_good": grandparent_good,
        "parent_log_good": parent_log_good,
        "in_best_container": [container_lo <= i < container_hi for i in candidates],
        "best_container_share": [container_share] * len(candidates),
        "in_best_run": [run_lo <= i < run_hi for i in candidates],
        "run_distance": [
            math.log1p(run_lo - i if i < run_lo else i - run_hi + 1 if i >= run_hi else 0) for i in candidates
        ],
        "good_before_share": [good_prefix[i] / total_good for i in candidates],
        "good_after_share": [(good_prefix[-1] - good_prefix[i + 1]) / total_good for i in candidates],
        "record_good": record_good,
        "in_prose_core": [core_lo <= i < core_hi for i in candidates],
        "region_prose_share": [
            (prose_prefix[chain[1][1]] - prose_prefix[chain[1][0]]) / total_prose if len(chain) > 1 else 0.0
            for chain in paras.chains
        ],
        **groups.group_features(
            paras.groups,
            candidates,
            np.array([first[i] for i in candidates]),
            np.array(good_prefix),
            np.array(char_prefix, float),
            np.array(prose_prefix),
            (core_lo, core_hi),
            (container_lo, container_hi),
        ),
        **_anchor_features(paras, prose_prefix),
    }
    return Table.of(columns, FEATURES, len(candidates), "context features")


def anchor_region(paras: Paragraphs, prose_prefix: list[float]) -> tuple[int, int]:
    """The paragraph range of the title anchor's nearest ancestor holding ``ANCHOR_PROSE`` of prose
    besides the anchor itself (``(0, 0)``: no anchor, or no such ancestor short of the page)."""
    anchor = paras.anchor
    if anchor < 0:
        return 0, 0
    own = prose_prefix[anchor + 1] - prose_prefix[anchor]
    for lo, hi in paras.chains[bisect_left(paras.candidates, anchor)]:
        if prose_prefix[hi] - prose_prefix[lo] - own >= ANCHOR_PROSE:
            return lo, hi
    return 0, 0


def _anchor_features(paras: Paragraphs, prose_prefix: list[float]) -> dict[str, np.ndarray]:
    index = np.array(paras.candidates, np.int64)
    lo, hi = anchor_region(paras, prose_prefix)
    return {
        "title_heading": (index == paras.anchor).astype(float),
        "in_anchor_region": ((index >= lo) & (index < hi)).astype(float),
    }


def _best_run(gain: list[float]) -> tuple[int, int]:
    """The run of paragraphs with the largest sum of ``gain`` (Kadane), as a half-open range."""
    best, best_range = 0.0, (0, 0)
    current, start = 0.0, 0
    for i, value in enumerate(gain):
        if current <= 0:
            current, start = value, i
        else:
            current += value
        if current > best:
            best, best_range = current, (start, i + 1)
    return best_range
