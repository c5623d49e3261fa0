"""What a page declares about itself in ``<head>``, ``<meta>`` and JSON-LD, as the methods weigh it:
derived from the one walk over the page's declaring tags that page metadata reads too
(``metadata.read_declared``), done on the whole tree before scripts and the head are dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..metadata import FLAG_PUBLISHED_KEYS, jsonld, read_declared

#: alternate links kept
MAX_FEEDS = 8
_LD_TYPE_RE = re.compile(r'"@type"\s*:\s*\[?\s*"([A-Za-z]+)"')


@dataclass(frozen=True, slots=True)
class PageClaims:
    """A page's own statements: none is checked against its content."""

    #: ``<title>``, whitespace collapsed ("" when absent)
    title: str = ""
    #: ``<meta property="og:title">`` ("" when absent): the headline without the site's name
    og_title: str = ""
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
    #: schema.org types of the JSON-LD subjects: top-level objects, ``@graph`` members and main
    #: entities, not the objects another one holds (a ``Product`` in an article's paywall markup)
    subject_types: frozenset[str] = frozenset()
    #: ``<link rel="alternate">`` hrefs (feeds, translations), the first few
    feeds: tuple[str, ...] = ()


def read_claims(root, declared=None) -> PageClaims:
    """The declarations of the page whose tree is ``root`` (its ``<html>``, scripts still in it);
    ``declared``: the page's ``metadata.read_declared`` walk when already done."""
    if declared is None:
        declared = read_declared(root)
    meta = declared.meta
    types: set[str] = set()
    published = any(meta.get(key) for key in FLAG_PUBLISHED_KEYS)
    for script in declared.scripts:
        types.update(_LD_TYPE_RE.findall(script))
        published = published or "datePublished" in script
    parts: set[int] = set()
    subjects = [found for found in jsonld.objects(declared.scripts, parts) if id(found) not in parts]
    first = lambda key: (declared.first(key) or "").strip().lower() or None  # noqa: E731
    return PageClaims(
        title=declared.title,
        og_title=" ".join((declared.first("og:title") or "").split()),
        lang=(root.get("lang") or root.get("xml:lang") or "").strip().lower() or None,
        meta_lang=first("content-language"),
        og_type=first("og:type"),
        published=published,
        structured_types=frozenset(types),
        subject_types=frozenset(kind for found in subjects for kind in jsonld.types_of(found)),
        feeds=tuple(declared.links.get("alternate", ())[:MAX_FEEDS]),
    )
