"""Parse and clean a page once, then flatten it into columns every extractor shares.

One ``iterwalk`` over the cleaned ``<body>`` produces:

* element columns, in document (pre-)order: ``tags``, ``parents``, ``ends`` (exclusive end of the
  subtree in that order, so descendants of ``e`` are ``e+1 .. ends[e]-1``), ``slot_starts`` /
  ``slot_ends`` (the text slots inside the subtree), ``lines`` (source line of the start tag);
* slot columns, one per non-blank text node (``el.text`` or ``el.tail``) in document order: ``texts``,
  ``owners`` (element whose content holds the text), ``chars`` (length with whitespace collapsed),
  ``links`` (inside an ``<a>``), ``tags_before`` (tag tokens between the previous slot and this one),
  ``breaks`` (a block boundary precedes it: 0 none, 1 cell, 2 line) and ``slot_lines``.

Subtree sums (text, link text, markup) are then O(1) from prefix sums, so every method is linear.
"""

from __future__ import annotations

import time
from itertools import accumulate

from lxml import etree
from lxml.html import HTMLParser

from .tokens import count_tokens, normalized_length

#: removed with their content before anything is counted (ALGORITHMS.md §0.2) plus non-HTML islands
REMOVED_TAGS = ("script", "style", "noscript", "template", "svg", "math", "head")
#: elements that end a line of output text (ALGORITHMS.md §0.4)
BLOCK_TAGS = frozenset(
    "p div li ul ol dl dt dd h1 h2 h3 h4 h5 h6 br hr tr table thead tbody tfoot caption blockquote "
    "pre section article main aside header footer nav form fieldset legend figure figcaption address "
    "details summary center body html option select textarea dialog menu".split()
)
CELL_TAGS = frozenset(("td", "th"))
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr keygen basefont frame".split()
)
HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
LINK_TAGS = frozenset(("a",))

_HIDDEN_XPATH = etree.XPath(
    "//*[@hidden or contains(translate(@style, ' ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),"
    " 'display:none') or contains(translate(@style, ' ABCDEFGHIJKLMNOPQRSTUVWXYZ',"
    " 'abcdefghijklmnopqrstuvwxyz'), 'visibility:hidden')]"
)
_TIME_CHECK_EVERY = 2048


