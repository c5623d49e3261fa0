"""Link roles: what a link to another page of the same site most likely leads to, before it is
fetched: an ``article``, the next or previous page of a list (``pagination``), another list
(``listing``: a section, tag, category, author or date archive), a ``feed``, a ``service`` page
(about, contact, legal, search, sign-in) or anything ``other``; each with a probability and a reason.

Two sources, no Scrapy: what the site has confirmed of the link's URL shape (counts under the site
memory's field names, ``sa:``/``sn:`` per shape and ``da:``/``dn:`` per date-anchored shape, see
``evidence``), and, before the site has such evidence, general priors read from the URL and its
anchor (docs/steering.md): a date or a long slug in the path, pagination words and parameters in
many languages, the words sites name their lists and service pages with, an anchor's text length,
whether it sits in a heading, ``rel=next``/``prev``. Nothing here knows any particular site.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from ..page.signature import READ_MORE
from .evidence import ARTICLE_SHAPE_COUNT, ARTICLE_SHAPE_RATIO
from .shapes import dated_shape, url_shape

ROLES = ("article", "pagination", "listing", "feed", "service", "other")

#: path words (and query names) that number the pages of a list, in the languages most often met
PAGE_WORDS = frozenset(
    (
        "page",
        "pages",
        "paged",
        "pg",
        "seite",
        "pagina",
        "página",
        "paginas",
        "pagine",
        "strona",
        "sida",
        "side",
        "sivu",
        "oldal",
        "stranica",
        "strana",
        "страница",
        "стр",
        "halaman",
        "trang",
        "sayfa",
        "blz",
        "pagenum",
        "pageno",
        "page_no",
        "pagenumber",
    )
)
#: query names that number the pages of a list besides those (``?p=`` names a post on many sites)
PAGE_PARAMS = PAGE_WORDS | {"start", "offset"}
#: anchor texts of a link to the next or previous page of a list (lowercased, punctuation dropped)
PAGER_TEXTS = frozenset(
    (
        "next",
        "next page",
        "previous",
        "previous page",
        "prev",
        "older",
        "older posts",
        "older entries",
        "older articles",
        "newer",
        "newer posts",
        "newer entries",
        "more posts",
        "load more",
        "weiter",
        "nächste",
        "nächste seite",
        "vorherige",
        "zurück",
        "ältere beiträge",
        "neuere beiträge",
        "suivant",
        "page suivante",
        "précédent",
        "articles plus anciens",
        "siguiente",
        "anterior",
        "próxima",
        "página siguiente",
        "entradas anteriores",
        "successivo",
        "successiva",
        "precedente",
        "volgende",
        "vorige",
        "następna",
        "poprzednia",
        "следующая",
        "предыдущая",
        "下一页",
        "上一页",
        "次へ",
        "前へ",
        "다음",
        "이전",
        "sonraki",
        "önceki",
        "nästa",
        "neste",
        "næste",
        "seuraava",
    )
)
#: path words naming a list of posts (sections, terms, authors, archives) in many languages
LISTING_WORDS = frozenset(
    (
        "tag",
        "tags",
        "tagged",
        "category",
        "categories",
        "cat",
        "topic",
        "topics",
        "subject",
        "subjects",
        "keyword",
        "keywords",
        "label",
        "labels",
        "series",
        "section",
        "sections",
        "author",
        "authors",
        "archive",
        "archives",
        "kategorie",
        "kategorien",
        "schlagwort",
        "schlagworte",
        "stichwort",
        "thema",
        "themen",
        "autor",
        "autoren",
        "archiv",
        "categoria",
        "categorias",
        "categorie",
        "etiqueta",
        "etiquetas",
        "tema",
        "temas",
        "autore",
        "autores",
        "rubrique",
        "rubriques",
        "auteur",
        "auteurs",
        "mot-cle",
        "argomenti",
        "kategoria",
        "tagi",
        "rubrik",
        "etiket",
        "kategori",
        "рубрика",
        "тег",
        "метка",
    )
)
#: first words of service pages' path segments (about, contact, legal, account, search, shop)
SERVICE_WORDS = frozenset(
    (
        "about",
        "contact",
        "imprint",
        "impressum",
        "privacy",
        "datenschutz",
        "terms",
        "tos",
        "legal",
        "cookies",
        "cookie",
        "disclaimer",
        "login",
        "signin",
        "sign-in",
        "logout",
        "register",
        "signup",
        "account",
        "search",
        "cart",
        "checkout",
        "subscribe",
        "newsletter",
        "donate",
        "support",
        "sitemap",
        "kontakt",
        "uber",
        "über",
        "mentions",
        "contacto",
        "contatti",
        "chi-siamo",
        "quienes",
        "sobre",
        "wp-login",
        "wp-admin",
        "cdn-cgi",
        "404",
    )
)
FEED_ENDINGS = ("/feed", "/rss", "/atom", ".xml", ".rss", ".atom", "/feed.json")
#: an anchor of this many words at least reads as a title (a post's), not as a menu entry
TITLE_WORDS = 4
#: a slug of this many words at least is a post's
SLUG_WORDS = 3
_WORD_SPLIT = re.compile(r"[-_+.,\s]+")
_NOISE = re.compile(r"[^\w\s]+")
_DATE_ONLY = re.compile(r"^(?:/\{(?:year|month|day|date)\})+/?$")


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a link sits: its text, whether it is inside a heading, its ``rel`` words (lowercased)."""

    text: str = ""
    heading: bool = False
    rel: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LinkRole:
    role: str  # one of ROLES
    probability: float  # that the role is right
    reason: str  # why, in a few words


