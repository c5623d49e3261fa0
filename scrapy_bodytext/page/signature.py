"""How a page is built around its selection (the template signature) and the links its selection
holds: what site memory compares across the pages of one site (docs/site-memory.md)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from urllib.parse import urldefrag, urljoin, urlsplit

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


# ------------------------------------------------------------------------------ page-level signals
#: the link texts that open a post from a list of excerpts, in the languages most often met; chosen
#: from how blog and news themes word their "more" links, normalised as ``_link_words`` reads a
#: link (lowercased, punctuation, arrows and ellipses dropped, white space folded)
READ_MORE = frozenset(
    (
        "read more",
        "read the rest",
        "read the full post",
        "read full post",
        "read the full article",
        "read full article",
        "read the full story",
        "full story",
        "continue reading",
        "keep reading",
        "more",
        "weiterlesen",
        "mehr lesen",
        "mehr",
        "leia mais",
        "continue lendo",
        "ler mais",
        "leer más",
        "leer mas",
        "seguir leyendo",
        "sigue leyendo",
        "lire la suite",
        "lire plus",
        "en savoir plus",
        "continua a leggere",
        "leggi tutto",
        "leggi di più",
        "lees meer",
        "verder lezen",
        "czytaj więcej",
        "czytaj dalej",
        "читать далее",
        "читать дальше",
        "подробнее",
        "devamını oku",
        "läs mer",
        "les mer",
        "læs mere",
        "lue lisää",
        "阅读全文",
        "阅读更多",
        "閱讀全文",
        "继续阅读",
        "続きを読む",
        "もっと読む",
        "더 보기",
        "더보기",
        "자세히 보기",
    )
)
#: a signal counts from this many occurrences on the page (one "read more" or one heading link is
#: a related-post box as often as a list)
SIGNAL_MIN = {"read_more": 2, "times": 3, "heading_links": 3}
#: the signals, in a fixed order: several "read more" links, several ``<time>`` elements, several
#: same-site links inside headings, an ``og:type`` other than ``article``, a feed of the page's own
#: path, no date at all (no ``<time>`` element, no declared publication date: a post is dated, a
#: service page is not)
SIGNALS = ("read_more", "times", "heading_links", "not_og_article", "own_feed", "undated")
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
_LINK_NOISE_RE = re.compile(r"[^\w\s]+")
#: link texts longer than this are titles, not "more" links
_MAX_MORE_CHARS = 40


def _link_words(anchor) -> str:
    text = "".join(anchor.itertext()) if len(anchor) else (anchor.text or "")
    if len(text) > _MAX_MORE_CHARS * 2:
        return ""
    return " ".join(_LINK_NOISE_RE.sub(" ", text.lower()).split())


def _host(url: str | None) -> str:
    try:
        return (urlsplit(url or "").hostname or "").removeprefix("www.")
    except ValueError:
        return ""


def page_signals(doc: Document) -> tuple[str, ...]:
    """The page-level signals the page shows (names of ``SIGNALS``), from the columns of its one
    parsed ``Document`` and its head's claims: what site memory compares with its site's confirmed
    articles. Not an input of the page judge; a page it cannot read shows none."""
    return read_page_signals(doc)[0]


def read_page_signals(doc: Document) -> tuple[tuple[str, ...], str]:
    """``page_signals`` and, when reading them failed (a bug: the page then shows none), the failure
    in one line ("" when none), so that a caller can count it and say it."""
    try:
        return _signals(doc), ""
    except (AttributeError, TypeError, ValueError) as exc:
        return (), f"{type(exc).__name__}: {exc}"


def _signals(doc: Document) -> tuple[str, ...]:
    tags, elements = doc.tags, doc.elements
    host = _host(doc.url)
    more = times = heading_links = 0
    for index, tag in enumerate(tags):
        if tag == "a":
            if _link_words(elements[index]) in READ_MORE:
                more += 1
        elif tag == "time":
            times += 1
        elif tag in _HEADINGS:
            for anchor in elements[index].iter("a"):
                href = (anchor.get("href") or "").strip()
                if href and not href.startswith("#"):
                    try:
                        target = urljoin(doc.url or "", href)
                    except ValueError:
                        continue
                    if _host(target) == host:
                        heading_links += 1
    found = []
    if more >= SIGNAL_MIN["read_more"]:
        found.append("read_more")
    if times >= SIGNAL_MIN["times"]:
        found.append("times")
    if heading_links >= SIGNAL_MIN["heading_links"]:
        found.append("heading_links")
    og_type = doc.og_type
    if og_type and og_type != "article" and not og_type.startswith("article"):
        found.append("not_og_article")
    feeds = doc.claims.feeds
    if feeds and doc.url and _own_feed(doc.url, feeds):
        found.append("own_feed")
    if not times and not doc.published:
        found.append("undated")
    return tuple(found)


def _own_feed(url: str, feeds: Sequence[str]) -> bool:
    """A feed whose path lies under the page's own path (``/tag/x/`` and ``/tag/x/feed/``), the home
    page's excepted (every page of many sites links the site's feed)."""
    try:
        page = urlsplit(url)
    except ValueError:
        return False
    path = page.path.rstrip("/")
    if not path:
        return False
    for feed in feeds:
        try:
            target = urlsplit(urljoin(url, feed))
        except ValueError:
            continue
        if _host(target.geturl()) == _host(url) and target.path.rstrip("/").startswith(path + "/"):
            return True
    return False
