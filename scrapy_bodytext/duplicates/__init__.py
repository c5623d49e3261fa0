"""Near-duplicate articles across a crawl: a content fingerprint of each stored article's plain main
text, and a crawl-wide index (in memory, or shared through Redis) that names the first stored copy of
a story. No Scrapy here: the plugin, the command line and the datatrove step use it alike
([duplicates.md](../../docs/duplicates.md))."""

from __future__ import annotations

from .check import MODES, Deduplicator
from .fingerprint import NUM_PERM, SHINGLE_WORDS, Fingerprint, fingerprint, plain_text_of
from .index import DEFAULT_CAPACITY, DEFAULT_SIMILARITY, FIELDS, DuplicateIndex, Match, MemoryIndex, make_index

__all__ = [
    "DEFAULT_CAPACITY",
    "DEFAULT_SIMILARITY",
    "FIELDS",
    "MODES",
    "NUM_PERM",
    "SHINGLE_WORDS",
    "Deduplicator",
    "DuplicateIndex",
    "Fingerprint",
    "Match",
    "MemoryIndex",
    "fingerprint",
    "make_index",
    "plain_text_of",
]
