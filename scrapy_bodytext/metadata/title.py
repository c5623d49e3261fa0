"""The headline of a page, without the site name that ``<title>`` and ``og:title`` often append.

Candidates come in order of trust (JSON-LD headline, ``og:title``, other declared titles, the
``<title>``); the first is cut down at a title separator (``|``, `` - ``, ``–``, ``»``, ``｜``, ...)
where the rest is the site's name (as declared, or the host name), a date, or where what comes
before it is another candidate or the page's ``<h1>``. Without declared titles, an ``<h1>`` that
is one part of the ``<title>`` is the headline.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from .dates import parse_written_date

#: separators between a headline and the site or section names around it
_SEPARATOR_RE = re.compile(r"\s+(?:[|\-–—·•»«~/\\>:]{1,2}|::|\|\|)\s+|\s*(?:[|｜ㅣ丨_]|：(?=[^：]*$))\s*")
_ELLIPSIS = ("…", "...")
#: characters that start a site name or section appended to a headline without spaces
_TIGHT_SEPARATORS = frozenset("-–—_|｜ㅣ丨:：·•»/[(（【")
#: longest section label dropped between a headline and the site name ("- National | Site")
MAX_SECTION_WORDS = 3
#: a title of more parts is left as it is
MAX_PARTS = 8
#: a part of a title recognised as the headline holds at least this share of its letters
MIN_HEADLINE_SHARE = 0.4


def unescape(text: str | None) -> str:
    """Entities decoded (declared values are often escaped twice), whitespace collapsed."""
    if not text:
        return ""
    if "&" in text:
        text = html.unescape(html.unescape(text))
    return " ".join(text.split())


@lru_cache(maxsize=1024)
def letters(text: str) -> str:
    """Letters and digits only, accents removed, case folded: how site names are compared."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if c.isalnum())


def shows_title(shown: str, key: str) -> bool:
    """True when a heading whose ``letters`` are ``shown`` shows the title whose ``letters`` are
    ``key``: the same, or one holding the other (a ``<title>`` adds the site's name, a heading may
    add a kicker), for headings of at least 8 letters."""
    return bool(shown) and (shown == key or (len(shown) >= 8 and (shown in key or key in shown)))


def _words(text: str) -> list[str]:
    return [letters(w) for w in text.split() if letters(w)]


def is_site_name(part: str, sites: Sequence[str]) -> bool:
    """``part`` names the site: equal to a site name or host label, or one holds the other word for word."""
    key = letters(part)
    if not key:
        return False
    part_words = _words(part)
    for site in sites:
        site_key = letters(site)
        if not site_key:
            continue
        if key == site_key:
            return True
        site_words = _words(site)
        if len(part_words) <= 4 and _contains_words(site_words, part_words):
            return True
        if len(site_words) <= len(part_words) <= len(site_words) + 2 and _contains_words(part_words, site_words):
            return True
    return False


def _contains_words(outer: list[str], inner: list[str]) -> bool:
    if not inner or len(inner) > len(outer):
        return False
    return any(outer[i : i + len(inner)] == inner for i in range(len(outer) - len(inner) + 1))


def _is_date(part: str) -> bool:
    return bool(re.fullmatch(r"[\d\s./-]+", part)) or parse_written_date(part) is not None and len(part) < 40


def site_names(declared: Iterable[str | None], host: str | None) -> list[str]:
    """Names the site goes by: declared ones and the labels of its host name (``www.`` and the
    top-level domain left out: ``www.theguardian.com`` -> ``theguardian``, ``theguardian.com``)."""
    names = [unescape(name) for name in declared if name and unescape(name)]
    if host:
        labels = host.lower().split(".")
        if labels and labels[0] in ("www", "m", "amp", "mobile", "edition", "en", "de", "fr", "es"):
            labels = labels[1:]
        if len(labels) >= 2:
            names.append(".".join(labels))
            names.append(labels[-2] if len(labels[-2]) > 3 or len(labels) == 2 else ".".join(labels[-3:-1]))
            names.append(labels[0])
    return [n for n in names if n]


