"""What the page shows readers about its article, for pages that declare little: the ``<h1>``
headline, the byline (an element marked as author or byline by its class, id, ``rel`` or
``itemprop``) and the dates (``<time>`` elements, dated byline lines).

Bylines and date lines sit next to the headline, so only the elements around the headline's
``<h1>`` (``BEFORE`` elements before it, ``AFTER`` after it, in document order; the start of the
body when there is no ``<h1>``) are looked at, each by at most ``MAX_TEXT`` characters of text, the
nearest to the headline first. Comment threads, related-story lists, navigation and asides are
passed over: names and dates there belong to other texts. The containers that hold the headline
itself hold the article, whatever their classes say ("article--with-sidebar", "widget-container").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from lxml import etree

from .authors import split_names
from .dates import parse_date, remove_dates
from .title import letters, shows_title

#: elements looked at before and after the headline, of the kinds that hold bylines and dates
BEFORE = 20
AFTER = 100
TEXT_TAGS = (
    "div",
    "span",
    "p",
    "a",
    "li",
    "td",
    "dd",
    "dt",
    "address",
    "small",
    "strong",
    "b",
    "em",
    "i",
    "cite",
    "font",
    "section",
    "header",
    "footer",
    "article",
    "time",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
)
MAX_TEXT = 300
#: ancestors looked at when deciding whether an element belongs to another text
ANCESTORS = 12

# Patterns are matched against lower-cased text: case-insensitive alternations are several times
# slower in ``re`` and run on every marked element.
_AUTHOR_RE = re.compile(
    r"byline|author(?!i[stz])|writer|autor(?!i[stz])|auteur|reporter|journalist|creator|"
    r"posted-?by|contributor|by-line|verfasser"
)
_DATE_RE = re.compile(r"date|time|publish|posted|dateline|byline|datum|fecha|stamp|meta")
#: class/id words of places whose names and dates are not the article's
_ELSEWHERE_RE = re.compile(
    r"comment|related|recommend|teaser|sidebar|widget|footer|nav|menu|breadcrumb|popular|trending|"
    r"newsletter|promo(?!ted)|embed|tweet|avatar|about-author|author-?bio|author-?box|reply|respond|"
    r"caption|credit|copyright|bild|foto|photo|image|img|media|gallery"
)
#: class/id words of the page's furniture around every article (where a site's name is repeated)
_FURNITURE_RE = re.compile(r"footer|copyright|(?<![a-z])nav(?:bar|igation)?(?![a-z])|menu|breadcrumb")
#: how a byline line starts when no class marks it ("By Jane Doe", "von Max Muster", "Autor: ...")
_BYLINE_START_RE = re.compile(
    r"\s*(?:(?:written |posted |reported |story |words |text )?by|von|par|por|door|przez|"
    r"autor(?:in)?(?:/autor)?|author|text|texto|testo|作者|記者|记者)(?:\s*[:：]|\s+|$)"
)
#: the path of a link to an author's page ("/author/jane-doe/", "/autoren/max-muster")
_AUTHOR_HREF_RE = re.compile(
    r"/(?:authors?|autor(?:en|in)?|auteurs?|autori?|journalists?|journalist(?:in|en)|"
    r"redakteur(?:in)?|columnists?|contributors?|writers?|staff)/[^/?#]+/?(?:[?#]|$)"
)
#: attributes that mark what an element holds
_MARKING = frozenset(("class", "id", "itemprop", "rel"))
#: first letters of those starts (a cheap test before the pattern)
_BYLINE_FIRST = frozenset("bvpdatw作記记")
#: any of the words of ``_AUTHOR_RE`` and ``_DATE_RE``
_MARKED_RE = re.compile(f"{_AUTHOR_RE.pattern}|{_DATE_RE.pattern}")
#: containers whose classes describe what they hold (a post "by" someone, a list), not a byline line
_CONTAINER_TAGS = frozenset(("article", "section", "header", "footer", "ul"))
_ELSEWHERE_TAGS = frozenset(("nav", "aside", "footer", "form", "figure", "figcaption"))
#: a byline line found by how it starts is at most this long
MAX_BYLINE_LINE = 150
_UPDATED_RE = re.compile(
    r"updat|modif|edited|revis|reviewed|aktualisiert|actualiz|mis à jour|geändert|geprüft|"
    r"überarbeitet|aggiornat|atualizad|bijgewerkt"
)
#: elements of the body looked at for a marked byline or date line when nothing near the headline has
#: one, and for the headline of a page without ``<h1>``
MAX_SCAN = 1000
#: letters of a headline looked for by its text
MIN_HEADLINE = 12
#: a short text that may state a date (a date takes at least 6 characters)
MIN_DATE_LINE = 6
MAX_DATE_LINE = 80
#: items of a list looked at to tell a list of dated stories
MAX_ITEMS = 12
#: words besides the date in a short dated text that no class marks as a date
MAX_LABEL_WORDS = 4
#: characters before a date read for its label ("Updated on", "Published:")
LABEL_CHARS = 40
#: elements that are the items of a list of stories when their siblings are of the same kind
_ITEM_TAGS = frozenset(("li", "article"))
#: elements whose ``<footer>`` is the article's own (its author and date), not the page's
_SECTIONS = frozenset(("article", "header"))


def text_of(el, limit: int = MAX_TEXT * 2) -> str:
    """The element's text, whitespace collapsed, read no further than about ``limit`` characters."""
    pieces, size = [], 0
    for piece in el.itertext():
        pieces.append(piece)
        size += len(piece)
        if size > limit:
            break
    return " ".join("".join(pieces).split())[:limit]


