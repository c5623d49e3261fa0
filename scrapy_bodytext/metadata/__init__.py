"""Page metadata (headline, dates, authors, language, canonical URL, site name, description, lead
image, tags, section) read from the parsed page before it is cleaned.

``read_metadata(root, url)`` is a pure function of the lxml tree and the page URL: it never changes
the tree and never raises for content. Sources in order of trust: schema.org JSON-LD, ``<meta>``
declarations (Open Graph, ``article:*``, Dublin Core, ...), microdata, ``<time>`` elements, the URL
path, and last what the page shows (byline, dated lines, ``<h1>``). A value no source states is
``None`` or empty, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from urllib.parse import urljoin, urlsplit

from . import jsonld
from .authors import names_from
from .dates import date_in_url, parse_date
from .declared import Declared, clip, collect
from .language_tag import bcp47
from .title import choose_title, is_site_name, letters, shows_title, site_names, unescape
from .visible import (
    MarkedLines,
    Neighbourhood,
    around,
    headings,
    marked_lines,
    marked_time,
    shown_headline,
    text_of,
    time_dates,
)

__all__ = ["FLAG_PUBLISHED_KEYS", "PageMetadata", "read_declared", "read_metadata", "result_values"]

#: tags returned at most
MAX_TOPICS = 30

#: declared keys, most trusted first
PUBLISHED_KEYS = (
    "article:published_time",
    "og:article:published_time",
    "datepublished",
    "og:published_time",
    "published_time",
    "article:published",
    "pubdate",
    "publishdate",
    "publish-date",
    "publish_date",
    "publication_date",
    "date.published",
    "dc.date.issued",
    "dcterms.issued",
    "dc.date.created",
    "dcterms.created",
    "citation_publication_date",
    "citation_date",
    "sailthru.date",
    "parsely-pub-date",
    "article.published",
    "article_date_original",
    "original-publish-date",
    "cxenseparse:recs:publishtime",
    "datecreated",
    "dc.date",
    "dcterms.date",
    "date",
    "pdate",
    "displaydate",
    "release_date",
)
MODIFIED_KEYS = (
    "article:modified_time",
    "og:article:modified_time",
    "datemodified",
    "og:updated_time",
    "article:modified",
    "dcterms.modified",
    "dc.date.modified",
    "last-modified",
    "lastmod",
    "article_date_updated",
    "dateupdated",
    "updated_time",
    "revised",
)
AUTHOR_KEYS = (
    "author",
    "article:author",
    "og:article:author",
    "dc.creator",
    "dcterms.creator",
    "parsely-author",
    "sailthru.author",
    "byl",
    "citation_author",
    "article.author",
    "byline",
    "authors",
)
TITLE_KEYS = (
    "og:title",
    "twitter:title",
    "dc.title",
    "dcterms.title",
    "headline",
    "parsely-title",
    "sailthru.title",
    "title",
)
SITE_KEYS = (
    "og:site_name",
    "application-name",
    "apple-mobile-web-app-title",
    "dc.publisher",
    "publisher",
    "twitter:app:name:iphone",
)
DESCRIPTION_KEYS = (
    "og:description",
    "description",
    "twitter:description",
    "dc.description",
    "dcterms.description",
    "sailthru.description",
)
IMAGE_KEYS = (
    "og:image",
    "og:image:url",
    "og:image:secure_url",
    "twitter:image",
    "twitter:image:src",
    "thumbnailurl",
    "image",
)
TAG_KEYS = ("article:tag", "og:article:tag", "news_keywords", "keywords", "parsely-tags", "sailthru.tags")
SECTION_KEYS = (
    "article:section",
    "og:article:section",
    "parsely-section",
    "section",
    "category",
    "articlesection",
    "dc.subject",
)
LANGUAGE_KEYS = ("content-language", "og:locale", "dc.language", "dcterms.language", "language", "inlanguage")
_NOT_PUBLISHED = re.compile(r"modif|updat|expir|end|edit|revis|last")


def publication_like(key: str) -> bool:
    """Other ``<meta>`` names read as a publication date (after ``PUBLISHED_KEYS``): a site's own
    ``...publishtime``, ``pub_date``, ``date-published``; not expiry, update or modification dates."""
    return ("pub" in key or "issued" in key) and ("date" in key or "time" in key) and _NOT_PUBLISHED.search(key) is None


#: ``<meta>`` names behind the page declarations the methods weigh (``page.claims``): a publication
#: date is declared, the Open Graph type, the content language
FLAG_PUBLISHED_KEYS = frozenset(
    (
        "article:published_time",
        "datepublished",
        "date",
        "pubdate",
        "publishdate",
        "dc.date.issued",
        "sailthru.date",
        "parsely-pub-date",
        "og:article:published_time",
    )
)
DECLARATION_KEYS = frozenset((*FLAG_PUBLISHED_KEYS, "og:type", "content-language"))
#: every ``<meta>`` name read (and those the page declarations need)
META_KEYS = frozenset(
    (
        *PUBLISHED_KEYS,
        *MODIFIED_KEYS,
        *AUTHOR_KEYS,
        *TITLE_KEYS,
        *SITE_KEYS,
        *DESCRIPTION_KEYS,
        *IMAGE_KEYS,
        *TAG_KEYS,
        *SECTION_KEYS,
        *LANGUAGE_KEYS,
        "og:url",
        *DECLARATION_KEYS,
    )
)


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """What a page states about itself. Dates are ISO 8601 as the page states them."""

    title: str = ""
    published: str | None = None
    modified: str | None = None
    authors: tuple[str, ...] = ()
    language: str | None = None  # BCP 47, as declared
    canonical_url: str | None = None
    site_name: str | None = None
    description: str | None = None
    image: str | None = None
    tags: tuple[str, ...] = ()
    section: str | None = None


def read_declared(root) -> Declared:
    """The one walk over a page's declaring tags that metadata and the page declarations share."""
    return collect(root, META_KEYS, publication_like)