#: a link whose anchor is not known
NO_ANCHOR = Anchor()


def shape_names(url: str) -> list[str]:
    """The field names of the site memory whose counts ``link_role`` reads for ``url``."""
    shape = url_shape(url)
    dated = dated_shape(shape)
    names = [f"sa:{shape}", f"sn:{shape}"]
    if dated:
        names += [f"da:{dated}", f"dn:{dated}"]
    return names


def link_role(url: str, anchor: Anchor = NO_ANCHOR, counts: Mapping[str, int] | None = None) -> LinkRole:
    """The role of a same-site link to ``url``: from what the site confirmed of its URL shape
    (``counts`` by the names ``shape_names`` gives; missing names count 0) where it has, else the
    general priors of the URL and the anchor."""
    prior = prior_role(url, anchor)
    if prior.role in ("feed", "service"):
        return prior
    shape = url_shape(url)
    counts = counts or {}
    for kind, key in (("shape", shape), ("date-anchored shape", dated_shape(shape))):
        if not key:
            continue
        prefix = "s" if kind == "shape" else "d"
        articles, others = counts.get(f"{prefix}a:{key}", 0), counts.get(f"{prefix}n:{key}", 0)
        if articles + others < ARTICLE_SHAPE_COUNT:
            continue
        said = f"its {kind} {key}: {articles} articles, {others} others"
        share = (articles + 1) / (articles + others + 2)
        if articles >= ARTICLE_SHAPE_COUNT and articles >= ARTICLE_SHAPE_RATIO * others:
            if prior.role == "pagination" and "rel" in prior.reason:
                return prior  # a pager's link to the next page of one-post pages
            return LinkRole("article", share, said)
        if others >= ARTICLE_SHAPE_COUNT and others >= ARTICLE_SHAPE_RATIO * articles:
            role = prior.role if prior.role != "article" else "other"
            return LinkRole(role, max(prior.probability, 1 - share), f"{said}; {prior.reason}")
        return LinkRole(prior.role, min(prior.probability, 0.6), f"{said} (mixed); {prior.reason}")
    return prior


