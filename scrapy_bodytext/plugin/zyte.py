"""Zyte's ``Article`` shape (extra ``zyte`` for the item classes): the pipeline fills a
``zyte_common_items.Article`` (or a subclass) from a page's result, and ``BODYTEXT_FIELDS =
"zyte-article"`` writes the same names into dict items. Fields the spider already set are left
alone unless ``BODYTEXT_ZYTE_OVERWRITE``; ``metadata.probability`` is always the page's article
probability, the value the item is kept or dropped by.

This module imports ``zyte_common_items`` only to build an ``Article``'s parts, which only a crawl
that has ``Article`` items does: dict items need nothing.
"""

from __future__ import annotations

import sys
from collections.abc import MutableMapping
from typing import Any

from ..extras import missing_extra
from ..result import ExtractionResult

#: result value -> field of Zyte's ``Article`` (dict items: the field of the same name)
ARTICLE_FIELDS: dict[str, str] = {
    "main_text": "articleBody",
    "article_probability": "metadata",
    "title": "headline",
    "published": "datePublished",
    "modified": "dateModified",
    "authors": "authors",
    "language": "inLanguage",
    "canonical_url": "canonicalUrl",
    "description": "description",
}
#: the cleaned HTML of the main text, written when the output format is "html"
HTML_FIELD = "articleBodyHtml"
#: the ``BODYTEXT_FIELDS`` preset that writes ``ARTICLE_FIELDS`` into dict items
PRESET = "zyte-article"


def is_article(item: Any) -> bool:
    """Whether ``item`` is a ``zyte_common_items.Article`` (a subclass too); never imports the package:
    no item can be one unless it was imported already."""
    module = sys.modules.get("zyte_common_items")
    return module is not None and isinstance(item, module.Article)


def article_values(result: ExtractionResult) -> dict[str, Any]:
    """The Zyte fields of a page's result, in their dict form (``authors`` as ``[{"name": ...}]``,
    ``metadata`` as ``{"probability": ...}``); None where the page states nothing."""
    body = result.text if result.output_format == "text" else result.plain_text
    values = {
        "articleBody": body.strip() or None,
        "metadata": {"probability": result.article_probability},
        "headline": result.title or None,
        "datePublished": result.published,
        "dateModified": result.modified,
        "authors": [{"name": name} for name in result.authors] or None,
        "inLanguage": iso_639_1(result.language),
        "canonicalUrl": result.canonical_url,
        "description": result.description,
    }
    if result.output_format == "html":
        values[HTML_FIELD] = result.text or None
    return values


def iso_639_1(language: str | None) -> str | None:
    """The two-letter ISO 639-1 code of a BCP 47 tag ("pt-BR" -> "pt"); None for a language that has
    none (ISO 639-1 codes are the two-letter primary subtags)."""
    primary = (language or "").split("-")[0].lower()
    return primary if len(primary) == 2 and primary.isascii() and primary.isalpha() else None


def is_empty(value: Any) -> bool:
    """Whether a field holds nothing the spider set (None, "" or an empty list)."""
    return value is None or value == "" or value == []


def fill_dict(item: MutableMapping[str, Any], values: dict[str, Any], *, overwrite: bool) -> None:
    """Write Zyte values into a dict-like item: empty fields only unless ``overwrite``; the probability
    always (into an existing ``metadata`` mapping, its other keys kept)."""
    for field, value in values.items():
        if field == "metadata":
            current = item.get("metadata")
            item["metadata"] = {**current, **value} if isinstance(current, dict) else value
        elif value is not None and (overwrite or is_empty(item.get(field))):
            item[field] = value


def fill_article(item: Any, result: ExtractionResult, *, overwrite: bool) -> None:
    """Fill a ``zyte_common_items.Article`` from the page's result (see ``fill_dict`` for which fields)."""
    try:
        from zyte_common_items import ArticleMetadata, Author
    except ImportError as exc:  # an Article without its package cannot happen; said clearly all the same
        raise missing_extra("Zyte Article items", "zyte", exc) from exc
    for field, value in article_values(result).items():
        if field == "metadata":
            probability = value["probability"]
            if item.metadata is None:
                item.metadata = ArticleMetadata(probability=probability)
            else:
                item.metadata.probability = probability
        elif value is not None and (overwrite or is_empty(getattr(item, field))):
            setattr(item, field, [Author(name=author["name"]) for author in value] if field == "authors" else value)
