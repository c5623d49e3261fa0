"""The page type of every labelled page, for the page-type judge: read from the corpus notes through
one small table, or from the hand labels of ``page_type_labels.json`` where the notes give none.

Where the notes give a type:

* ``wcxb-dev`` and ``tiptopjaw-wceb2026``: ``page_type=TYPE``, the source's own type, taken as it is;
* the news-site non-articles: ``kind=KIND``, mapped by ``KINDS`` (front, section, topic, ticker,
  ranking, search and overview pages are listings; imprint, privacy and other legal pages service);
* every article page (``is_article``) is an ``article``;
* a whole-site corpus's own ``page_type`` field (``article``, ``listing``, ``service``,
  ``documentation``, ``other``: the judge's types), with its ``listing_kind`` for the report.

A non-article the notes type in no way is labelled by hand in ``page_type_labels.json`` (id ->
type and the reason); a non-article with neither is ``other``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from ..extractors.bodytext.page import PAGE_TYPES

#: the news-site non-articles' ``kind=`` (corpus README) -> page type
KINDS = {
    "front page": "listing",
    "blog front page": "listing",
    "section page": "listing",
    "video section page": "listing",
    "topic page": "listing",
    "news ticker / latest-headlines listing": "listing",
    "ranking listing page": "listing",
    "search results page": "listing",
    "author overview page": "listing",
    "service overview page": "listing",  # an index of a portal's services: links, no prose
    "about page": "service",  # imprint / legal notice
    "legal page": "service",  # privacy policy
}
HAND_LABELS = Path(__file__).with_name("page_type_labels.json")
_TYPE_RE = re.compile(r"page_type=(\w+)")
_KIND_RE = re.compile(r"kind=([^;]+)")


def note_type(is_article: bool, note: str, hand: dict[str, str], page_id: str, declared: str | None = None) -> str:
    """The page type of one corpus record (``hand``: the hand labels, id -> type; ``declared``: the
    record's own ``page_type`` field, where the corpus has one)."""
    if is_article:
        return "article"
    if declared in PAGE_TYPES:
        return declared
    found = _TYPE_RE.search(note)
    if found and found.group(1) in PAGE_TYPES:
        return found.group(1)
    kind = _KIND_RE.search(note)
    if kind and kind.group(1).strip() in KINDS:
        return KINDS[kind.group(1).strip()]
    return hand.get(page_id, "other")


def hand_labels() -> dict[str, str]:
    """The hand labels: id -> page type."""
    entries = json.loads(HAND_LABELS.read_text(encoding="utf-8"))
    return {page_id: entry["type"] for page_id, entry in entries.items()}


def corpus_page_types(corpus: str | Path) -> dict[str, str]:
    """Page id -> page type for every record of the corpus at ``corpus``."""
    hand = hand_labels()
    types = {}
    with open(Path(corpus) / "index.jsonl", encoding="utf-8") as index:
        for line in index:
            entry = json.loads(line)
            types[entry["id"]] = note_type(
                bool(entry["is_article"]), entry.get("note") or "", hand, entry["id"], entry.get("page_type")
            )
    return types


def listing_kinds(corpus: str | Path) -> dict[str, str]:
    """Page id -> ``listing_kind`` (home, pagination, taxonomy, ...) of the listings of a corpus that
    names them (a whole-site corpus); empty for one that does not."""
    kinds = {}
    with open(Path(corpus) / "index.jsonl", encoding="utf-8") as index:
        for line in index:
            entry = json.loads(line)
            if entry.get("listing_kind"):
                kinds[entry["id"]] = str(entry["listing_kind"])
    return kinds


def page_types(ids: Sequence[str], corpus: str | Path) -> list[str]:
    """The page type of each page id, in order."""
    types = corpus_page_types(corpus)
    return [types.get(page_id, "other") for page_id in ids]
