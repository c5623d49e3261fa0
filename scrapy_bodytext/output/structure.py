"""The shape of the main text, for the Markdown and HTML writers: the selected text slots put back into
the page elements that shape them, as a small clean tree under one ``<article>``.

The walk goes over the selected slots in order. Each slot's text lies inside a path of page elements;
kept from it are structural blocks (paragraphs, headings, lists, definition lists, tables, block
quotes, preformatted text) and inline formatting (emphasis, code, sub- and superscript, and links
when asked for), each only where its parent allows it (a list item in a list, a cell in a row, no
block inside a paragraph or heading), so the tree is always one the writers know. Other elements are
left out and their text kept. Where the page breaks the line and no kept element explains it (a
``div``, a ``br``, a gap in the selection), a new paragraph starts -- or a new list item, row or
cell, whatever the enclosing element holds -- or a ``<br>`` is written inside a paragraph-like
element. Texts are joined as in the plain text (``text.joint``), so every format reads the same
words; only a complete ``<pre>`` is copied verbatim, with its line breaks and indentation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urljoin

from lxml import etree

from ..page.document import Document, is_hidden, remove_keeping_tail
from .text import CELL, LINE, clean_texts, joint

HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
#: inline elements kept (``a`` only with a usable ``href`` when links are asked for)
INLINE = frozenset(("em", "strong", "b", "i", "u", "s", "sub", "sup", "code", "a"))
#: page tags written under another kept name
RENAMED = {"strike": "s", "del": "s", "tt": "code", "kbd": "code", "samp": "code"}
#: blocks that hold other blocks
_FLOW = frozenset(("p", "ul", "ol", "dl", "table", "blockquote", "pre", *HEADINGS))
#: the blocks each kept element may hold (blocks absent here hold inline content only)
CHILDREN: dict[str, frozenset[str]] = {
    "article": _FLOW,
    "blockquote": _FLOW,
    "li": _FLOW,
    "dd": _FLOW,
    "td": _FLOW,
    "th": _FLOW,
    "ul": frozenset(("li",)),
    "ol": frozenset(("li",)),
    "dl": frozenset(("dt", "dd")),
    "table": frozenset(("caption", "thead", "tbody", "tfoot", "tr")),
    "thead": frozenset(("tr",)),
    "tbody": frozenset(("tr",)),
    "tfoot": frozenset(("tr",)),
    "tr": frozenset(("td", "th")),
}
#: every block kept
BLOCKS = frozenset((*_FLOW, *(tag for allowed in CHILDREN.values() for tag in allowed)))
#: elements that hold no text of their own: loose text in them goes into a new element of this kind
WRAPPERS = {
    "article": "p",
    "blockquote": "p",
    "ul": "li",
    "ol": "li",
    "dl": "dd",
    "table": "tr",
    "thead": "tr",
    "tbody": "tr",
    "tfoot": "tr",
    "tr": "td",
}
#: link schemes that are no place to go
_UNSAFE_SCHEMES = frozenset(("javascript", "vbscript", "data"))
#: characters XML (and so the HTML output) cannot hold
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_SPACES = re.compile(r"\s+")
_MAX_SPAN = 1000
#: elements kept without text
_KEPT_EMPTY = frozenset(("br", "td", "th", "tr", "thead", "tbody", "tfoot"))
_ROOT, _AUTO, _FIGURE = -1, -2, -3  # stack keys of the <article>, of elements the walk adds, of a caption's figure
#: kept elements that may hold a ``<figure>`` the walk adds for a picture caption
_HOLDS_FIGURES = frozenset(name for name, allowed in CHILDREN.items() if allowed is _FLOW)


def build(doc: Document, slots: Sequence[int], *, links: bool = False, captions: Sequence[int] = ()) -> etree._Element:
    """The ``<article>`` tree of the selected slots (ascending slot indices); the slots among them
    in ``captions`` are picture captions, each line written as ``<figure><figcaption>`` where it
    stands (its lines apart by ``<br>``)."""
    if any(later <= earlier for earlier, later in zip(slots, slots[1:])):
        slots = sorted(set(slots))
    walk = _Walk(doc, links, frozenset(captions))
    walk.run(slots)
    root = walk.root
    _tidy(root)
    return root


def text_of(element: etree._Element) -> str:
    """All text inside ``element`` (its tail left out)."""
    return "".join(element.itertext())


class _Entry:
    """One open element of the output: the page element it stands for (or ``_ROOT``/``_AUTO``)."""

    __slots__ = ("key", "out", "name")

    def __init__(self, key: int, out: etree._Element):
        self.key, self.out, self.name = key, out, out.tag


class _Walk:
    def __init__(self, doc: Document, links: bool, captions: frozenset[int] = frozenset()):
        self.doc = doc
        self.links = links
        self.captions = captions
        self.root = etree.Element("article")
        self.stack = [_Entry(_ROOT, self.root)]
        self.paths: dict[int, tuple[int, ...]] = {}
        self.hrefs: dict[int, str | None] = {}

    def name(self, element: int) -> str:
        """The name a page element is written under."""
        tag = self.doc.tags[element]
        return RENAMED.get(tag, tag)

    # ------------------------------------------------------------------ which page elements are kept
    def path(self, element: int) -> tuple[int, ...]:
        """The kept elements around ``element``'s content, outermost first (memoised per element)."""
        paths, parents = self.paths, self.doc.parents
        climbed = []
        while element >= 0 and element not in paths:
            climbed.append(element)
            element = parents[element]
        path = paths[element] if element >= 0 else ()
        for element in reversed(climbed):
            path = paths[element] = self._extend(path, element)
        return path

    def _extend(self, path: tuple[int, ...], element: int) -> tuple[int, ...]:
        name, name_of = self.name(element), self.name
        if name in INLINE:
            if path and name_of(path[-1]) == "pre":  # a <pre> keeps its text only
                return path
            if name == "a" and self.href(element) is None:
                return path
            return path + (element,)
        if name in BLOCKS:
            base = path
            while base and name_of(base[-1]) in INLINE:  # a block inside an inline element leaves it
                base = base[:-1]
            parent = name_of(base[-1]) if base else "article"
            if name in CHILDREN.get(parent, ()):
                return base + (element,)
        return path

    def href(self, element: int) -> str | None:
        """The absolute link target of an ``<a>`` when links are written (None: no usable one)."""
        if not self.links:
            return None
        if element not in self.hrefs:
            self.hrefs[element] = link_target(self.doc.elements[element].get("href"), self.doc.url)
        return self.hrefs[element]

    # ------------------------------------------------------------------ the walk
    def run(self, slots: Sequence[int]) -> None:
        doc, texts, owners = self.doc, xml_texts(self.doc), self.doc.owners
        i, previous, open_path = 0, None, None
        while i < len(slots):
            slot = slots[i]
            between = "" if previous is None else joint(doc, slot) if slot == previous + 1 else LINE
            if slot in self.captions:
                self._caption(texts[slot], between)
                previous, open_path = slot, None
                i += 1
                continue
            path = self.path(owners[slot])
            if path is open_path:  # the same elements as the previous text, all open
                explained, matched = False, len(path)
            else:
                cut, matched = self._common(path)
                explained = any(entry.name not in INLINE for entry in self.stack[cut:]) or any(
                    self.name(element) not in INLINE for element in path[matched:]
                )
                del self.stack[cut:]
            if between in (LINE, CELL):
                if not explained:  # a break no kept element makes: it may close some, to open again
                    self._line_break()
                    matched = self._common(path)[1]
            elif between:
                self._add_text(between)
            for element in path[matched:]:
                self._open(element)
            open_path = path
            top = self.stack[-1]
            if top.name == "pre" and top.key >= 0 and self._whole(slots, i, top.key):
                top.out.text = verbatim_text(doc.elements[top.key])
                previous = doc.slot_ends[top.key] - 1
                i += previous - slot + 1
                continue
            self._add_text(texts[slot])
            previous = slot
            i += 1

    def _caption(self, text: str, between: str) -> None:
        """A picture caption's text: in the open ``<figcaption>`` (a new line of it after a line
        break), else in a new ``<figure>`` beside the blocks around it."""
        stack = self.stack
        if stack[-1].key == _FIGURE:
            if between in (LINE, CELL):
                etree.SubElement(stack[-1].out, "br")
            elif between:
                _append(stack[-1].out, between)
        else:
            while len(stack) > 1 and stack[-1].name not in _HOLDS_FIGURES:
                stack.pop()
            figure = etree.SubElement(stack[-1].out, "figure")
            stack.append(_Entry(_FIGURE, figure))
            stack.append(_Entry(_FIGURE, etree.SubElement(figure, "figcaption")))
        _append(stack[-1].out, _SPACES.sub(" ", text))

    def _common(self, path: tuple[int, ...]) -> tuple[int, int]:
        """How many stack entries stay open for ``path``, and how many of its elements they hold."""
        matched = 0
        for depth in range(1, len(self.stack)):
            key = self.stack[depth].key
            if key == _AUTO:
                continue
            if matched < len(path) and key == path[matched]:
                matched += 1
                continue
            return depth, matched
        return len(self.stack), matched

    def _line_break(self) -> None:
        """A line break no kept element explains: a new wrapper element, or a ``<br>``."""
        stack = self.stack
        for depth in range(len(stack) - 1, 0, -1):
            entry = stack[depth]
            if entry.name in INLINE:
                continue
            if entry.key == _AUTO:
                while stack[depth - 1].key == _AUTO:  # a row the walk added holds its cell
                    depth -= 1
                del stack[depth:]
            elif entry.name == "pre":
                _append(stack[-1].out, "\n")
            elif entry.name not in WRAPPERS:
                etree.SubElement(stack[-1].out, "br")
            return

    def _open(self, element: int) -> None:
        name, stack = self.name(element), self.stack
        if name in INLINE:
            self._enter_text()
        else:
            while stack[-1].key == _AUTO:  # the block goes where the page has it, beside loose text
                stack.pop()
        out = etree.SubElement(stack[-1].out, name)
        if name == "a":
            out.set("href", self.href(element))
        elif name in ("td", "th"):
            for attribute in ("colspan", "rowspan"):
                value = self.doc.elements[element].get(attribute, "").strip()
                if value.isdigit() and 1 < int(value) <= _MAX_SPAN:
                    out.set(attribute, str(int(value)))
        stack.append(_Entry(element, out))

    def _enter_text(self) -> None:
        """Open the elements loose text needs where the top one holds no text (a ``<p>`` in the
        article, an ``<li>`` in a list, ...)."""
        stack = self.stack
        while stack[-1].name in WRAPPERS:
            stack.append(_Entry(_AUTO, etree.SubElement(stack[-1].out, WRAPPERS[stack[-1].name])))

    def _add_text(self, text: str) -> None:
        self._enter_text()
        top = self.stack[-1]
        if top.name != "pre":
            text = _SPACES.sub(" ", text)
        _append(top.out, text)

    def _whole(self, slots: Sequence[int], i: int, element: int) -> bool:
        """Whether the selection, from its ``i``-th slot on, holds all of ``element``'s slots."""
        start, end = self.doc.slot_starts[element], self.doc.slot_ends[element]
        last = i + end - start - 1
        return slots[i] == start and last < len(slots) and slots[last] == end - 1


