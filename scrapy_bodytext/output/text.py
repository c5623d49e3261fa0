"""The plain-text writer, one for every method: headings, paragraphs and list items become lines,
table cells are joined by tabs, inline content by single spaces.

Two text nodes with only inline tags between them and no whitespace (``<strong>Privacy
focused</strong><span class="block">Notion</span>``) are joined by a space: such elements are
mostly laid out apart by style sheets (menu items, labels, teaser parts). They are joined without
one where the page reads on in the same word or number (a lowercase letter after a letter or digit:
a drop cap ``<b>T</b>he``, ``33<sup>rd</sup>``; a digit after a digit), before closing punctuation,
after an opening bracket, at straight quotes that close or open the text beside them (``"<i>Dune</i>"``, an
apostrophe after a word: ``<i>Times</i>'s``), and between characters of scripts written without spaces (CJK, Thai) --
except where the two are the texts of two different links (a tag list, page numbers): separate items.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..page.tokens import UNSPACED_RANGES

if TYPE_CHECKING:
    from ..page.document import Document

#: the renderer's own marks between texts: a line break and a table cell break
LINE, CELL = "\x00", "\x01"
_MARKS = ("", CELL, LINE)
_CLOSING = frozenset(",.;:!?)]}%»”’…/-–")
_OPENING = frozenset("([{«“‘¿¡/-–")
_UNSPACED = re.compile(f"[{UNSPACED_RANGES}]")
_STRAIGHT_QUOTES = frozenset("\"'")


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
    if first in _STRAIGHT_QUOTES and (last.isalnum() or not after[1:2].isalnum()):  # a closing quote, an apostrophe
        return ""
    if last in _STRAIGHT_QUOTES and not before[-2:-1].isalnum():  # an opening quote
        return ""
    if (last.isalnum() and first.islower()) or (last.isdigit() and first.isdigit()):
        return ""
    if _UNSPACED.match(last) and _UNSPACED.match(first):
        return ""
    return " "


def joint(doc: Document, slot: int) -> str:
    """What goes between slot ``slot - 1`` and ``slot`` when both are written: ``LINE``, ``CELL``, a
    space or nothing."""
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


def render_slots(doc: Document, slots: Iterable[int]) -> str:
    """The plain text of an ordered selection of slot indices: one line per paragraph, heading, list
    item or table row (cells joined by tabs); a gap in the selection ends the line."""
    texts = clean_texts(doc)
    parts: list[str] = []
    append = parts.append
    previous = -2
    for slot in slots:
        append(joint(doc, slot) if slot == previous + 1 else LINE)
        append(texts[slot])
        previous = slot
    return _finish("".join(parts))


def element_slots(doc: Document, elements: Iterable[int]) -> list[int]:
    """The text slots inside the subtrees of ``elements``, ascending (nested subtrees counted once)."""
    slots: list[int] = []
    last_end = -1
    for element in sorted(elements):
        start, end = doc.slot_starts[element], doc.slot_ends[element]
        if start < last_end:  # nested inside the previous subtree
            continue
        slots.extend(range(start, end))
        last_end = end
    return slots


def clean_texts(doc: Document) -> list[str]:
    """The page's texts without the characters this module uses as marks (a page may hold them:
    control characters are rare but legal text); checked once per page."""
    key = (__name__, "texts")
    texts = doc.memo.get(key)
    if texts is None:
        texts = doc.texts
        joined = "".join(texts)
        if LINE in joined or CELL in joined:
            texts = [text.replace(LINE, "").replace(CELL, "") for text in texts]
        doc.memo[key] = texts
    return texts


def _finish(joined: str) -> str:
    lines = []
    for line in joined.split(LINE):
        if CELL in line:
            cells = [" ".join(cell.split()) for cell in line.split(CELL)]
            line = "\t".join(cell for cell in cells if cell)
        else:
            line = " ".join(line.split())
        if line:
            lines.append(line)
    return "\n".join(lines)