class LimitExceeded(Exception):
    """Raised inside the front end when a page passes a configured bound; carries a Reason value."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def make_parser() -> HTMLParser:
    # huge_tree stays off: libxml2 then caps nesting at 256 levels, which bounds deep pages for free
    return HTMLParser(
        recover=True, encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True,
        collect_ids=False, default_doctype=False, huge_tree=False,
    )


_PARSER = None


def parse_html(text: str) -> etree._Element | None:
    """Parse markup into an lxml tree (None when there is nothing to parse). Never raises for content."""
    global _PARSER
    if _PARSER is None:
        _PARSER = make_parser()
    if "\x00" in text or "\x01" in text:  # the renderer's line and cell marks
        text = text.replace("\x00", "").replace("\x01", "")
    if text.startswith("\ufeff"):
        text = text[1:]
    data = text.encode("utf-8", "replace")
    if not data.strip():
        return None
    try:
        return etree.fromstring(data, _PARSER)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def _tag_name(el) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    if tag[0] == "{":  # namespaced (inline SVG/MathML after recovery, XHTML)
        tag = tag.rpartition("}")[2]
    return tag.lower()


class Document:
    """A cleaned page and its flattened columns; built once, shared by the extractor that runs."""

    def __init__(self, root, *, url: str | None = None, encoding: str | None = None,
                 max_nodes: int = 200_000, deadline: float | None = None):
        self.url = url
        self.encoding = encoding
        self.deadline = deadline
        self.root = root
        self.title = " ".join((root.findtext(".//title") or "").split())
        self.lang = (root.get("lang") or root.get("xml:lang") or "").strip().lower() or None
        self.meta_lang = None
        for meta in root.iterfind(".//meta[@http-equiv]"):
            if (meta.get("http-equiv") or "").lower() == "content-language":
                self.meta_lang = (meta.get("content") or "").strip().lower() or None
        body = root.find("body")
        if body is None:
            body = root
        _clean(root)
        self.body = body
        self._flatten(body, max_nodes)
        self._prefix: dict[str, list[int]] = {}

    # ----------------------------------------------------------------------------- building
    def _flatten(self, body, max_nodes: int) -> None:
        elements, tags, parents, ends, slot_starts, slot_ends, lines, depths = ([] for _ in range(8))
        texts, owners, chars, links, tags_before, breaks, slot_lines = ([] for _ in range(7))
        stack: list[int] = []
        pending_tags = 0
        pending_break = 0
        pending_space = False
        link_depth = 0
        line = 1
        deadline = self.deadline
        perf = time.perf_counter

        def add_slot(text: str, owner: int) -> None:
            nonlocal pending_tags, pending_break, pending_space, line
            if text.isspace():
                pending_space = True
                line += text.count("\n")
                return
            if pending_space:
                text = " " + text
                pending_space = False
            texts.append(text)
            owners.append(owner)
            chars.append(normalized_length(text))
            links.append(link_depth > 0)
            tags_before.append(pending_tags)
            breaks.append(pending_break)
            slot_lines.append(line)
            line += text.count("\n")
            pending_tags = 0
            pending_break = 0

        for event, el in etree.iterwalk(body, events=("start", "end")):
            if event == "start":
                index = len(tags)
                tag = _tag_name(el)
                elements.append(el)
                tags.append(tag)
                parents.append(stack[-1] if stack else -1)
                depths.append(len(stack))
                ends.append(0)
                slot_starts.append(len(texts))
                slot_ends.append(0)
                sourceline = el.sourceline
                if sourceline:
                    line = sourceline
                lines.append(line)
                stack.append(index)
                pending_tags += 1
                if tag in BLOCK_TAGS:
                    pending_break = 2
                elif tag in CELL_TAGS and pending_break < 1:
                    pending_break = 1
                if tag in LINK_TAGS:
                    link_depth += 1
                if index % _TIME_CHECK_EVERY == 0 and index:
                    if index >= max_nodes:
                        raise LimitExceeded("too_many_nodes", f"more than {max_nodes} elements")
                    if deadline is not None and perf() > deadline:
                        raise LimitExceeded("time_limit", "time budget ran out while reading the page")
                text = el.text
                if text:
                    add_slot(text, index)
            else:
                index = stack.pop()
                tag = tags[index]
                ends[index] = len(tags)
                slot_ends[index] = len(texts)
                if tag not in VOID_TAGS:
                    pending_tags += 1
                if tag in BLOCK_TAGS:
                    pending_break = 2
                elif tag in CELL_TAGS and pending_break < 1:
                    pending_break = 1
                if tag in LINK_TAGS:
                    link_depth -= 1
                tail = el.tail
                if tail and stack:
                    add_slot(tail, stack[-1])
        if len(tags) > max_nodes:
            raise LimitExceeded("too_many_nodes", f"{len(tags)} elements, more than {max_nodes}")
        self.elements, self.tags, self.parents, self.ends = elements, tags, parents, ends
        self.slot_starts, self.slot_ends, self.lines, self.depths = slot_starts, slot_ends, lines, depths
        self.texts, self.owners, self.chars, self.links = texts, owners, chars, links
        self.tags_before, self.breaks, self.slot_lines = tags_before, breaks, slot_lines
        self.trailing_tags = pending_tags
        self.max_depth = max(depths, default=0)

    # ----------------------------------------------------------------------------- sums
    def prefix(self, name: str) -> list[int]:
        """Prefix sums over slots (``chars``, ``link_chars``, ``tokens``) or elements (``markup``)."""
        cached = self._prefix.get(name)
        if cached is None:
            if name == "chars":
                values = self.chars
            elif name == "link_chars":
                values = [c if link else 0 for c, link in zip(self.chars, self.links)]
            elif name == "tokens":
                values = self.token_counts
            elif name == "markup":
                values = [markup_length(el, tag) for el, tag in zip(self.elements, self.tags)]
            else:
                raise KeyError(name)
            cached = self._prefix[name] = [0, *accumulate(values)]
        return cached

    @property
    def token_counts(self) -> list[int]:
        counts = self.__dict__.get("_token_counts")
        if counts is None:
            counts = self.__dict__["_token_counts"] = [count_tokens(t) for t in self.texts]
        return counts

    def subtree_sum(self, name: str, element: int) -> int:
        """Sum of a slot column (``chars``, ``link_chars``, ``tokens``) over ``element``'s subtree."""
        prefix = self.prefix(name)
        return prefix[self.slot_ends[element]] - prefix[self.slot_starts[element]]

    def subtree_markup(self, element: int) -> int:
        """Canonical markup length of ``element``'s subtree: its tags and its text (§4.6)."""
        prefix = self.prefix("markup")
        return prefix[self.ends[element]] - prefix[element] + self.subtree_sum("chars", element)

    def descendants(self, element: int) -> range:
        return range(element + 1, self.ends[element])

    def children(self, element: int) -> list[int]:
        child, end, result = element + 1, self.ends[element], []
        while child < end:
            result.append(child)
            child = self.ends[child]
        return result

    @property
    def total_chars(self) -> int:
        return self.prefix("chars")[-1]

    @property
    def total_link_chars(self) -> int:
        return self.prefix("link_chars")[-1]

    def check_time(self) -> None:
        """Raise ``LimitExceeded`` once the page's time budget has run out (extractors call it)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise LimitExceeded("time_limit", "time budget ran out")

    def text_of(self, element: int) -> str:
        from .render import render_ranges

        return render_ranges(self, [(self.slot_starts[element], self.slot_ends[element])])


def markup_length(el, tag: str) -> int:
    """Canonical length of an element's own tags: ``<name attr="value">`` and ``</name>`` (§4.6)."""
    length = len(tag) + 2
    for name, value in el.items():
        length += len(name) + len(value) + 4
    if tag not in VOID_TAGS:
        length += len(tag) + 3
    return length


def _clean(root) -> None:
    """Drop what no method counts: scripts, styles, templates, embedded SVG/MathML, hidden elements."""
    etree.strip_elements(root, *REMOVED_TAGS, with_tail=False)
    for el in _HIDDEN_XPATH(root):
        parent = el.getparent()
        if parent is not None and el.tag not in ("html", "body"):
            el.drop_tree()