def xml_texts(doc: Document) -> list[str]:
    """The page's texts (``text.clean_texts``) without the characters XML cannot hold; checked
    once per page."""
    key = (__name__, "texts")
    texts = doc.memo.get(key)
    if texts is None:
        texts = clean_texts(doc)
        if _NOT_XML.search("".join(texts)):
            texts = [xml_safe(text) for text in texts]
        doc.memo[key] = texts
    return texts


def xml_safe(text: str) -> str:
    """``text`` without the characters XML cannot hold (the control characters that are spaces
    become spaces, so that words stay apart)."""
    return _NOT_XML.sub(lambda found: " " if found[0].isspace() else "", text)


def _append(out: etree._Element, text: str) -> None:
    """Add ``text`` after the current content of ``out`` (one space where both have one)."""
    holder, attribute = (out[-1], "tail") if len(out) else (out, "text")
    current = getattr(holder, attribute) or ""
    if text[:1] == " " and current[-1:] == " ":
        text = text[1:]
    setattr(holder, attribute, current + text)


def link_target(href: str | None, base: str | None) -> str | None:
    """``href`` made absolute against ``base`` (when known); None for no target, an in-page script
    (``javascript:``, ``vbscript:``, ``data:``) or a malformed one."""
    if not href:
        return None
    href = _NOT_XML.sub("", href.strip(" \t\n\r\f").replace("\t", "").replace("\n", "").replace("\r", ""))
    if not href or href == "#":
        return None
    scheme, colon, _ = href.partition(":")
    if colon and scheme.strip().lower() in _UNSAFE_SCHEMES:
        return None
    if base:
        try:
            href = urljoin(base, href)
        except ValueError:  # e.g. a malformed IPv6 host
            return None
    return href


