"""Clean a parsed page once and flatten it into the columns every extractor shares.

One walk over the cleaned ``<body>`` (lxml's ``iter``, hidden elements left out) produces:

* element columns, in document (pre-)order: ``elements``, ``tags``, ``parents``, ``ends`` (exclusive
  end of the subtree in that order, so descendants of ``e`` are ``e+1 .. ends[e]-1``), ``slot_starts``
  / ``slot_ends`` (the text slots inside the subtree);
* slot columns, one per non-blank text node (``el.text`` or ``el.tail``) in document order: ``texts``,
  ``owners`` (element whose content holds the text), ``links`` (inside an ``<a>``), ``tags_before``
  (tag tokens between the previous slot and this one) and ``breaks`` (a block boundary precedes it:
  0 none, 1 cell, 2 line).

Columns only some methods need are computed on first use: ``chars`` (length with whitespace
collapsed), ``token_counts``, ``lines`` (source line of each start tag), ``slot_lines`` and
``depths``. Subtree sums (text, link text, markup) are then O(1) from prefix sums, so every method
is linear.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import cached_property
from itertools import accumulate, chain, islice
from typing import Any

from lxml import etree

from .claims import PageClaims, read_claims
from .reasons import Deadline, LimitExceeded, Reason
from .rendering import needs_rendering, render_tree
from .tokens import count_tokens

#: removed with their content before anything is counted (docs/methods.md#removed-elements), plus
#: non-HTML islands, ruby annotations (a reader reads the base text: ``<ruby>漢<rt>kan</rt></ruby>``) and the
#: fallback content of media a browser plays or draws ("Your browser does not support the audio element")
REMOVED_TAGS = (
    "script", "style", "noscript", "template", "svg", "math", "head", "rt", "rp", "audio", "video", "canvas", "iframe"
)  # fmt: skip
#: elements that end a line of output text (docs/methods.md#output-lines)
BLOCK_TAGS = frozenset(
    "p div li ul ol dl dt dd h1 h2 h3 h4 h5 h6 br hr tr table thead tbody tfoot caption blockquote "
    "pre section article main aside header footer nav form fieldset legend figure figcaption address "
    "details summary center body html option select textarea dialog menu hgroup search dir optgroup "
    "listing xmp plaintext frameset".split()
)
CELL_TAGS = frozenset(("td", "th"))
VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr keygen basefont frame".split()
)
HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
#: break a tag leaves before the next text, as bits: 2 = new line, 1 = new table cell (3: both met,
#: which is a new line)
_BREAK_BITS = {**{tag: 2 for tag in BLOCK_TAGS}, **{tag: 1 for tag in CELL_TAGS}}
_HIDDEN_STYLE_RE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
#: the columns built for every page: one value per element, in document order ...
ELEMENT_COLUMNS = ("elements", "tags", "parents", "ends", "slot_starts", "slot_ends")
#: ... and one value per text slot, in document order
SLOT_COLUMNS = ("texts", "owners", "links", "tags_before", "breaks")
#: columns computed on first use, for the methods that need them
LAZY_ELEMENT_COLUMNS = ("lines", "depths")
LAZY_SLOT_COLUMNS = ("chars", "token_counts", "slot_lines")
#: most items (elements) the walk takes between two checks of the element count and the time budget
_EVENTS_PER_CHECK = 4096
#: elements the walk's first chunk takes (chunks double up to ``_EVENTS_PER_CHECK``): small pages
#: grow their columns little
_FIRST_CHUNK = 512


class _End:
    """What the walk meets after the last element: the parent of nothing, so everything closes."""

    tail = None

    @staticmethod
    def getparent() -> None:
        return None


_END = _End()


def is_hidden(el) -> bool:
    """Hidden by the ``hidden`` attribute or an inline ``display:none``/``visibility:hidden``
    (``hidden="until-found"`` is content the browser shows when a reader searches or links to it)."""
    return _hidden_by_attribute(el) or _hidden_by_style(el)


def _hidden_by_attribute(el) -> bool:
    hidden = el.get("hidden")
    return hidden is not None and hidden.lower() != "until-found"


def _hidden_by_style(el) -> bool:
    style = el.get("style")
    if not style:
        return False
    style = style.lower()
    return ("none" in style or "hidden" in style) and _HIDDEN_STYLE_RE.search(style) is not None


#: paragraph characters a hidden container must hold before it can be what a reader sees
MIN_DEFERRED_PROSE = 400
#: what a page names as a dialog, a menu, navigation or a page region around the content: hidden
#: furniture, never revealed
_FURNITURE_TAGS = frozenset(("nav", "dialog", "menu", "aside", "header", "footer", "form"))
_FURNITURE_ROLES = frozenset(
    (
        "dialog",
        "alertdialog",
        "navigation",
        "menu",
        "menubar",
        "banner",
        "contentinfo",
        "complementary",
        "search",
        "tooltip",
        "form",
    )
)


def reveal_deferred(body: etree._Element, skipped: Iterable[etree._Element], deadline: Deadline | None = None) -> int:
    """Show what a reader sees once the page's scripts have run, and return how many containers
    were revealed. ``skipped``: the hidden elements a walk over ``body`` left out. A container the
    ``hidden`` attribute hides is shown when it holds paragraphs of prose, at least
    ``MIN_DEFERRED_PROSE`` characters and more than the visible page, unless the page names it a
    dialog, a menu or navigation: server-side rendering that streams (React, Next.js, ...) sends the
    body that way and swaps it in by script, while hidden menus, dialogs and panels hold little prose
    beside a visible article (docs/front-end.md#what-a-reader-sees)."""
    prose: dict = {}
    for count, el in enumerate(skipped, 1):
        if _hidden_by_attribute(el):
            prose[el] = _prose(el)
        if not count % _EVENTS_PER_CHECK and deadline is not None and deadline.passed():
            raise LimitExceeded(Reason.TIME_LIMIT, "time budget ran out while weighing hidden containers")
    if max(prose.values(), default=0) < MIN_DEFERRED_PROSE:
        return 0
    visible = _prose(body) - sum(prose[el] if el in prose else _prose(el) for el in skipped)
    revealed = 0
    for el, chars in prose.items():
        if chars >= MIN_DEFERRED_PROSE and chars > visible and not (_is_furniture(el) or _hidden_by_style(el)):
            del el.attrib["hidden"]
            revealed += 1
    return revealed


def _prose(el) -> int:
    """Characters of paragraph text in ``el``'s subtree, whitespace runs collapsed."""
    chars = 0
    for paragraph in el.iter("p"):
        chars += len(" ".join(" ".join(paragraph.itertext()).split()))
    return chars


def _is_furniture(el) -> bool:
    """Named a dialog, a menu, navigation or a region around the content, or hidden from assistive
    technology too (``aria-hidden``, ``aria-modal``)."""
    role = el.get("role")
    return (
        el.tag in _FURNITURE_TAGS
        or (role is not None and role.strip().lower() in _FURNITURE_ROLES)
        or (el.get("aria-modal") or "").strip().lower() == "true"
        or (el.get("aria-hidden") or "").strip().lower() == "true"
    )


class Document:
    """The columns of one cleaned page, built once and shared by the method that runs.

    Besides the columns it keeps what identifies the page (``url``, ``encoding``), its time budget
    (``deadline``), its ``claims`` and ``memo``: per-page values other modules compute from the
    columns (the page language, stop-word counts, ...), under tuple keys that start with the name of
    the module that owns them.
    """

    def __init__(
        self,
        root,
        *,
        url: str | None = None,
        encoding: str | None = None,
        max_nodes: int = 200_000,
        deadline: Deadline | None = None,
        claims: PageClaims | None = None,
    ):
        self.url = url
        self.encoding = encoding
        self.deadline = deadline
        # read before the head and scripts go (unless the caller read them already)
        self.claims: PageClaims = claims or read_claims(root)
        self.memo: dict[Any, Any] = {}
        self._prefix: dict[str, list[int]] = {}
        body = root.find("body")
        if body is None:
            body = root
        _clean(root)
        skipped = self._flatten(body, max_nodes)
        if skipped and reveal_deferred(body, skipped, deadline):  # what a reader sees once scripts run
            self._flatten(body, max_nodes)
        if needs_rendering("".join(self.texts)):  # the characters a reader sees (docs/methods.md#rendered-text)
            render_tree(body)
            self._flatten(body, max_nodes)

    # Page declarations, under the names methods use (see ``claims.PageClaims``).
    title = property(lambda self: self.claims.title)
    og_title = property(lambda self: self.claims.og_title)
    lang = property(lambda self: self.claims.lang)
    meta_lang = property(lambda self: self.claims.meta_lang)
    og_type = property(lambda self: self.claims.og_type)
    published = property(lambda self: self.claims.published)
    structured_types = property(lambda self: self.claims.structured_types)
    subject_types = property(lambda self: self.claims.subject_types)

    # ----------------------------------------------------------------------------- building
    def _flatten(self, body, max_nodes: int) -> set:
        """Fill the columns in one walk over ``body``; return the hidden elements it left out."""
        # The front end's hot loop, over every element of every page. lxml's ``iter`` gives each
        # element once, in document order (half the events of a start/end walk); an element's
        # parent tells which open elements it closes (their ends and tails come first). A hidden
        # element's descendants are passed over in one C-level step. Before each chunk of items
        # (chunks double in size) every column grows by twice the chunk's size: elements never
        # outnumber the items met, slots never the items plus the elements closed. Values are stored
        # by index (no method call), the unused tails cut at the end; the element count and the
        # time budget are checked between chunks.
        elements: list = []
        tags: list[str] = []
        parents: list[int] = []
        ends: list[int] = []
        slot_starts: list[int] = []
        slot_ends: list[int] = []
        texts: list[str] = []
        owners: list[int] = []
        links: list[bool] = []
        tags_before: list[int] = []
        breaks: list[int] = []
        columns = (elements, tags, parents, ends, slot_starts, slot_ends, texts, owners, links, tags_before, breaks)
        count = slot_count = 0  # elements and slots so far
        top = -1  # the open element
        hidden: set = set()  # skipped hidden elements, held so their identity stays valid
        pending_tags = pending_break = link_depth = 0
        pending_space = False
        break_bits = _BREAK_BITS
        void = VOID_TAGS
        items = chain(body.iter(), (_END,))  # the end closes what is still open, the body last
        # A text slot is stored in two places below, for a closed element's tail and for an opened
        # element's text; the few lines are written out in both on purpose: a function call per slot
        # would cost more than the rest of the walk does for it.
        size = _FIRST_CHUNK
        while True:
            block = [0] * (2 * size)  # items so far bound the elements, and items plus closes the slots
            for column in columns:
                column += block
            chunk = 0
            for el in islice(items, size):
                chunk += 1
                parent = el.getparent()
                while top >= 0 and elements[top] is not parent:  # close what ``el`` is not inside
                    ends[top] = count
                    slot_ends[top] = slot_count
                    tag = tags[top]
                    closed = elements[top]
                    top = parents[top]
                    if tag not in void:
                        pending_tags += 1
                    if tag in break_bits:
                        pending_break |= break_bits[tag]
                    if tag == "a":
                        link_depth -= 1
                    if top < 0:  # the body's end (its tail is not the body's text)
                        break
                    text = closed.tail
                    if text:
                        if text.isspace():
                            pending_space = True
                            continue
                        if pending_space:
                            text = " " + text
                            pending_space = False
                        texts[slot_count] = text
                        owners[slot_count] = top
                        links[slot_count] = link_depth > 0
                        tags_before[slot_count] = pending_tags
                        breaks[slot_count] = pending_break
                        slot_count += 1
                        pending_tags = pending_break = 0
                if el is _END:
                    break
                if count and (el.get("style") is not None or el.get("hidden") is not None) and is_hidden(el):
                    hidden.add(el)
                    skipped = len(list(el.iterdescendants()))
                    if skipped:
                        next(islice(items, skipped - 1, skipped), None)
                    text = el.tail
                else:
                    tag = el.tag
                    elements[count] = el
                    tags[count] = tag
                    parents[count] = top
                    slot_starts[count] = slot_count
                    top = count
                    count += 1
                    pending_tags += 1
                    if tag in break_bits:
                        pending_break |= break_bits[tag]
                    if tag == "a":
                        link_depth += 1
                    text = el.text
                if text:
                    if text.isspace():
                        pending_space = True
                        continue
                    if pending_space:
                        text = " " + text
                        pending_space = False
                    texts[slot_count] = text
                    owners[slot_count] = top
                    links[slot_count] = link_depth > 0
                    tags_before[slot_count] = pending_tags
                    breaks[slot_count] = pending_break
                    slot_count += 1
                    pending_tags = pending_break = 0
            if count > max_nodes:
                raise LimitExceeded(Reason.TOO_MANY_NODES, f"{count} elements, more than {max_nodes}")
            if chunk < size or top < 0:  # the walk is over
                break
            size = min(2 * size, _EVENTS_PER_CHECK)
            if self.deadline is not None and self.deadline.passed():
                raise LimitExceeded(Reason.TIME_LIMIT, "time budget ran out while reading the page")
        for column in columns[:6]:
            del column[count:]
        for column in columns[6:]:
            del column[slot_count:]
        if 3 in breaks:  # a cell break and a line break met: a new line
            breaks = [2 if kind == 3 else kind for kind in breaks]
        self.elements, self.tags, self.parents, self.ends = elements, tags, parents, ends
        self.slot_starts, self.slot_ends = slot_starts, slot_ends
        self.texts, self.owners, self.links = texts, owners, links
        self.tags_before, self.breaks = tags_before, breaks
        self.trailing_tags = pending_tags
        return hidden

    # ----------------------------------------------------------------------------- lazy columns
    @cached_property
    def chars(self) -> list[int]:
        """Per slot: characters with whitespace runs collapsed and ends stripped
        (docs/methods.md#characters-and-tokens)."""
        return [len(" ".join(text.split())) for text in self.texts]

    @cached_property
    def lines(self) -> list[int]:
        """Per element: source line of its start tag (carried forward where libxml2 gives none)."""
        lines, line = [], 1
        for el in self.elements:
            line = el.sourceline or line
            lines.append(line)
        return lines

    @cached_property
    def slot_lines(self) -> list[int]:
        """Per slot: source line where its text starts (element start lines plus newlines since)."""
        element_lines = self.lines
        slot_starts = self.slot_starts
        slot_lines, previous_anchor, line = [], -2, 1
        for slot, text in enumerate(self.texts):
            anchor = bisect_right(slot_starts, slot) - 1  # the last element started before the slot
            if anchor != previous_anchor:
                line = element_lines[anchor] if anchor >= 0 else 1
                previous_anchor = anchor
            slot_lines.append(line)
            line += text.count("\n")
        return slot_lines

    @cached_property
    def depths(self) -> list[int]:
        """Per element: nesting depth below the body (the body is 0)."""
        depths: list[int] = []
        for parent in self.parents:
            depths.append(depths[parent] + 1 if parent >= 0 else 0)
        return depths

    @property
    def max_depth(self) -> int:
        return max(self.depths, default=0)

    @cached_property
    def token_counts(self) -> list[int]:
        """Per slot: number of tokens (``tokens.count_tokens``)."""
        return [count_tokens(t) for t in self.texts]

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

    def subtree_sum(self, name: str, element: int) -> int:
        """Sum of a slot column (``chars``, ``link_chars``, ``tokens``) over ``element``'s subtree."""
        prefix = self.prefix(name)
        return prefix[self.slot_ends[element]] - prefix[self.slot_starts[element]]

    def subtree_markup(self, element: int) -> int:
        """Canonical markup length of ``element``'s subtree: its tags and its text
        (docs/methods.md#canonical-lengths)."""
        prefix = self.prefix("markup")
        return prefix[self.ends[element]] - prefix[element] + self.subtree_sum("chars", element)

    @property
    def total_chars(self) -> int:
        return self.prefix("chars")[-1]

    @property
    def total_link_chars(self) -> int:
        return self.prefix("link_chars")[-1]

    def check_time(self) -> None:
        """Raise ``LimitExceeded`` once the page's time budget has run out (extractors call it)."""
        if self.deadline is not None and self.deadline.passed():
            raise LimitExceeded(Reason.TIME_LIMIT, "time budget ran out")


def markup_length(el, tag: str) -> int:
    """Canonical length of an element's own tags: ``<name attr="value">`` and ``</name>``
    (docs/methods.md#canonical-lengths)."""
    length = len(tag) + 2
    for name, value in el.items():
        length += len(name) + len(value) + 4
    if tag not in VOID_TAGS:
        length += len(tag) + 3
    return length


def _clean(root) -> None:
    """Drop what no method counts: scripts, styles, templates, embedded SVG/MathML, the head, and
    the line numbers of code (``drop_line_numbers``). (Hidden elements are skipped during the walk,
    which is cheaper than a tree query.)"""
    etree.strip_elements(root, *REMOVED_TAGS, with_tail=False)
    drop_line_numbers(root)


#: class/id words (whole tokens, or the last part of one) of the line numbers syntax highlighters
#: draw beside code: a gutter cell of numbers, a number cell per row, a number span per line
_LINE_NUMBER_RE = re.compile(
    r"(?:^|[-_])(?:line-?numbers?|line-?nums?|linenos?|linenodiv|lnt|ln|gutter|blob-num|"
    r"ln-numbers?|numbers?-?rows?|line-?number-?rows?)$"
)
#: a number gutter holds numbers only (digits, whitespace, a colon or point after a number)
_NUMBERS_ONLY_RE = re.compile(r"[\d\s.:]*")
#: elements that are a gutter on their own; other elements count as one only inside ``pre``/``code``
_GUTTER_TAGS = frozenset(("td", "th", "div", "pre", "ul", "ol"))
_CODE_TAGS = frozenset(("pre", "code"))
#: XPath preselection of the elements whose names may be line numbers' (checked in Python after)
_NUMBERED = etree.XPath(
    "//*[@class or @id][contains(@class, 'num') or contains(@class, 'lin') or contains(@class, 'ln') "
    "or contains(@class, 'gutter') or contains(@class, 'gl') or contains(@id, 'num') or contains(@id, 'lin')]"
)


def drop_line_numbers(root) -> None:
    """Take out the line numbers drawn beside code, so that code reads as its lines of code: a
    gutter cell of numbers beside the code cell (``td.linenos``), a number cell per row (a gist's
    ``td.blob-num``), a number span per line inside a ``pre`` (``span.lineno``). An element counts
    when a class/id word names line numbers and it holds nothing but numbers; one that is not a
    cell or a block counts only inside a ``pre`` or ``code``. Its tail text (the line's code) stays."""
    for el in _NUMBERED(root):
        names = f"{el.get('class') or ''} {el.get('id') or ''}".lower().split()
        if not any(_LINE_NUMBER_RE.search(name) for name in names):
            continue
        if not _NUMBERS_ONLY_RE.fullmatch("".join(el.itertext())):
            continue
        if el.tag not in _GUTTER_TAGS and not any(a.tag in _CODE_TAGS for a in el.iterancestors()):
            continue
        remove_keeping_tail(el)


def remove_keeping_tail(el) -> None:
    """Take ``el`` out of its tree, keeping the text that follows it (its tail) in place."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)
