"""What a page declares about itself: ``<meta>`` tags (Open Graph, ``article:*``, Dublin Core,
Twitter, Parse.ly, plain ``name=``), ``<link rel>`` (canonical, author), ``<base>``, the ``<title>``,
the declared language, the JSON-LD script texts (and JSON-LD written as ``<meta name="script:ld+json">``), and the ``<h1>`` and ``<time>`` elements, all
collected in one walk over those tags (libxml2 filters the tag names, so the walk costs little).

Values are capped in length and number so a hostile page cannot make this step expensive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

#: characters kept of one declared value; values kept per key; ``<meta>``/``<link>`` tags read
MAX_VALUE = 2000
MAX_VALUES = 20
MAX_DECLARING_TAGS = 3000
#: the ``<meta>`` name of a JSON-LD block written as a ``<meta>`` (the meta descriptor Remix and
#: React Router give a JSON-LD script, as head managers that do not know it render it)
JSON_LD_META = "script:ld+json"
#: ``<h1>`` and ``<time>`` elements kept
MAX_HEADINGS = 3
MAX_TIMES = 48


@dataclass(slots=True)
class Declared:
    """Declared values, keys lower-cased, in document order."""

    meta: dict[str, list[str]] = field(default_factory=dict)
    links: dict[str, list[str]] = field(default_factory=dict)  # rel -> hrefs
    title: str = ""
    lang: str | None = None  # <html lang>, else <meta http-equiv="content-language">
    base: str | None = None  # <base href>
    scripts: list[str] = field(default_factory=list)  # JSON-LD script texts
    headings: list = field(default_factory=list)  # the first <h1> elements of the body
    times: list = field(default_factory=list)  # the first <time> elements of the body

    def first(self, *keys: str) -> str | None:
        """The first non-empty value of the first key that has one."""
        for key in keys:
            for value in self.meta.get(key, ()):
                if value:
                    return value
        return None

    def all(self, *keys: str) -> list[str]:
        return [value for key in keys for value in self.meta.get(key, ()) if value]


def clip(text: str | None) -> str:
    """Whitespace collapsed, at most ``MAX_VALUE`` characters."""
    return " ".join((text or "")[: MAX_VALUE * 2].split())[:MAX_VALUE]


def _add(table: dict[str, list], key: str, value) -> None:
    values = table.setdefault(key, [])
    if len(values) < MAX_VALUES:
        values.append(value)


def collect(root, keys: frozenset[str], dated: Callable[[str], bool] | None = None) -> Declared:
    """The page's declarations, from one walk over its ``meta``, ``link``, ``base``, ``title``,
    ``script``, ``h1`` and ``time`` tags; of the ``<meta>`` tags only those named in ``keys`` or
    accepted by ``dated`` (other names of a publication date)."""
    found = Declared()
    budget = MAX_DECLARING_TAGS
    for el in root.iter("meta", "link", "title", "base", "script", "h1", "time"):
        tag = el.tag
        if tag == "meta":
            budget -= 1
            if budget < 0:
                continue
            get = el.get
            for attribute in ("property", "name", "itemprop", "http-equiv"):
                key = get(attribute)
                if not key:
                    continue
                key = key.strip().lower()
                if key == JSON_LD_META:
                    content = get("content")
                    if content and not content.isspace() and len(found.scripts) < MAX_VALUES:
                        found.scripts.append(content)
                    continue
                if key in keys or (dated is not None and dated(key)):
                    content = get("content")
                    if content is None:
                        content = get("value")
                    if content is not None:
                        _add(found.meta, key, clip(content))
        elif tag == "script":
            kind = el.get("type")
            if kind and "ld+json" in kind and len(found.scripts) < MAX_VALUES and _is_json_ld(kind):
                text = el.text
                if text and not text.isspace():
                    found.scripts.append(text)
        elif tag == "link":
            budget -= 1
            href = (el.get("href") or "").strip()
            if href and budget >= 0:
                for rel in (el.get("rel") or "").lower().split()[:4]:
                    _add(found.links, rel, href[:MAX_VALUE])
        elif tag == "h1":
            if len(found.headings) < MAX_HEADINGS:
                found.headings.append(el)
        elif tag == "time":
            if len(found.times) < MAX_TIMES:
                found.times.append(el)
        elif tag == "base":
            found.base = found.base or (el.get("href") or "").strip()[:MAX_VALUE] or None
        elif not found.title and not _in_svg(el):
            found.title = clip(el.text)
    lang = root.get("lang") or root.get("xml:lang")
    found.lang = clip(lang) or next((v for v in found.meta.get("content-language", ()) if v), None)
    return found


def _is_json_ld(kind: str | None) -> bool:
    kind = (kind or "").strip().lower()
    return kind == "application/ld+json" or kind.startswith("application/ld+json;")


def _in_svg(el) -> bool:
    return any(parent.tag == "svg" for parent in el.iterancestors())
