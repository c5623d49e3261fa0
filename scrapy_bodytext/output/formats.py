"""Writing a method's selection in the output format asked for: plain text (``text``), Markdown
(``markdown``) or cleaned HTML. The last two share the walk that gives the selection its structure
(``structure.build``); the format changes how the selected text is written, never what is selected.

The HTML is one ``<article>`` element holding only structural and inline-formatting tags (``p``,
``h1``-``h6``, ``ul``/``ol``/``li``, ``dl``/``dt``/``dd``, table parts, ``blockquote``, ``pre``,
``code``, ``em``/``strong``/``b``/``i``/``u``/``s``/``sub``/``sup``/``br``, ``figure``/``figcaption``
for picture captions written inline and, when links are asked
for, ``a`` with an absolute ``href``), no other attribute than ``href`` and a cell's ``colspan`` /
``rowspan``; it is well-formed XML as well as HTML.
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from ..page.document import Document
from .markdown import write_markdown
from .structure import build
from .text import clean_texts, render_slots

#: the ways main text can be written
OUTPUT_FORMATS = ("text", "markdown", "html")


def write_selection(
    doc: Document,
    slots: Sequence[int],
    output_format: str = "text",
    *,
    links: bool = False,
    captions: Sequence[int] = (),
) -> str:
    """The selected slots of ``doc`` written as ``output_format`` ("" when they show no text);
    ``captions``, slots among them that are picture captions, are written as figure captions in
    Markdown and HTML (lines where they stand in plain text)."""
    if output_format == "text":
        return render_slots(doc, slots)
    if output_format not in OUTPUT_FORMATS:
        raise ValueError(f"unknown output format {output_format!r}; choose one of: {', '.join(OUTPUT_FORMATS)}")
    if not shows_text(doc, slots):
        return ""
    tree = build(doc, slots, links=links, captions=captions)
    return write_markdown(tree) if output_format == "markdown" else write_html(tree)


def shows_text(doc: Document, slots: Sequence[int]) -> bool:
    """Whether the selection has any text to show (the plain text of it is not empty)."""
    texts = clean_texts(doc)
    return any(texts[slot] and not texts[slot].isspace() for slot in slots)


def write_html(tree: etree._Element) -> str:
    """The markup of an ``<article>`` tree."""
    return etree.tostring(tree, encoding="unicode")
