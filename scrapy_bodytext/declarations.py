"""What a page declares about itself in ``<head>``, ``<meta>`` and JSON-LD: read from the whole tree,
before scripts and the head are dropped to build the columns."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: ``<meta>`` names (lower-cased ``property``/``name``/``itemprop``) that declare a publication date
_PUBLISHED_KEYS = frozenset(
    ("article:published_time", "datepublished", "date", "pubdate", "publishdate", "dc.date.issued",
     "sailthru.date", "parsely-pub-date", "og:article:published_time")
)
_LD_TYPE_RE = re.compile(r'"@type"\s*:\s*\[?\s*"([A-Za-z]+)"')


@dataclass(frozen=True, slots=True)
class Declarations:
    """A page's own statements: none is checked against its content."""

    #: ``<title>``, whitespace collapsed ("" when absent)
    title: str = ""
    #: ``<html lang>`` (or ``xml:lang``), lower-cased
    lang: str | None = None
    #: ``<meta http-equiv="content-language">``, lower-cased
    meta_lang: str | None = None
    #: ``<meta property="og:type">``, lower-cased: "article" on most article pages
    og_type: str | None = None
    #: a publication date is declared (``article:published_time``, JSON-LD ``datePublished``, ...)
    published: bool = False
    #: schema.org types declared in JSON-LD
    structured_types: frozenset[str] = frozenset()


def read_declarations(root) -> Declarations:
    """The declarations of the page whose tree is ``root`` (its ``<html>``, scripts still in it)."""
    meta_lang = og_type = None
    published = False
    for meta in root.iter("meta"):
        key = (meta.get("http-equiv") or meta.get("property") or meta.get("name")
               or meta.get("itemprop") or "").lower()
        if key == "content-language":
            meta_lang = (meta.get("content") or "").strip().lower() or None
        elif key == "og:type":
            og_type = (meta.get("content") or "").strip().lower() or None
        elif key in _PUBLISHED_KEYS:
            published = True
    types: set[str] = set()
    for script in root.iter("script"):
        if (script.get("type") or "").lower() == "application/ld+json" and script.text:
            types.update(_LD_TYPE_RE.findall(script.text))
            published = published or "datePublished" in script.text
    return Declarations(
        title=" ".join((root.findtext(".//title") or "").split()),
        lang=(root.get("lang") or root.get("xml:lang") or "").strip().lower() or None,
        meta_lang=meta_lang,
        og_type=og_type,
        published=published,
        structured_types=frozenset(types),
    )
