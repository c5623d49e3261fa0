"""Markup (``str``, or ``bytes`` known to be UTF-8) into a bounded lxml tree, and a note of what that took.

Each thread parses with its own libxml2 parser: one shared parser would be locked by lxml, so threads
would parse one at a time, and its error log, read after a parse, could meanwhile belong to another
thread's page.

libxml2 stops building a tree (keeping only what came before) at nesting deeper than 256 levels or at a
text node over 10 MB, and adds attributes to an element in quadratic time. Its event interface has none
of these problems, so such pages are replayed from events into markup with the nesting cut at
``MAX_DEPTH`` (deeper tags are left out, their text is kept by their deepest kept ancestor, as browsers
flatten over-deep trees) and at most ``MAX_ATTRIBUTES`` attributes per element, then parsed again.
Counting start events the same way rejects pages with too many elements before any tree is built.
Ordinary pages take none of these paths: two byte counts and a regular-expression scan.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from html import escape
from itertools import islice

from lxml import etree

from .reasons import Deadline, LimitExceeded, Reason

#: deepest element nesting any tree gets (html counts 1); below libxml2's 256, far below Python's
#: recursion limit, so no code walking a tree recursively can overflow the stack
MAX_DEPTH = 250
#: attributes kept per element (no real page has more; libxml2 adds them in quadratic time)
MAX_ATTRIBUTES = 256
#: a start tag at least this long (after ``<`` and its first letter) may hold thousands of attributes:
#: count them before building a tree
_LONG_TAG = 16384
#: libxml2's HTML elements without an end tag (an end tag replayed for them would add an element)
_VOID = frozenset(
    "area base basefont br col embed frame hr img input isindex keygen link meta param source track wbr".split()
)
#: elements whose content libxml2 keeps as raw text (replayed unescaped)
_RAW_TEXT = frozenset("script style xmp iframe noembed noframes noscript plaintext".split())
_TIME_CHECK_EVERY = 2048
_TITLE_OPEN_RE = re.compile(rb"<title\b[^>]*>", re.IGNORECASE)
_TITLE_CLOSE_RE = re.compile(rb"</title", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ParsedPage:
    """A parsed page's tree (rooted at ``<html>``) and what it took to build it."""

    root: etree._Element
    #: rebuilt from parser events: libxml2's tree builder stopped at one of its limits, or an
    #: element held more than ``MAX_ATTRIBUTES`` attributes
    replayed: bool = False
    #: tags nested deeper than ``MAX_DEPTH`` were left out (their text was kept)
    depth_cut: bool = False


def parse_html(
    markup: str | bytes, *, max_nodes: int | None = None, deadline: Deadline | None = None
) -> ParsedPage | None:
    """Parse a page (None when there is nothing to parse). Never raises for content, except
    ``LimitExceeded`` past ``max_nodes`` elements or once ``deadline`` has passed."""
    data = _prepared(markup)
    if not data or data.isspace():
        return None
    data = _close_unclosed_title(data)
    try:
        return _parse_within_limits(data, max_nodes=max_nodes, deadline=deadline)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def thread_parser() -> etree.HTMLParser:
    """This thread's tree parser (made on first use)."""
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        # huge_tree stays off: libxml2 then stops at 256 levels, which tells the deep pages apart
        parser = _LOCAL.parser = _html_parser(huge_tree=False)
    return parser


_LOCAL = threading.local()


def _html_parser(*, target=None, huge_tree: bool) -> etree.HTMLParser:
    # A plain etree parser: lxml.html's element-class lookup costs a Python call per element.
    return etree.HTMLParser(
        target=target,
        recover=True,
        encoding="utf-8",
        remove_comments=True,
        remove_pis=True,
        no_network=True,
        collect_ids=False,
        default_doctype=False,
        huge_tree=huge_tree,
    )


def _prepared(markup: str | bytes) -> bytes:
    """UTF-8 bytes without a byte-order mark or NUL characters (browsers ignore NUL in a page;
    libxml2 would turn each into U+FFFD)."""
    if isinstance(markup, bytes):
        data = markup[3:] if markup.startswith(b"\xef\xbb\xbf") else markup
        return data.replace(b"\x00", b"") if b"\x00" in data else data
    if "\x00" in markup:
        markup = markup.replace("\x00", "")
    if markup.startswith("\ufeff"):
        markup = markup[1:]
    return markup.encode("utf-8", "replace")


def _close_unclosed_title(data: bytes) -> bytes:
    """A ``<title>`` never closed would swallow the whole page as title text (RCDATA); end it at
    its first line break or tag instead, as its author meant."""
    opened = _TITLE_OPEN_RE.search(data, 0, 65536)
    if opened is None:
        return data
    start = opened.end()
    if data.find(b"</title", start) >= 0 or data.find(b"</TITLE", start) >= 0 or _TITLE_CLOSE_RE.search(data, start):
        return data
    ends = [i for i in (data.find(b"<", start), data.find(b"\n", start)) if i >= 0]
    cut = min(ends, default=len(data))
    return data[:cut] + b"</title>" + data[cut:]


# ----------------------------------------------------------------------------- bounds
def start_tag_bound(data: bytes) -> int:
    """A cheap upper bound of the number of elements: every start tag begins with ``<`` and a
    letter, so ``<`` minus end tags, comments and declarations (plus a few implied elements)."""
    return data.count(b"<") - data.count(b"</") - data.count(b"<!") + 8


def _may_exceed(data: bytes, max_nodes: int) -> bool:
    """``start_tag_bound(data) > max_nodes``, counting end tags and declarations only when the count
    of ``<`` alone does not settle it (on most large pages it does: one pass instead of three)."""
    return data.count(b"<") + 8 > max_nodes and start_tag_bound(data) > max_nodes