def prior_role(url: str, anchor: Anchor = NO_ANCHOR) -> LinkRole:
    """The role the URL and its anchor suggest before a site has evidence (general priors only)."""
    parts = urlsplit(url)
    path = unquote(parts.path).lower()
    segments = [segment for segment in path.split("/") if segment]
    if path.rstrip("/").endswith(FEED_ENDINGS) or "alternate" in anchor.rel:
        return LinkRole("feed", 0.95, "a feed's path")
    if segments and len(segments) <= 2 and _WORD_SPLIT.split(segments[-1])[0] in SERVICE_WORDS:
        return LinkRole("service", 0.85, f"a service word: {segments[-1]}")
    if "next" in anchor.rel or "prev" in anchor.rel or "previous" in anchor.rel:
        return LinkRole("pagination", 0.95, "rel=next/prev")
    query = parse_qsl(parts.query)
    if any(name.lower() in PAGE_PARAMS and value.isdigit() for name, value in query):
        return LinkRole("pagination", 0.9, "a page parameter")
    if _paged(segments):
        return LinkRole("pagination", 0.9, "a page number in the path")
    text = " ".join(_NOISE.sub(" ", anchor.text.lower()).split())
    if text in PAGER_TEXTS or (text.isdigit() and len(text) <= 4):
        return LinkRole("pagination", 0.7, f"a pager's anchor: {text}")
    if not segments:
        return LinkRole("listing", 0.9, "the home page")
    if any(segment in LISTING_WORDS for segment in segments[:-1]) or segments[0] in LISTING_WORDS:
        return LinkRole("listing", 0.85, "a list's word in the path")
    shape = url_shape(url)
    if _DATE_ONLY.match(shape.partition("?")[0]):
        return LinkRole("listing", 0.85, "a date archive")
    if dated_shape(shape):
        return LinkRole("article", 0.85, "a date and a name in the path")
    last = segments[-1]
    stem = last.rsplit(".", 1)[0] if "." in last else last
    words = [word for word in _WORD_SPLIT.split(stem) if word]
    if len(words) >= SLUG_WORDS or len(stem) >= 16:
        probability = 0.85 if anchor.heading or len(text.split()) >= TITLE_WORDS else 0.7
        return LinkRole("article", probability, "a long slug")
    if anchor.heading:
        return LinkRole("article", 0.65, "a heading's link")
    if text in READ_MORE:
        return LinkRole("article", 0.65, f"a read-more anchor: {text}")
    if len(text.split()) >= TITLE_WORDS:
        return LinkRole("article", 0.6, "a title's anchor")
    if len(segments) == 1:
        return LinkRole("listing", 0.55, "a section's short path")
    return LinkRole("other", 0.5, "no prior")


def _paged(segments: list[str]) -> bool:
    for index, segment in enumerate(segments):
        if segment in PAGE_WORDS and index + 1 < len(segments) and segments[index + 1].isdigit():
            return True
        word = segment.rstrip("0123456789")
        if word != segment and word.rstrip("-_") in PAGE_WORDS:
            return True
    return False


def link_shape(url: str) -> str:
    """The URL shape with the term after a list's word abstracted (``/tag/python/`` and ``/tag/rust/``
    are both ``/tag/{term}/``): the pages of one kind of list share it."""
    shape = url_shape(url)
    path, mark, query = shape.partition("?")
    segments = path.split("/")
    for index in range(1, len(segments)):
        if segments[index - 1] in LISTING_WORDS and segments[index] and segments[index] not in PAGE_WORDS:
            segments[index] = "{term}"
    return "/".join(segments) + mark + query


def list_key(url: str) -> str:
    """The list a page of a pagination belongs to: its URL without the page number (``/tag/x/page/3/``
    and ``/tag/x/?page=3`` are both ``/tag/x/``)."""
    parts = urlsplit(url)
    segments = parts.path.split("/")
    kept: list[str] = []
    skip = False
    for index, segment in enumerate(segments):
        if skip:
            skip = False
            continue
        low = unquote(segment).lower()
        if low in PAGE_WORDS and index + 1 < len(segments) and segments[index + 1].isdigit():
            skip = True
            continue
        word = low.rstrip("0123456789")
        if word != low and word.rstrip("-_") in PAGE_WORDS:
            continue
        kept.append(segment)
    query = "&".join(f"{name}={value}" for name, value in parse_qsl(parts.query) if name.lower() not in PAGE_PARAMS)
    path = "/".join(kept) or "/"
    return f"{parts.netloc}{path}" + (f"?{query}" if query else "")