def verbatim_text(pre: etree._Element) -> str:
    """The text of a ``<pre>`` as the page lays it out (visible elements only; ``<br>`` a new line)."""
    parts: list[str] = []
    hidden: set = set()
    walker = etree.iterwalk(pre, events=("start", "end"))
    for event, el in walker:
        if event == "start":
            if el is not pre and is_hidden(el):
                walker.skip_subtree()
                hidden.add(el)
            elif el.tag == "br":
                parts.append("\n")
            elif el.text and el not in hidden:
                parts.append(el.text)
        elif el is not pre and el.tail:
            parts.append(el.tail)
    text = xml_safe("".join(parts).replace("\r\n", "\n").replace("\r", "\n"))
    return text.strip("\n").rstrip()


# ---------------------------------------------------------------------------------------- tidying
def _tidy(root: etree._Element) -> None:
    """Trim the spaces at the ends of lines, drop line breaks at block edges and elements left
    empty, and lay blocks out one per line."""
    _hoist_spaces(root)
    _drop_empty(root)  # before the spaces are trimmed: a dropped element can bring two together
    edges = _Edges()
    _visit(root, edges)
    edges.block_edge()
    for el in edges.drop:
        remove_keeping_tail(el)
    _drop_empty(root)  # what held only line breaks at its edges
    for el in root.iter():
        if el.tag in WRAPPERS and el.tag != "tr" and len(el):
            el.text = "\n"
            for child in el:
                child.tail = "\n"
        elif el.text is None and len(el) == 0 and el.tag != "br":
            el.text = ""  # <td></td>, never <td/>: HTML parsers read the latter as an open tag