def read_metadata(root, url: str | None = None, declared: Declared | None = None) -> PageMetadata:
    """Metadata of the page parsed into ``root`` (an lxml element; ``None`` gives empty metadata);
    ``declared``: its ``read_declared`` walk when already done."""
    if root is None:
        return PageMetadata()
    if declared is None:
        declared = read_declared(root)
    parts: set[int] = set()
    found = jsonld.objects(declared.scripts, parts)
    article = jsonld.main_object(found, parts) or {}
    lang = bcp47(declared.lang) or bcp47(declared.first(*LANGUAGE_KEYS))
    base = urljoin(url or "", declared.base) if declared.base else url
    canonical = _canonical(declared, base)
    site = _site_name(declared, found, article)
    host = urlsplit(canonical or url or "").hostname
    shown = headings(declared.headings)
    sites = site_names([site, *declared.all(*SITE_KEYS), jsonld.first_string(article.get("publisher"))], host)
    title = choose_title(
        [jsonld.first_string(article.get("headline"), ()), *declared.all(*TITLE_KEYS)[:6]],
        declared.title,
        shown,
        sites,
        jsonld.first_string(article.get("name"), ()),
    )
    page = _Page(root, declared, _headline_element(declared.headings, shown, title), lang, title)
    published, modified = _dates(declared, article, page, canonical or url, lang)
    return PageMetadata(
        title=title,
        published=published,
        modified=modified,
        authors=tuple(_authors(declared, article, page, sites)),
        language=lang or bcp47(jsonld.first_string(article.get("inLanguage"), ("name", "alternateName"))),
        canonical_url=canonical,
        site_name=site,
        description=_first_text(declared.first(*DESCRIPTION_KEYS), jsonld.first_string(article.get("description"), ())),
        image=_image(declared, article, base),
        tags=tuple(_tags(declared, article)),
        section=_first_text(declared.first(*SECTION_KEYS), jsonld.first_string(article.get("articleSection"), ())),
    )


