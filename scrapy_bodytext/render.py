"""One text renderer for every method: headings, paragraphs and list items become lines, table cells
are joined by tabs, inline content by single spaces.

Two text nodes with only inline tags between them and no whitespace (``<strong>Privacy
focused</strong><span class="block">Notion</span>``) are joined by a space: such elements are
mostly laid out apart by style sheets (menu items, labels, teaser parts). They are joined without
one where the page reads on in the same word or number (a lowercase letter after a letter or digit:
a drop cap ``<b>T</b>he``, ``33<sup>rd</sup>``; a digit after a digit), before closing punctuation,
after an opening bracket, and between characters of scripts written without spaces (CJK, Thai) --
except where the two are the texts of two different links (a tag list, page numbers): separate items.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .tokens import UNSPACED_RANGES

if TYPE_CHECKING:
    from .document import Document

#: the renderer's own marks between texts: a line break and a table cell break
_LINE, _CELL = "\x00", "\x01"
_MARKS = ("", _CELL, _LINE)
_CLOSING = frozenset(",.;:!?)]}%»”’…/-–")
_OPENING = frozenset("([{«“‘¿¡/-–")
_UNSPACED = re.compile(f"[{UNSPACED_RANGES}]")


def inline_joint(before: str, after: str, separate_items: bool = False) -> str:
    """What goes between two text nodes that only inline tags separate: ``" "`` or ``""``.
    ``separate_items``: the two are the texts of different links."""
    if not before or not after or before[-1].isspace() or after[0].isspace():
        return ""
    if separate_items:
        return " "
    last, first = before[-1], after[0]
    if first in _CLOSING or last in _OPENING:
        return ""
    if (last.isalnum() and first.islower()) or (last.isdigit() and first.isdigit()):
        return ""
    if _UNSPACED.match(last) and _UNSPACED.match(first):
        return ""
    return " "


def _joint(doc: Document, slot: int) -> str:
    """The mark or space between slot ``slot - 1`` and ``slot`` when both are rendered."""
    kind = doc.breaks[slot]
    if kind:
        return _MARKS[kind]
    links = doc.links
    two_links = links[slot - 1] and links[slot] and _link_of(doc, slot - 1) != _link_of(doc, slot)
    return inline_joint(doc.texts[slot - 1], doc.texts[slot], two_links)


def _link_of(doc: Document, slot: int) -> int:
    """The ``<a>`` element a slot's text is in (the nearest one)."""
    element = doc.owners[slot]
    tags, parents = doc.tags, doc.parents
    while element >= 0 and tags[element] != "a":
        element = parents[element]
    return element


def render_ranges(doc: Document, ranges: Iterable[tuple[int, int]]) -> str:
    """Render the slots in the half-open ``(start, end)`` ranges, given in document order."""
    texts = _texts(doc)
    parts: list[str] = []
    append = parts.append
    previous_end = None
    for start, end in ranges:
        if start >= end:
            continue
        append(_joint(doc, start) if start == previous_end else _LINE)  # a gap ends the line
        append(texts[start])
        for slot in range(start + 1, end):
            append(_joint(doc, slot))
            append(texts[slot])
        previous_end = end
    return _finish("".join(parts))


def render_slots(doc: Document, slots: Iterable[int]) -> str:
    """Render an ordered selection of slot indices (gaps end lines)."""
    texts = _texts(doc)
    parts: list[str] = []
    append = parts.append
    previous = -2
    for slot in slots:
        append(_joint(doc, slot) if slot == previous + 1 else _LINE)
        append(texts[slot])
        previous = slot
    return _finish("".join(parts))


def render_elements(doc: Document, elements: Iterable[int]) -> str:
    """Render the subtrees of ``elements`` (document order; nested ones are merged)."""
    ranges: list[tuple[int, int]] = []
    last_end = -1
    for element in sorted(elements):
        start, end = doc.slot_starts[element], doc.slot_ends[element]
        if start < last_end:  # nested inside the previous subtree
            continue
        ranges.append((start, end))
        last_end = end
    return render_ranges(doc, ranges)


def _texts(doc: Document) -> list[str]:
    """The page's texts without the characters this module uses as marks (a page may hold them:
    control characters are rare but legal text); checked once per page."""
    key = (__name__, "texts")
    texts = doc.memo.get(key)
    if texts is None:
        texts = doc.texts
        joined = "".join(texts)
        if _LINE in joined or _CELL in joined:
            texts = [text.replace(_LINE, "").replace(_CELL, "") for text in texts]
        doc.memo[key] = texts
    return texts


def _finish(joined: str) -> str:
    lines = []
    for line in joined.split(_LINE):
        if _CELL in line:
            cells = [" ".join(cell.split()) for cell in line.split(_CELL)]
            line = "\t".join(cell for cell in cells if cell)
        else:
            line = " ".join(line.split())
        if line:
            lines.append(line)
    return "\n".join(lines)