def _drop_empty(root: etree._Element) -> None:
    """Remove the elements without text (table cells and rows excepted: they keep the grid)."""
    for el in reversed(list(root.iter())):  # inner elements first
        if el is not root and el.tag not in _KEPT_EMPTY and len(el) == 0 and not (el.text or "").strip():
            remove_keeping_tail(el)


def _hoist_spaces(root: etree._Element) -> None:
    """Move spaces at the inner edges of inline elements out of them (``a<b> bold </b>b`` becomes
    ``a <b>bold</b> b``)."""
    for el in reversed(list(root.iter())):  # inner elements first
        if el.tag not in INLINE:
            continue
        if el.text and el.text[0] == " ":
            el.text = el.text.lstrip(" ")
            previous = el.getprevious()
            before, attribute = (previous, "tail") if previous is not None else (el.getparent(), "text")
            value = getattr(before, attribute) or ""
            if not value.endswith(" "):
                setattr(before, attribute, value + " ")
        last, attribute = (el[-1], "tail") if len(el) else (el, "text")
        value = getattr(last, attribute)
        if value and value[-1] == " ":
            setattr(last, attribute, value.rstrip(" "))
            if not (el.tail or "").startswith(" "):
                el.tail = " " + (el.tail or "")


class _Edges:
    """Text positions in reading order, trimmed where a line starts or ends."""

    def __init__(self) -> None:
        self.last: tuple[etree._Element, str] | None = None
        self.line_start = True
        self.breaks: list[etree._Element] = []  # <br>s waiting for text after them
        self.drop: list[etree._Element] = []

    def text(self, el: etree._Element, attribute: str) -> None:
        value = getattr(el, attribute)
        if not value:
            return
        if self.line_start:
            value = value.lstrip(" ")
        elif value[0] == " " and self._last_value().endswith(" "):
            value = value[1:]
        setattr(el, attribute, value)
        if value:
            self.last, self.line_start, self.breaks = (el, attribute), False, []

    def line_break(self, br: etree._Element) -> None:
        if self.line_start:
            self.drop.append(br)
            return
        self._trim_last()
        self.breaks.append(br)
        self.line_start = True

    def block_edge(self) -> None:
        self._trim_last()
        self.drop.extend(self.breaks)
        self.breaks, self.line_start = [], True

    def _last_value(self) -> str:
        return (getattr(*self.last) or "") if self.last else ""

    def _trim_last(self) -> None:
        if self.last is not None:
            el, attribute = self.last
            setattr(el, attribute, (getattr(el, attribute) or "").rstrip(" "))
            self.last = None


def _visit(el: etree._Element, edges: _Edges) -> None:
    if el.tag == "br":
        edges.line_break(el)
        return
    block = el.tag not in INLINE
    if block:
        edges.block_edge()
    if el.tag != "pre":
        edges.text(el, "text")
        for child in el:
            _visit(child, edges)
            edges.text(child, "tail")
    if block:
        edges.block_edge()