def _headline_element(elements: list, texts: list[str], title: str):
    """The ``<h1>`` showing the headline (a page may mark its logo as one too), else the first."""
    key = letters(title)
    if key:
        for el, text in zip(elements, texts):
            if shows_title(letters(text), key):
                return el
    return elements[0] if elements else None


class _Page:
    """The marked body elements around the headline, and those marked as a byline or date anywhere,
    each read on first use (most pages declare enough and never need them)."""

    def __init__(self, root, declared: Declared, headline, lang: str | None, title: str = ""):
        self.root = root
        self.declared = declared
        self.headline = headline
        self.lang = lang
        self.title = title
        self._near: Neighbourhood | None = None
        self._marked: MarkedLines | None = None

    @property
    def marked(self) -> MarkedLines:
        """The byline and date line marked as such anywhere in the page (one walk, on first use)."""
        if self._marked is None:
            self._marked = marked_lines(self.root.find("body"), self.lang, self.near.article, self.near.layout)
        return self._marked

    @property
    def near(self) -> Neighbourhood:
        if self._near is None:
            body = self.root.find("body")
            if self.headline is None and not self.declared.headings:
                self.headline = shown_headline(body, self.title)
            self._near = Neighbourhood(around(self.headline, body if body is not None else self.root), self.headline)
        return self._near


#: the result values only page metadata gives (``language`` falls back to the detected language)
METADATA_VALUES = frozenset(PageMetadata.__slots__) - {"language"}


def result_values(metadata: PageMetadata | None, declared_language: str | None, detected_language: str | None) -> dict:
    """The metadata as ``ExtractionResult`` values. ``language`` is of one kind whether metadata was
    read or not: the page's declared tag in BCP 47 form (from every declaration with metadata, from
    ``<html lang>`` and ``content-language`` without), else the language the extractor detected."""
    metadata = metadata or PageMetadata()
    values = {name: getattr(metadata, name) for name in PageMetadata.__slots__}
    values["language"] = metadata.language or bcp47(declared_language) or detected_language
    return values


def _first_text(*values: str | None) -> str | None:
    for value in values:
        text = unescape(clip(value)) if value else ""
        if text:
            return text
    return None


def _absolute(value: str | None, base: str | None) -> str | None:
    """``value`` as an absolute http(s) URL (resolved against ``base``), else ``None``."""
    if not value:
        return None
    value = value.strip()
    if value.startswith("//"):
        value = ("https:" if not base else (urlsplit(base).scheme or "https") + ":") + value
    elif base and not value.lower().startswith(("http://", "https://")):
        value = urljoin(base, value)
    if not value.lower().startswith(("http://", "https://")) or " " in value:
        return None
    return value


def _canonical(declared: Declared, base: str | None) -> str | None:
    for value in (*declared.links.get("canonical", ()), *declared.all("og:url")):
        found = _absolute(value, base)
        if found:
            return found
    return None


def _dates(
    declared: Declared, article: dict, page: _Page, url: str | None, lang: str | None
) -> tuple[str | None, str | None]:
    """(published, modified), most trusted first: the article's JSON-LD, declared ``<meta>`` (microdata
    ``<meta itemprop>`` too), a ``<time>`` marked as the publication date, the ``<time>`` next to the
    headline, the URL, a dated line next to the headline; when nothing of these dates the page, a
    shown or declared update date (the date of the version shown), any ``<time>`` of the page outside
    comments and related lists, a line marked as a date anywhere."""

    def first_date(values) -> str | None:
        for value in values:
            found = parse_date(value if isinstance(value, str) else None, lang=lang)
            if found:
                return found
        return None

    def earliest_date(values) -> str | None:
        """Of a site's own publication dates (``published-date``, ``published-time``), the first: a
        page republished or rendered later keeps its original date among them."""
        found = [date for value in values if (date := parse_date(value, lang=lang))]
        return min(found, key=lambda date: date[:10]) if found else None

    published = first_date((article.get("datePublished"),)) or first_date(declared.all(*PUBLISHED_KEYS)[:10])
    published = published or earliest_date(
        [value for key, values in declared.meta.items() if key not in META_KEYS for value in values][:10]
    )
    published = published or first_date((article.get("dateCreated"),))
    modified = first_date((article.get("dateModified"),)) or first_date(declared.all(*MODIFIED_KEYS)[:10])
    if published is None:
        near = page.near
        shown = near.dates(lang)
        anywhere, updated = time_dates(declared.times, lang, near.article, near.layout)
        published = (
            marked_time(declared.times, lang, near.article, near.layout)
            or shown.time
            or date_in_url(url)
            or shown.line
            or shown.updated
            or anywhere
            or modified
            or updated
            or page.marked.date
        )
        modified = modified or shown.updated or updated
    elif modified is None:
        modified = time_dates(declared.times, lang)[1]
    return published, modified


