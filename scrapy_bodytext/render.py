"""One text renderer for every method: headings, paragraphs and list items become lines, table cells
are joined by tabs, inline content by single spaces."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .document import Document

#: the renderer's own marks between texts: a line break and a table cell break
_LINE, _CELL = "\x00", "\x01"
_MARKS = ("", _CELL, _LINE)


def render_ranges(doc: Document, ranges: Iterable[tuple[int, int]]) -> str:
    """Render the slots in the half-open ``(start, end)`` ranges, given in document order."""
    texts, breaks = _texts(doc), doc.breaks
    parts: list[str] = []
    append = parts.append
    previous_end = None
    for start, end in ranges:
        if start >= end:
            continue
        append(_MARKS[breaks[start]] if start == previous_end else _LINE)  # a gap ends the line
        append(texts[start])
        for slot in range(start + 1, end):
            append(_MARKS[breaks[slot]])
            append(texts[slot])
        previous_end = end
    return _finish("".join(parts))


def render_slots(doc: Document, slots: Iterable[int]) -> str:
    """Render an ordered selection of slot indices (gaps end lines)."""
    texts, breaks = _texts(doc), doc.breaks
    parts: list[str] = []
    append = parts.append
    previous = -2
    for slot in slots:
        append(_MARKS[breaks[slot]] if slot == previous + 1 else _LINE)
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