_VISIBLE_TEXTS = etree.XPath(".//text()[not(ancestor::script)][not(ancestor::style)]")


def byline_text(el) -> str:
    """The text of a byline element, a line break between the texts of its parts, so that a name
    and the label or date in the next element are not read as one ("Jane Doe" / "Health News")."""
    if len(text_of(el, MAX_TEXT + 1)) > MAX_TEXT:
        return ""  # a container, not a byline
    pieces = _VISIBLE_TEXTS(el)
    return "\n".join(" ".join(piece.split()) for piece in pieces if piece.strip())[: MAX_TEXT * 2]


def _marks(el) -> str:
    """Class and id of an element, lower-cased."""
    return f"{el.get('class') or ''} {el.get('id') or ''}".lower()


def elsewhere(el, article: frozenset = frozenset(), layout: tuple[str, ...] = ()) -> bool:
    """Inside a comment thread, related list, navigation, aside or the page's footer (within
    ``ANCESTORS``, below ``<body>``, whose classes describe the whole page, and below ``article``:
    the containers of the headline, which hold the article whatever their classes say). ``layout``:
    the class words of those containers that name other content (``layout_words``); a page builder
    wraps every block in them ("elementor-widget"), so they say nothing of another container."""
    for node in islice(el.iterancestors(), ANCESTORS):
        if node.tag == "body" or node in article:
            return False
        if node.tag in _ELSEWHERE_TAGS and not (node.tag == "footer" and _in_section(node)):
            return True
        marks = _marks(node)
        if len(marks) > 1 and _ELSEWHERE_RE.search(marks):
            for word in layout:
                marks = marks.replace(word, " ")
            if not layout or _ELSEWHERE_RE.search(marks):
                return True
    return False


def layout_words(containers) -> tuple[str, ...]:
    """The class words of the headline's containers (below ``<body>``) that name other content
    ("elementor-widget-container", "widget"), longest first: the blocks the page is built of."""
    words = {
        word
        for node in containers
        if node.tag not in ("body", "html")
        for word in (node.get("class") or "").lower().split()[:20]
        if _ELSEWHERE_RE.search(word)
    }
    return tuple(sorted(words, key=len, reverse=True))[:8]


def _in_section(footer) -> bool:
    """A ``<footer>`` inside an article or its header: the article's own (its author and date)."""
    return any(node.tag in _SECTIONS for node in islice(footer.iterancestors(), ANCESTORS))


def around(anchor, body) -> list:
    """Elements that may hold a byline or a date (``TEXT_TAGS``) near ``anchor`` in document order
    (``BEFORE`` preceding, ``AFTER`` following); the first ``AFTER`` of ``body`` without an anchor."""
    if anchor is None:
        return [] if body is None else list(islice(body.iterdescendants(*TEXT_TAGS), AFTER))

    def following() -> Iterator:
        yield from anchor.iterdescendants(*TEXT_TAGS)
        node = anchor
        while node is not None and node is not body:
            for sibling in node.itersiblings("*"):
                yield from sibling.iter(*TEXT_TAGS)
            node = node.getparent()

    def preceding() -> Iterator:
        node = anchor
        while node is not None and node is not body:
            for sibling in node.itersiblings("*", preceding=True):
                yield from reversed(list(islice(sibling.iter(*TEXT_TAGS), BEFORE * 10))[-BEFORE:])
            node = node.getparent()

    before = list(islice(preceding(), BEFORE))
    before.reverse()
    return [*before, anchor, *islice(following(), AFTER)]


