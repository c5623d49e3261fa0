"""Region P (docs/methods.md#region-p): the P value of any extracted region, so that every method's
article probability means the same thing.

    P(R) = (l_t / l_s) · (l_vt / L_VT)

l_t: text characters of R, l_s: l_t plus the canonical markup length of the tags inside R, l_vt: l_t
minus anchor text in R, L_VT: non-anchor text characters of the whole page.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from ..page.document import Document


def region_p(text_chars: int, link_chars: int, markup_chars: int, page_valid_chars: int) -> float:
    """The formula itself; 0 where the region or the page has no non-link text."""
    valid = text_chars - link_chars
    if text_chars <= 0 or valid <= 0 or page_valid_chars <= 0:
        return 0.0
    return min(1.0, (text_chars / (text_chars + markup_chars)) * (valid / page_valid_chars))


def page_valid_chars(doc: Document) -> int:
    return doc.total_chars - doc.total_link_chars


def element_region_p(doc: Document, element: int) -> float:
    """Region P of one element's subtree (its own tags included)."""
    markup = doc.prefix("markup")
    return region_p(
        doc.subtree_sum("chars", element),
        doc.subtree_sum("link_chars", element),
        markup[doc.ends[element]] - markup[element],
        page_valid_chars(doc),
    )


def slot_ranges_region_p(doc: Document, ranges: Iterable[tuple[int, int]]) -> float:
    """Region P of a selection given as half-open slot ranges (token spans, line sets, ...).

    The markup inside a range is that of the elements whose start tag lies between its first and
    last slot (start and end tag counted together, canonical lengths).
    """
    chars = doc.prefix("chars")
    links = doc.prefix("link_chars")
    markup = doc.prefix("markup")
    starts = doc.slot_starts
    text = link = tags = 0
    for first, end in ranges:
        if first >= end:
            continue
        text += chars[end] - chars[first]
        link += links[end] - links[first]
        low = bisect_right(starts, first)  # elements starting after slot `first`
        high = bisect_left(starts, end)  # ... and before slot `end`
        if high > low:
            tags += markup[high] - markup[low]
    return region_p(text, link, tags, page_valid_chars(doc))
