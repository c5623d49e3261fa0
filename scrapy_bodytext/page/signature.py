"""How a page is built around its selection (the template signature) and the links its selection
holds: what site memory compares across the pages of one site (docs/site-memory.md)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from urllib.parse import urldefrag, urljoin

from .document import Document

#: links of a selection kept at most (a listing of a few hundred posts says all there is to say)
MAX_LINKS = 300
#: class words kept per element (the first ones in the page's order: the template's own words come
#: first, words naming one page's things — its category, its tags — come later)
CLASS_WORDS = 2
#: elements a selection of one paragraph may end in: the container is the block around them
_INLINE_TAGS = frozenset("p span a em strong b i u code pre blockquote small font br img h1 h2 h3 h4 h5 h6".split())
#: the characters of the hex digest kept
SIGNATURE_CHARS = 12

_NUMBER_RE = re.compile(r"\d+")
#: a class word that names one thing rather than a kind: several digits, or a long hexadecimal run
_ID_WORD_RE = re.compile(r"(?:\D*\d){3}|[0-9a-f]{12}")


def _label(el) -> str:
    """An element as a template sees it: tag and its first class words, numbers abstracted (ids, which
    name one page's things, are left out)."""
    tag = el.tag if isinstance(el.tag, str) else "?"
    classes = el.get("class")
    if not classes:
        return tag
    words = [_NUMBER_RE.sub("0", word) for word in classes.split() if not _ID_WORD_RE.search(word)][:CLASS_WORDS]
    if not words:
        return tag
    return tag + "." + ".".join(words)


def container(doc: Document, slots: Sequence[int]) -> int:
    """The innermost element holding every selected slot (``0``, the body, when nothing is selected)."""
    if not slots:
        return 0
    owners, parents, ends = doc.owners, doc.parents, doc.ends
    first, last = owners[slots[0]], owners[slots[-1]]
    node = first
    while node > 0 and not (node <= last < ends[node]):
        node = parents[node]
    while node > 0 and doc.tags[node] in _INLINE_TAGS:
        node = parents[node]
    return max(node, 0)


def template_signature(doc: Document, slots: Sequence[int]) -> str:
    """A short hash of the tag/class path from the body to the selection's container and of the page's
    top-level skeleton (the body's children and theirs): pages of one template share it, a post and
    a list of posts of one site do not."""
    parents, elements = doc.parents, doc.elements
    node = container(doc, slots)
    # the container with its class words, its ancestors by tag, the body with its words
    path = [_label(elements[node])]
    node = parents[node]
    while node >= 0:
        path.append(_label(elements[node]) if node == 0 else doc.tags[node])
        node = parents[node]
    skeleton = []
    for child in elements[0] if elements else ():
        if isinstance(child.tag, str):
            inside = sorted({_label(g) for g in child if isinstance(g.tag, str)})  # a run of like children once
            skeleton.append(_label(child) + "(" + ",".join(inside) + ")")
    key = ">".join(reversed(path)) + "|" + ",".join(skeleton)
    return hashlib.blake2b(key.encode("utf-8", "replace"), digest_size=16).hexdigest()[:SIGNATURE_CHARS]


def selection_links(doc: Document, slots: Sequence[int], limit: int = MAX_LINKS) -> tuple[str, ...]:
    """Absolute URLs (fragment dropped) of the links inside the selection, in page order, each once."""
    found: dict[str, None] = {}
    is_link, owners, parents, tags, elements = doc.links, doc.owners, doc.parents, doc.tags, doc.elements
    seen_anchors: set[int] = set()
    for slot in slots:
        if not is_link[slot]:
            continue
        node = owners[slot]
        while node > 0 and tags[node] != "a":
            node = parents[node]
        if tags[node] != "a" or node in seen_anchors:
            continue
        seen_anchors.add(node)
        href = (elements[node].get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:", "data:")):
            continue
        try:
            absolute = urldefrag(urljoin(doc.url, href) if doc.url else href)[0]
        except ValueError:  # a malformed URL (an unclosed IPv6 bracket, ...) is no link
            continue
        found[absolute] = None
        if len(found) >= limit:
            break
    return tuple(found)