def shown_headline(body, title: str):
    """For a page without ``<h1>``: the first of the first ``MAX_SCAN`` elements of the body whose
    own text shows the title (at least half of its letters: a ``<title>`` may add the site's name),
    outside navigation, asides and footers (a copyright line names the site that a ``<title>`` may
    be): the headline a page builder writes as a paragraph or a ``<div>``; else ``None``."""
    key = letters(title)
    if body is None or len(key) < MIN_HEADLINE:
        return None
    for el in islice(body.iter(*TEXT_TAGS), MAX_SCAN):
        text = el.text
        if (
            text
            and MIN_HEADLINE <= len(text) <= MAX_TEXT
            and len(text) * 2 >= len(key)
            and el.tag not in _CONTAINER_TAGS
        ):
            shown = letters(text)
            if len(shown) * 2 >= len(key) and shows_title(shown, key) and not _in_furniture(el):
                return el
    return None


def _in_furniture(el) -> bool:
    """Inside the page's navigation, menus, breadcrumbs, asides or footer (by tag or class)."""
    for node in islice(el.iterancestors(), ANCESTORS):
        if node.tag == "body":
            return False
        if node.tag in ("nav", "aside", "footer") or _FURNITURE_RE.search(_marks(node)):
            return True
    return False


def headings(found: list) -> list[str]:
    """The text of each heading element (one entry per element, empty ones too)."""
    return [text_of(el, MAX_TEXT) for el in found]


