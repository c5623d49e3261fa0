"""Parsing past libxml2's tree limits, with bounded depth, element count, attributes and time.

libxml2 stops building a tree (keeping only what came before) at nesting deeper than 256 levels or
at a text node over 10 MB, and adds attributes to an element in quadratic time. Its event interface
has none of these problems, so such pages are replayed from events into markup with the nesting cut
at ``MAX_DEPTH`` (deeper tags are left out, their text is kept by their deepest kept ancestor, as
browsers flatten over-deep trees) and at most ``MAX_ATTRIBUTES`` attributes per element, then parsed
again. Counting start events the same way rejects pages with too many elements before any tree is
built. Ordinary pages take none of these paths: two byte counts and a regular-expression scan.
"""

from __future__ import annotations

import re
import time
from html import escape
from itertools import islice

from lxml import etree

#: deepest element nesting any tree gets (html counts 1); below libxml2's 256, far below Python's
#: recursion limit, so no code walking a tree recursively can overflow the stack
MAX_DEPTH = 250
#: attributes kept per element (no real page has more; libxml2 adds them in quadratic time)
MAX_ATTRIBUTES = 256
#: a start tag at least this long may hold thousands of attributes: count them before building a tree
_LONG_TAG = 16384
_LONG_TAG_RE = re.compile(rb"<[A-Za-z][^<>]{%d}" % _LONG_TAG)
#: libxml2's HTML elements without an end tag (an end tag replayed for them would add an element)
_VOID = frozenset(
    "area base basefont br col embed frame hr img input isindex keygen link meta param source track wbr"
    .split()
)
#: elements whose content libxml2 keeps as raw text (replayed unescaped)
_RAW_TEXT = frozenset("script style xmp iframe noembed noframes noscript plaintext".split())
_TIME_CHECK_EVERY = 2048


def start_tag_bound(data: bytes) -> int:
    """A cheap upper bound of the number of elements: every start tag begins with ``<`` and a
    letter, so ``<`` minus end tags, comments and declarations (plus a few implied elements)."""
    return data.count(b"<") - data.count(b"</") - data.count(b"<!") + 8


def has_long_tag(data: bytes) -> bool:
    """True when a start tag is ``_LONG_TAG`` bytes or longer (it may hold thousands of attributes);
    the exact scan runs only on pages that have such a long stretch without ``>`` at all."""
    # A stretch of _LONG_TAG bytes without ">" contains a whole aligned window of half that size
    # without one: a dozen finds on a typical page instead of a scan of every byte.
    half = _LONG_TAG // 2
    for start in range(0, len(data) - half + 1, half):
        if data.find(b">", start, start + half) < 0:
            return _LONG_TAG_RE.search(data) is not None
    return False


def stopped_at_limit(parser: etree.HTMLParser) -> bool:
    """True when the last parse with ``parser`` was cut short by one of libxml2's resource limits."""
    last = parser.error_log.last_error
    return last is not None and last.type == etree.ErrorTypes.ERR_RESOURCE_LIMIT


def _parser(target=None) -> etree.HTMLParser:
    # events or a tree; huge_tree lifts the text-node limit; the caller already bounded the input's size
    return etree.HTMLParser(
        target=target, recover=True, encoding="utf-8", remove_comments=True, remove_pis=True,
        no_network=True, collect_ids=False, default_doctype=False, huge_tree=True,
    )


def _too_many(max_nodes: int):
    from .document import LimitExceeded

    return LimitExceeded("too_many_nodes", f"more than {max_nodes} elements")


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


def parse_within_limits(data: bytes, parser: etree.HTMLParser, *, max_nodes: int | None = None,
                        deadline: float | None = None):
    """Tree of ``data`` from ``parser`` (libxml2's tree builder), or from a replay of its events when
    the page is past one of its limits. Raises ``LimitExceeded`` past ``max_nodes`` or ``deadline``."""
    most_attributes = 0
    if (max_nodes is not None and len(data) > 2 * max_nodes and start_tag_bound(data) > max_nodes) or (
        has_long_tag(data)
    ):
        most_attributes = etree.fromstring(data, _parser(_Survey(max_nodes)))
    if most_attributes <= MAX_ATTRIBUTES:
        root = etree.fromstring(data, parser)
        if not stopped_at_limit(parser):
            return root
    return parse_bounded(data, max_nodes=max_nodes, deadline=deadline)


class _Replay:
    """Event target writing the events back as markup, leaving out tags nested past ``MAX_DEPTH`` and
    attributes past ``MAX_ATTRIBUTES``."""

    def __init__(self, max_nodes: int | None, deadline: float | None):
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.parts: list[str] = []
        self.kept: list[bool] = []  # per open element: was its tag written?
        self.depth = 0  # open elements whose tags were written
        self.raw = 0  # open raw-text elements whose tags were written
        self.plaintext = False  # <plaintext> takes the rest of the page as text: no more end tags
        self.count = 0
        self.clamped = 0

    def start(self, tag, attrib) -> None:
        self.count += 1
        if not self.count % _TIME_CHECK_EVERY:
            if self.max_nodes is not None and self.count > self.max_nodes:
                raise _too_many(self.max_nodes)
            if self.deadline is not None and time.perf_counter() > self.deadline:
                from .document import LimitExceeded

                raise LimitExceeded("time_limit", "time budget ran out while reading the page")
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


def parse_bounded(data: bytes, *, max_nodes: int | None = None, deadline: float | None = None):
    """Tree of ``data`` with nesting cut at ``MAX_DEPTH``, attributes at ``MAX_ATTRIBUTES`` and no
    text-size limit (None when empty).
    Raises ``LimitExceeded`` past ``max_nodes`` elements or ``deadline``."""
    replay = _Replay(max_nodes, deadline)
    try:
        markup = etree.fromstring(data, _parser(replay))
    except etree.XMLSyntaxError:
        return None
    if max_nodes is not None and replay.count > max_nodes:
        raise _too_many(max_nodes)
    if not markup.strip():
        return None
    try:
        return etree.fromstring(markup.encode("utf-8", "replace"), _parser())
    except etree.XMLSyntaxError:
        return None
