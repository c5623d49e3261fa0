"""schema.org JSON-LD of a page: the ``<script type="application/ld+json">`` blocks, parsed within
bounds and flattened into their objects, and the one object that describes the page's article.

Real pages carry broken JSON-LD (trailing commas, HTML comment markers, raw line breaks in strings,
several objects back to back); each block is repaired in a few cheap ways and skipped when that fails.
Work is bounded: at most ``MAX_BLOCKS`` blocks, ``MAX_CHARS`` characters in all, ``MAX_OBJECTS``
objects kept, ``MAX_DEPTH`` levels of nesting looked into.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

#: blocks read per page, characters read in all, objects visited in all
MAX_BLOCKS = 32
MAX_CHARS = 2_000_000
MAX_OBJECTS = 5_000
#: levels of nesting below a top-level object that are looked into for typed objects
MAX_DEPTH = 3

#: schema.org types of a page's main creative work (an article or a post), most specific first
ARTICLE_TYPES = (
    "NewsArticle",
    "ReportageNews",
    "AnalysisNewsArticle",
    "OpinionNewsArticle",
    "BackgroundNewsArticle",
    "ReviewNewsArticle",
    "AskPublicNewsArticle",
    "LiveBlogPosting",
    "BlogPosting",
    "SocialMediaPosting",
    "DiscussionForumPosting",
    "ScholarlyArticle",
    "TechArticle",
    "Report",
    "SatiricalArticle",
    "AdvertiserContentArticle",
    "Article",
    "Review",
    "Recipe",
    "HowTo",
    "VideoObject",
    "CreativeWork",
)
_ARTICLE_RANK = {name: rank for rank, name in enumerate(ARTICLE_TYPES)}
#: types naming the page itself (their ``mainEntity`` or own fields may describe the article)
PAGE_TYPES = frozenset(
    (
        "WebPage",
        "ItemPage",
        "AboutPage",
        "ProfilePage",
        "CollectionPage",
        "SearchResultsPage",
        "QAPage",
        "FAQPage",
        "MedicalWebPage",
        "RealEstateListing",
    )
)

_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")
_WRAPPER_RE = re.compile(r"^\s*(?:<!--|<!\[CDATA\[|//\s*<!\[CDATA\[)|(?:-->|\]\]>|//\s*\]\]>)\s*$")


def script_blocks(texts: Iterable[str]) -> Iterator[str]:
    """The JSON-LD script texts within the block and character bounds (a block larger than what is
    left of the budget is skipped)."""
    budget = MAX_CHARS
    for blocks, text in enumerate(texts):
        if blocks >= MAX_BLOCKS:
            return
        if len(text) <= budget:
            budget -= len(text)
            yield text


def parse_block(text: str) -> list[Any]:
    """The JSON values in one block (usually one); ``[]`` when it cannot be read even after repair."""
    text = _WRAPPER_RE.sub("", text.strip()).strip().rstrip(";").strip()
    for candidate in (text, _TRAILING_COMMA_RE.sub(r"\1", text)):
        try:
            return [json.loads(candidate, strict=False)]
        except (ValueError, RecursionError):
            pass
        values = _concatenated(candidate)
        if values:
            return values
    return []


def _concatenated(text: str) -> list[Any]:
    """Values written back to back (``{...}{...}`` or one per line)."""
    decoder = json.JSONDecoder(strict=False)
    values, position = [], 0
    while position < len(text) and len(values) < MAX_BLOCKS:
        while position < len(text) and text[position] in " \t\r\n,;":
            position += 1
        if position >= len(text):
            break
        try:
            value, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return values
        values.append(value)
    return values


#: properties whose value is the page's own subject, not a part of another thing
_SUBJECT_KEYS = frozenset(("@graph", "mainEntity", "mainEntityOfPage"))


def objects(texts: Iterable[str], parts: set[int] | None = None) -> list[dict]:
    """The typed JSON-LD objects in the script ``texts``: top-level ones, ``@graph`` members and the
    objects they hold up to ``MAX_DEPTH`` levels down (a ``WebPage``'s ``mainEntity``, an
    ``ItemList``'s items), in document order, at most ``MAX_OBJECTS``. ``parts`` (when given)
    receives the ``id()`` of each object held by another typed object's property other than
    ``mainEntity``: a product's reviews, a list's items, an article's related articles."""
    found: list[dict] = []
    for block in script_blocks(texts):
        stack = [(value, 0, False) for value in reversed(parse_block(block))]
        while stack and len(found) < MAX_OBJECTS:
            value, depth, part = stack.pop()
            if isinstance(value, list):
                stack.extend((item, depth, part) for item in reversed(value[:MAX_OBJECTS]))
            elif isinstance(value, dict):
                typed = "@type" in value
                if typed:
                    found.append(value)
                    if part and parts is not None:
                        parts.add(id(value))
                if depth < MAX_DEPTH:
                    stack.extend(
                        (v, depth + 1, part or (typed and k not in _SUBJECT_KEYS))
                        for k, v in reversed(list(value.items()))
                        if isinstance(v, (dict, list))
                    )
    return found


def types_of(obj: dict) -> tuple[str, ...]:
    """The schema.org type names of an object (``"schema:NewsArticle"`` and URLs reduced to the name)."""
    kind = obj.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return tuple(k.rsplit("/", 1)[-1].rsplit(":", 1)[-1] for k in kinds if isinstance(k, str))


def article_rank(obj: dict) -> int | None:
    """Position of the object's most specific article type in ``ARTICLE_TYPES``; other types named
    like one (``...NewsArticle``, ``...Article``, ``...Posting``) rank with their kind; None: not one."""
    ranks = []
    for kind in types_of(obj):
        if kind in _ARTICLE_RANK:
            ranks.append(_ARTICLE_RANK[kind])
        elif kind.endswith("NewsArticle"):
            ranks.append(_ARTICLE_RANK["NewsArticle"])
        elif kind.endswith(("Article", "Posting")):
            ranks.append(_ARTICLE_RANK["Article"])
    return min(ranks) if ranks else None


def main_object(found: list[dict], parts: set[int] = frozenset()) -> dict | None:
    """The object describing the page's article: of the article-typed objects that are not a part
    of another thing (``parts``, see ``objects``: a product's reviews are not the page's article),
    one that a page object names as its ``mainEntity`` (by ``@id``) first, then one with a headline
    or a publication date, then the first; else a page object with a date."""
    named = set()
    for obj in found:
        if PAGE_TYPES.intersection(types_of(obj)):
            entities = obj.get("mainEntity")
            for entity in entities if isinstance(entities, list) else [entities]:
                if isinstance(entity, dict) and isinstance(entity.get("@id"), str):
                    named.add(entity["@id"])
    best, best_key = None, None
    for position, obj in enumerate(found):
        rank = article_rank(obj)
        if rank is None or id(obj) in parts:
            continue
        filled = bool(obj.get("headline") or obj.get("datePublished"))
        key = (obj.get("@id") not in named, not filled, rank >= _ARTICLE_RANK["VideoObject"], position)
        if best_key is None or key < best_key:
            best, best_key = obj, key
    if best is not None:
        return best
    for obj in found:
        if PAGE_TYPES.intersection(types_of(obj)) and (obj.get("datePublished") or obj.get("headline")):
            return obj
    return None


def strings(value: Any, keys: tuple[str, ...] = ("name",), limit: int = 50) -> list[str]:
    """The text a JSON-LD value holds: a string, the first of ``keys`` of an object, or those of a list."""
    found: list[str] = []
    items = value if isinstance(value, list) else [value]
    for item in items[:limit]:
        if isinstance(item, str):
            text = item.strip()
        elif isinstance(item, dict):
            text = next((v.strip() for k in keys if isinstance(v := item.get(k), str) and v.strip()), "")
        elif isinstance(item, (int, float)) and not isinstance(item, bool):
            text = str(item)
        else:
            text = ""
        if text:
            found.append(text)
    return found


def first_string(value: Any, keys: tuple[str, ...] = ("name",)) -> str | None:
    found = strings(value, keys, limit=5)
    return found[0] if found else None


def of_type(found: list[dict], names: frozenset[str] | set[str]) -> Iterator[dict]:
    """The objects with one of the type ``names``."""
    return (obj for obj in found if names.intersection(types_of(obj)))