def _authors(declared: Declared, article: dict, page: _Page, site: list[str]) -> list[str]:
    """Names: the article's JSON-LD ``author`` (``creator``), declared ``<meta>``, microdata, the
    byline shown on the page. Declared authors that are only the site itself (a publisher credited
    as author) give way to the names of the byline when it shows any."""
    names = names_from(_person_names(article.get("author") or article.get("creator")))
    names = names or names_from(declared.all(*AUTHOR_KEYS)[:10])
    if names and not all(is_site_name(name, site) for name in names):
        return names
    near = page.near
    for el in [*near.itemprops.get("author", [])[:5], *near.itemprops.get("creator", [])[:2]]:
        parts = [e for e in islice(el.iterdescendants("*"), 200) if (e.get("itemprop") or "").lower() == "name"]
        shown = names_from(
            [e.get("content") or text_of(e, 200) for e in parts[:5]] or [el.get("content") or text_of(el)]
        )
        if shown:
            return shown
    return near.authors() or names or list(page.marked.names)


def _person_names(value) -> list[str]:
    """Names of JSON-LD people: strings, ``name``, or ``givenName`` + ``familyName``."""
    names = []
    for item in (value if isinstance(value, list) else [value])[:20]:
        if isinstance(item, dict):
            name = item.get("name")
            if isinstance(name, list):
                name = next((n for n in name if isinstance(n, str)), None)
            if not isinstance(name, str) or not name.strip():
                given, family = item.get("givenName"), item.get("familyName")
                name = " ".join(p for p in (given, family) if isinstance(p, str) and p.strip())
            if name:
                names.append(unescape(name))
        elif isinstance(item, str):
            names.append(unescape(item))
    return names


def _site_name(declared: Declared, found: list[dict], article: dict) -> str | None:
    publisher = jsonld.first_string(article.get("publisher"))
    website = next(
        (jsonld.first_string(o.get("name"), ()) for o in jsonld.of_type(found, {"WebSite"}) if o.get("name")), None
    )
    return _first_text(declared.first("og:site_name"), publisher, website, declared.first(*SITE_KEYS[1:]))


def _image(declared: Declared, article: dict, base: str | None) -> str | None:
    candidates = [
        *declared.all(*IMAGE_KEYS)[:4],
        *jsonld.strings(article.get("image"), ("url", "contentUrl"), 3),
        *declared.links.get("image_src", ())[:1],
    ]
    for value in candidates:
        found = _absolute(unescape(value), base)
        if found:
            return found
    return None


def _tags(declared: Declared, article: dict) -> list[str]:
    """Declared tags: ``article:tag`` (one per tag), else JSON-LD ``keywords``, else keyword meta tags."""
    values = declared.all("article:tag", "og:article:tag")
    if not values:
        keywords = article.get("keywords")
        values = (
            jsonld.strings(keywords, ("name",), MAX_TOPICS)
            if isinstance(keywords, list)
            else ([keywords] if isinstance(keywords, str) else [])
        )
    if not values:
        values = declared.all(*TAG_KEYS[2:])[:2]
    tags: list[str] = []
    for value in values:
        for tag in unescape(value).split(","):
            tag = tag.strip()
            if tag and len(tag) <= 80 and tag.casefold() not in {t.casefold() for t in tags}:
                tags.append(tag)
    return tags[:MAX_TOPICS]
