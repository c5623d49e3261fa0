"""Regions made of repeated parts: groups of same-shaped siblings read as one region.

Templates split an article's body into parts that repeat: one wrapper per paragraph, one section per
heading and its paragraphs, one entry per live-blog update, one card per product of a roundup, one
item per list entry, one row per table line. Each part alone is small and holds little of the page's
prose, so a paragraph measured by its own parent looks like a stray line; the parts together are the
article. A *group* is the run of siblings with the same tag and the same leading class word (digits
left out: ``section-2`` is shaped like ``section-3``) under one parent, from the first to the last;
a paragraph's group is the widest such run among its nearest ancestors (``LEVELS``), and the second
pass weighs the paragraph by its group's standing (``context``).

Computed per page in bulk over the document's element columns (no walk per paragraph).
"""

from __future__ import annotations

import re

import numpy as np

from ...page.document import Document

#: ancestor levels above a paragraph's block searched for a group
LEVELS = 4
#: a group has at least this many same-shaped siblings
MEMBERS = 2
#: tags that are never the members of a group (the page itself)
_NOT_MEMBERS = frozenset(("html", "body", "head"))
_DIGITS_RE = re.compile(r"\d+")


#: class string -> its leading word without digits, shared across pages (sites repeat their
#: templates), bounded
_WORDS: dict[str, str] = {}
_MAX_WORDS = 50_000


def shapes(doc: Document) -> np.ndarray:
    """Per element: an id of its shape, its tag and the first word of its class (digits left out)."""
    words = _WORDS
    if len(words) > _MAX_WORDS:  # bounded: a long crawl meets endless class strings
        words.clear()
    ids: dict[tuple[str, str], int] = {}
    found = []
    for tag, el in zip(doc.tags, doc.elements):
        names = el.get("class")
        if names:
            word = words.get(names)
            if word is None:
                word = words[names] = _DIGITS_RE.sub("", names.split(None, 1)[0]) if names.strip() else ""
        else:
            word = ""
        found.append(ids.setdefault((tag, word), len(ids)))
    return np.array(found, np.int64)


def group_ranges(doc: Document, starts: list[int], blocks: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each of ``blocks`` (the block element of a candidate paragraph): the paragraph range
    ``[lo, hi)`` of its group and the number of the group's members (0 and an empty range when
    none of its nearest ``LEVELS`` ancestors-or-self repeats; ``starts``: the paragraphs' first slots)."""
    m = len(blocks)
    lo, hi, members = np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64)
    n = len(doc.tags)
    if not m or not n:
        return lo, hi, members
    parents = np.array(doc.parents, np.int64)
    shape = shapes(doc)
    key = (parents + 1) * (int(shape.max()) + 1) + shape
    _, group, counts = np.unique(key, return_inverse=True, return_counts=True)
    group = group.reshape(-1)
    slot_starts, slot_ends = np.array(doc.slot_starts, np.int64), np.array(doc.slot_ends, np.int64)
    first_slot = np.full(len(counts), np.iinfo(np.int64).max)
    last_slot = np.zeros(len(counts), np.int64)
    np.minimum.at(first_slot, group, slot_starts)
    np.maximum.at(last_slot, group, slot_ends)
    eligible = counts[group] >= MEMBERS
    eligible &= np.array([tag not in _NOT_MEMBERS for tag in doc.tags])
    eligible &= parents >= 0

    span_lo, span_hi = np.zeros(m, np.int64), np.zeros(m, np.int64)
    chosen = np.full(m, -1, np.int64)
    element = np.array(blocks, np.int64)
    alive = element >= 0
    for _ in range(LEVELS):
        here = np.where(alive, element, 0)
        g = group[here]
        take = alive & eligible[here]
        width = last_slot[g] - first_slot[g]
        wider = take & (width > span_hi - span_lo)
        chosen = np.where(wider, g, chosen)
        span_lo = np.where(wider, first_slot[g], span_lo)
        span_hi = np.where(wider, last_slot[g], span_hi)
        element = np.where(alive, parents[here], -1)
        alive = element >= 0
    para_starts = np.array(starts, np.int64)
    found = chosen >= 0
    lo = np.where(found, np.searchsorted(para_starts, span_lo, "left"), 0)
    hi = np.where(found, np.searchsorted(para_starts, span_hi, "left"), 0)
    members = np.where(found, counts[np.where(found, chosen, 0)], 0)
    return lo, hi, members


#: the second pass's features of a paragraph's group (``group_features``)
FEATURES = ("group_good", "group_prose_share", "group_in_core", "group_in_container", "group_log_members")


def group_features(
    ranges: tuple[np.ndarray, np.ndarray, np.ndarray],
    candidates: list[int],
    first: np.ndarray,
    good_prefix: np.ndarray,
    char_prefix: np.ndarray,
    prose_prefix: np.ndarray,
    core: tuple[int, int],
    container: tuple[int, int],
) -> dict[str, np.ndarray]:
    """``FEATURES`` of the ``candidates`` (paragraph indices, ascending) whose groups ``group_ranges``
    gave as ``ranges`` (range and members per candidate): the first-pass good share of the rest of the
    paragraph's group (its own score when it is in none), the group's share of the page's prose,
    whether the group overlaps the prose core and the best container, and the log of its members.
    ``first`` holds the first-pass scores of the candidates; the prefixes run over all paragraphs."""
    lo, hi, members = ranges
    index = np.array(candidates, np.int64)
    found = hi > lo
    lo = np.where(found, lo, index)
    hi = np.where(found, hi, index + 1)
    own_chars = char_prefix[index + 1] - char_prefix[index]
    own_good = good_prefix[index + 1] - good_prefix[index]
    rest_chars = char_prefix[hi] - char_prefix[lo] - own_chars
    rest_good = good_prefix[hi] - good_prefix[lo] - own_good
    good = np.where(rest_chars > 0, rest_good / np.maximum(rest_chars, 1), first)
    total_prose = prose_prefix[-1] or 1.0
    return {
        "group_good": good,
        "group_prose_share": (prose_prefix[hi] - prose_prefix[lo]) / total_prose,
        "group_in_core": ((lo < core[1]) & (hi > core[0])).astype(float),
        "group_in_container": ((lo < container[1]) & (hi > container[0])).astype(float),
        "group_log_members": np.log1p(members),
    }