def has_long_tag(data: bytes) -> bool:
    """True when a start tag is ``_LONG_TAG`` bytes or longer (it may hold thousands of attributes).

    Such a tag's text after ``<`` and its first letter is a stretch of ``_LONG_TAG`` bytes without
    ``<`` or ``>``, which covers a whole aligned window of half that size without either: only those
    windows are looked at (a few finds per window on a typical page), each with the one start tag
    that can cover it, the last ``<`` before it, checked once."""
    half = _LONG_TAG // 2
    checked = -1
    for start in range(0, len(data) - half + 1, half):
        end = start + half
        if data.find(b">", start, end) >= 0 or data.find(b"<", start, end) >= 0:
            continue
        opened = data.rfind(b"<", 0, start)
        if opened < 0 or opened == checked:
            continue
        checked = opened
        text_start, text_end = opened + 2, opened + 2 + _LONG_TAG
        if (
            text_end <= len(data)
            and data[opened + 1 : text_start].isalpha()
            and data.find(b">", text_start, text_end) < 0
            and data.find(b"<", text_start, text_end) < 0
        ):
            return True
    return False


def _too_many(max_nodes: int) -> LimitExceeded:
    return LimitExceeded(Reason.TOO_MANY_NODES, f"more than {max_nodes} elements")


def _parse_within_limits(data: bytes, *, max_nodes: int | None, deadline: Deadline | None) -> ParsedPage | None:
    """The tree from libxml2's tree builder, or from a replay of its events when the page is past one
    of its limits."""
    most_attributes = 0
    if (max_nodes is not None and len(data) > 2 * max_nodes and _may_exceed(data, max_nodes)) or has_long_tag(data):
        most_attributes = etree.fromstring(data, _html_parser(target=_Survey(max_nodes), huge_tree=True))
    if most_attributes <= MAX_ATTRIBUTES:
        parser = thread_parser()
        root = etree.fromstring(data, parser)
        last = parser.error_log.last_error  # this thread's parser: the log is this page's
        if last is None or last.type != etree.ErrorTypes.ERR_RESOURCE_LIMIT:
            return None if root is None else ParsedPage(root)
    return _replayed(data, max_nodes=max_nodes, deadline=deadline)


class _Survey:
    """Event target counting start tags (stopping the parse past ``max_nodes``) and the largest
    number of attributes on one element."""

    def __init__(self, max_nodes: int | None):
        self.max_nodes = max_nodes
        self.count = 0
        self.most_attributes = 0

    def start(self, tag, attrib) -> None:
        self.count += 1
        if self.max_nodes is not None and self.count > self.max_nodes:
            raise _too_many(self.max_nodes)
        if len(attrib) > self.most_attributes:
            self.most_attributes = len(attrib)

    def close(self) -> int:
        return self.most_attributes


class _Replay:
    """Event target writing the events back as markup, leaving out tags nested past ``MAX_DEPTH`` and
    attributes past ``MAX_ATTRIBUTES``."""

    def __init__(self, max_nodes: int | None, deadline: Deadline | None):
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.parts: list[str] = []
        self.kept: list[bool] = []  # per open element: was its tag written?
        self.depth = 0  # open elements whose tags were written
        self.raw = 0  # open raw-text elements whose tags were written
        self.plaintext = False  # <plaintext> takes the rest of the page as text: no more end tags
        self.count = 0
        self.clamped = 0  # tags left out for their depth

    def start(self, tag, attrib) -> None:
        self.count += 1
        if not self.count % _TIME_CHECK_EVERY:
            if self.max_nodes is not None and self.count > self.max_nodes:
                raise _too_many(self.max_nodes)
            if self.deadline is not None and self.deadline.passed():
                raise LimitExceeded(Reason.TIME_LIMIT, "time budget ran out while reading the page")
        if self.depth >= MAX_DEPTH:
            self.kept.append(False)
            self.clamped += 1
            return
        self.kept.append(True)
        self.depth += 1
        if tag in _RAW_TEXT:
            self.raw += 1
            self.plaintext = self.plaintext or tag == "plaintext"
        kept = islice(attrib.items(), MAX_ATTRIBUTES)
        attributes = "".join(f' {name}="{escape(value)}"' for name, value in kept)
        self.parts.append(f"<{tag}{attributes}>")

    def end(self, tag) -> None:
        if not self.kept.pop():
            return
        self.depth -= 1
        if tag in _RAW_TEXT:
            self.raw -= 1
        if tag not in _VOID and not self.plaintext:
            self.parts.append(f"</{tag}>")

    def data(self, data: str) -> None:
        self.parts.append(data if self.raw else escape(data, quote=False))

    def close(self) -> str:
        return "".join(self.parts)


def _replayed(data: bytes, *, max_nodes: int | None, deadline: Deadline | None) -> ParsedPage | None:
    """The tree of ``data`` with nesting cut at ``MAX_DEPTH``, attributes at ``MAX_ATTRIBUTES`` and no
    text-size limit (None when empty)."""
    replay = _Replay(max_nodes, deadline)
    try:
        markup = etree.fromstring(data, _html_parser(target=replay, huge_tree=True))
    except etree.XMLSyntaxError:
        return None
    if max_nodes is not None and replay.count > max_nodes:
        raise _too_many(max_nodes)
    if not markup or markup.isspace():
        return None
    try:
        root = etree.fromstring(markup.encode("utf-8", "replace"), _html_parser(huge_tree=True))
    except etree.XMLSyntaxError:
        return None
    return None if root is None else ParsedPage(root, replayed=True, depth_cut=replay.clamped > 0)