def split_parts(title: str) -> list[tuple[str, str]]:
    """``title`` as (separator, part) pairs; the first separator is ``""``."""
    pieces = _SEPARATOR_RE.split(title)
    separators = [m.group(0) for m in _SEPARATOR_RE.finditer(title)]
    return list(zip(["", *separators], pieces))


def strip_site_name(title: str, sites: Sequence[str], references: Sequence[str] = ()) -> str:
    """``title`` without the site name (and a section or date next to it) before or after it.

    ``references`` are other statements of the headline (other candidates, ``<h1>``): a title that
    starts with one of them, followed by a separator, is cut to it.
    """
    title = unescape(title)
    folded = title.casefold()
    for reference in references:  # "Headline-Site", "Headline [Site]": separators without spaces
        reference = unescape(reference)
        rest = folded[len(reference) :].lstrip()
        if (
            reference
            and len(reference) < len(title)
            and folded.startswith(reference.casefold())
            and rest[:1] in _TIGHT_SEPARATORS
            and len(reference) >= MIN_HEADLINE_SHARE * len(title)
        ):
            return title[: len(reference)].strip()
    parts = split_parts(title)
    if not 1 < len(parts) <= MAX_PARTS:
        return title
    wanted = {letters(r) for r in references if r and len(letters(r)) >= 4}
    size = len(letters(title))
    # a reference equal to a run of parts (a headline may itself contain separators), long enough to
    # be the headline rather than a section label or the site's logo text
    for start in range(len(parts) if wanted else 0):
        for end in range(len(parts), start, -1):
            if (start, end) == (0, len(parts)):
                continue
            text = _join(parts[start:end])
            key = letters(text)
            if key in wanted and len(key) >= MIN_HEADLINE_SHARE * size and not is_site_name(text, sites):
                return text
    # cut from the end: site names, dates and short labels just before a site name
    keep = list(parts)
    cut = False
    while len(keep) > 1 and (is_site_name(keep[-1][1], sites) or _is_date(keep[-1][1])):
        keep.pop()
        cut = True
    if cut and len(keep) > 1 and len(keep[-1][1].split()) <= MAX_SECTION_WORDS and keep[-1][0].strip() not in ("-", ""):
        keep.pop()  # "Headline | Politics | Site": the section label before the site name
    # and from the start: "Site | Headline"
    while len(keep) > 1 and (is_site_name(keep[0][1], sites) or _is_date(keep[0][1])):
        keep = [("", keep[1][1]), *keep[2:]]
    return _join(keep) if keep else title


def _join(parts: Sequence[tuple[str, str]]) -> str:
    text = parts[0][1] + "".join(separator + part for separator, part in parts[1:])
    return " ".join(text.split())


def choose_title(
    declared: Sequence[str | None],
    page_title: str,
    headings: Sequence[str],
    sites: Sequence[str],
    alternative: str | None = None,
) -> str:
    """The headline: the first declared title (JSON-LD, Open Graph, ...), else the ``<title>``, with
    the site name cut off; else the first ``<h1>``. A first declared title that nothing else on the
    page repeats gives way to ``alternative`` (the JSON-LD ``name``) when the ``<h1>`` shows that
    (some pages declare a summary as the JSON-LD headline)."""
    candidates = [unescape(c) for c in declared if c and unescape(c)]
    page_title = unescape(page_title)
    headings = [unescape(h) for h in headings if h and unescape(h)]
    references = [*candidates, page_title, *headings]
    if not candidates:
        if page_title:
            return strip_site_name(page_title, sites, headings)
        return headings[0] if headings else ""
    first = candidates[0]
    if first.endswith(_ELLIPSIS):  # a shortened headline: a complete candidate it starts
        stem = first.rstrip(".…").rstrip()
        first = next((c for c in references[1:] if c.startswith(stem) and len(c) > len(stem)), first)
    title = strip_site_name(first, sites, [r for r in references if r != first])
    shown = {letters(h) for h in headings}
    if alternative and letters(unescape(alternative)) in shown:
        key = letters(title)
        repeated = key in shown or any(key == letters(strip_site_name(r, sites)) for r in references if r != first)
        if not repeated:
            return unescape(alternative)
    return title