class Neighbourhood:
    """The marked elements around the headline, sorted in one pass: byline candidates, date line
    candidates and microdata (``itemprop``) elements; ``article``: the headline's containers."""

    def __init__(self, elements: list, anchor=None):
        self.elements = elements
        self.anchor = next((i for i, el in enumerate(elements) if el is anchor), 0)
        self.article = frozenset(anchor.iterancestors()) if anchor is not None else frozenset()
        self.layout = layout_words(self.article)
        self.bylines: list = []
        self.date_lines: list = []
        self.itemprops: dict[str, list] = {}
        for el in elements:
            text = el.text
            if (
                text
                and len(text) <= MAX_BYLINE_LINE
                and text.lstrip()[:1].lower() in _BYLINE_FIRST
                and _BYLINE_START_RE.match(text[:40].lower())
                and el.tag not in ("script", "style")
            ):
                shown = byline_text(el)
                if len(shown.split()) < 2 and len(el) == 0:  # "<b>By</b> <a>Jane Doe</a>": the name follows
                    following = el.getnext()
                    shown = f"{shown}\n{el.tail or ''}\n{byline_text(following) if following is not None else ''}"
                if len(shown) <= MAX_BYLINE_LINE:
                    self.bylines.append((el, shown))
                continue
            names = el.keys()
            if not names:
                continue
            if el.tag == "a" and _AUTHOR_HREF_RE.search((el.get("href") or "")[:300].lower()):
                self.bylines.append((el, None))  # a link to the author's page
                continue
            if _MARKING.isdisjoint(names):
                continue
            get = el.get
            cls, ident, prop = get("class"), get("id"), get("itemprop")
            rel = get("rel") if el.tag == "a" else None
            if not (cls or ident or prop or rel):
                continue
            marks = " ".join(filter(None, (cls, ident, prop, rel))).lower()
            if prop:
                for name in prop.lower().split()[:3]:
                    self.itemprops.setdefault(name, []).append(el)
            if _MARKED_RE.search(marks) is None:  # one search rules out most elements
                continue
            if _AUTHOR_RE.search(marks) and not _ELSEWHERE_RE.search(marks):
                self.bylines.append((el, None))
            if _DATE_RE.search(marks) and el.tag not in ("script", "style", "time"):
                self.date_lines.append(el)

    def elsewhere(self, el) -> bool:
        return elsewhere(el, self.article, self.layout)

    def listed(self, el, lang: str | None) -> bool:
        return in_dated_list(el, lang, self.article)

    def authors(self) -> list[str]:
        """Names in the first byline element (by class, id, ``rel`` or ``itemprop``) that has any."""
        for el, text in self.bylines:
            if self.elsewhere(el):
                continue
            text = text or byline_text(el)
            if not text:
                continue
            names = split_names(text, strict=True)
            if names:
                return names
        return []

    def dates(self, lang: str | None) -> ShownDates:
        """The dates shown next to the headline, the nearest first: ``<time>`` elements, lines marked
        as dates (class, id) and short texts that are a date with at most a short label ("Published
        on May 3, 2025", "17.05.2021"), each read as a publication or, by its label, an update."""
        marked = set(self.date_lines)
        found: list[tuple[tuple[int, bool], str, str, bool]] = []  # (nearness, kind, value, update)
        for position, el in enumerate(self.elements):
            tag = el.tag
            if tag in ("script", "style"):
                continue
            distance = position - self.anchor
            near = (abs(distance), distance < 0)
            if tag == "time":
                text = text_of(el, MAX_TEXT)
                value = parse_date(el.get("datetime"), lang=lang) or parse_date(text, lang=lang)
                if value and not self.elsewhere(el) and not self.listed(el, lang):
                    found.append((near, "time", value, _time_is_update(el, text)))
                continue
            if el in marked:
                text = text_of(el)
                if (
                    0 < len(text) <= MAX_TEXT
                    and (value := parse_date(text, lang=lang))
                    and not self.elsewhere(el)
                    and not self.listed(el, lang)
                ):
                    found.append((near, "line", value, _is_update(text, _before(el))))
            for piece, context in ((el.text, _before), (el.tail, text_of)):
                if not piece or not MIN_DATE_LINE <= len(piece) <= MAX_DATE_LINE * 2:
                    continue
                piece = " ".join(piece.split())
                if (
                    MIN_DATE_LINE <= len(piece) <= MAX_DATE_LINE
                    and not piece.isdigit()
                    and (value := parse_date(piece, lang=lang))
                    and _date_with_label(piece)
                    and not self.elsewhere(el)
                    and not self.listed(el, lang)
                ):
                    found.append((near, "line", value, _is_update(piece, context(el))))
        found.sort(key=lambda item: item[0])
        return ShownDates(
            time=next((value for _, kind, value, update in found if kind == "time" and not update), None),
            line=next((value for _, kind, value, update in found if kind == "line" and not update), None),
            updated=next((value for _, _, value, update in found if update), None),
        )


@dataclass(frozen=True, slots=True)
class ShownDates:
    """Dates the page shows next to its headline: the nearest ``<time>`` and the nearest other dated
    line read as a publication date, and the nearest one labelled as an update."""

    time: str | None = None
    line: str | None = None
    updated: str | None = None


def _before(el) -> str:
    """The text just before an element in its line: the previous sibling's text and tail, else the
    parent's leading text ("Updated on" in ``<p>Updated on <time>...``)."""
    previous = el.getprevious()
    if previous is not None:
        return f"{text_of(previous, LABEL_CHARS)} {previous.tail or ''}"[-LABEL_CHARS:]
    parent = el.getparent()
    return (parent.text or "")[-LABEL_CHARS:] if parent is not None else ""


def in_dated_list(el, lang: str | None, article: frozenset = frozenset()) -> bool:
    """Inside one of several dated items of a list (a list of stories, each with its date: ``<li>``
    items, or ``<article>`` teasers side by side) below the headline's containers (``article``): the
    date is an item's, not the article's."""
    for node in islice(el.iterancestors(), ANCESTORS):
        if node in article or node.tag == "body":
            return False
        if node.tag in _ITEM_TAGS:
            parent = node.getparent()
            items = [] if parent is None else list(islice(parent.iterchildren(node.tag), MAX_ITEMS))
            return sum(1 for item in items if _dated(item, lang)) >= 2
    return False


def _dated(item, lang: str | None) -> bool:
    """Whether a list item shows a date (a ``<time>`` or a date in its first words)."""
    if next(item.iter("time"), None) is not None:
        return True
    return parse_date(text_of(item, MAX_DATE_LINE * 2), lang=lang) is not None


def _date_with_label(text: str) -> bool:
    """A date with at most a short label ("Published on", "By Jane Doe |"), not a sentence that
    mentions a date (a caption, a line of the text)."""
    return len(remove_dates(text, " ").split()) <= MAX_LABEL_WORDS


def _is_update(text: str, context: str) -> bool:
    """Whether the (first) date of a text is labelled as an update ("Updated May 3, 2025", "Last
    modified: ..."): by its own words before it, else by the text just before the element."""
    label = remove_dates(text, "\0").split("\0", 1)[0]
    label = label if any(c.isalpha() for c in label) else context
    return _UPDATED_RE.search(label[-LABEL_CHARS:].lower()) is not None


def _time_is_update(el, text: str) -> bool:
    """A ``<time>`` marked as an update by its class, ``itemprop`` or text, its parent's class, or
    the label just before it."""
    parent = el.getparent()
    marks = f"{_marks(el)} {el.get('itemprop') or ''} {_marks(parent) if parent is not None else ''}"
    return _UPDATED_RE.search(marks.lower()) is not None or _is_update(text[:MAX_DATE_LINE], _before(el))


def marked_time(
    times: list, lang: str | None, article: frozenset = frozenset(), layout: tuple[str, ...] = ()
) -> str | None:
    """The date of a ``<time>`` marked as the publication date (``itemprop``, ``pubdate``), not in
    comments or related lists."""
    for el in times:
        prop = (el.get("itemprop") or "").lower()
        if prop in ("datepublished", "datecreated") or el.get("pubdate") is not None:
            published = parse_date(el.get("datetime") or el.get("content"), lang=lang)
            if published and not elsewhere(el, article, layout):
                return published
    return None


@dataclass(frozen=True, slots=True)
class MarkedLines:
    """The first byline and the first date line marked as such anywhere in the page."""

    names: tuple[str, ...] = ()
    date: str | None = None


def marked_lines(body, lang: str | None, article: frozenset = frozenset(), layout: tuple[str, ...] = ()) -> MarkedLines:
    """For pages whose headline is far from their byline or date line, one walk over the first
    ``MAX_SCAN`` elements of the body: the names in the first element marked as a byline or author
    (class, id, ``itemprop``, ``rel``) and the first date in a short line marked as a date ("post-date",
    "entry-meta") not labelled as an update, both outside comments, related lists, author boxes and
    lists of dated stories."""
    names: list[str] = []
    found_date = None
    if body is None:
        return MarkedLines()
    for el in islice(body.iter(*TEXT_TAGS), MAX_SCAN):
        if el.tag in _CONTAINER_TAGS:
            continue
        get = el.get
        cls, ident, prop = get("class"), get("id"), get("itemprop")
        rel = get("rel")
        if not (cls or ident or prop or rel):
            continue
        marks = " ".join(filter(None, (cls, ident, prop, rel))).lower()
        if _MARKED_RE.search(marks) is None or _ELSEWHERE_RE.search(marks):
            continue
        if not names and _AUTHOR_RE.search(marks) and not elsewhere(el, article, layout):
            names = split_names(byline_text(el), strict=True)
        if found_date is None and el.tag != "time" and _DATE_RE.search(marks) and not _UPDATED_RE.search(marks):
            text = text_of(el, MAX_DATE_LINE)
            value = parse_date(text, lang=lang) if MIN_DATE_LINE <= len(text) <= MAX_DATE_LINE else None
            if (
                value
                and not _is_update(text, _before(el))
                and not elsewhere(el, article, layout)
                and not in_dated_list(el, lang, article)
            ):
                found_date = value
        if names and found_date:
            break
    return MarkedLines(tuple(names), found_date)


def time_dates(
    times: list, lang: str | None, article: frozenset = frozenset(), layout: tuple[str, ...] = ()
) -> tuple[str | None, str | None]:
    """(published, modified) from the page's ``<time>`` elements, wherever they are: the first not
    inside comments, related lists or a list of dated stories, and the first marked as an update."""
    published = modified = None
    for el in times:
        if elsewhere(el, article, layout):
            continue
        text = text_of(el, MAX_TEXT)
        value = parse_date(el.get("datetime"), lang=lang) or parse_date(text, lang=lang)
        if value is None:
            continue
        if _time_is_update(el, text):
            modified = modified or value
        elif published is None and not in_dated_list(el, lang, article):
            published = value
        if published and modified:
            break
    return published, modified
