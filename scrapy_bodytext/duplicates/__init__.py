"""Near-duplicate articles across a crawl: a content fingerprint of each stored article's plain main
text, and a crawl-wide index (in memory, or shared through Redis) that names the first stored copy of
a story. No Scrapy here: the plugin, the command line and the datatrove step use it alike
([duplicates.md](../../docs/duplicates.md)). The defaults load at once; the rest, which needs
datasketch, on first access."""

from __future__ import annotations

import importlib

from .defaults import DEFAULT_CAPACITY, DEFAULT_SIMILARITY, FIELDS, MODES

_LAZY = {
    "NUM_PERM": ".shingles",
    "SHINGLE_WORDS": ".shingles",
    "Fingerprint": ".shingles",
    "fingerprint": ".shingles",
    "plain_text_of": ".shingles",
    "DuplicateIndex": ".index",
    "Match": ".index",
    "MemoryIndex": ".index",
    "make_index": ".choice",
    "Deduplicator": ".check",
}

__all__ = ["DEFAULT_CAPACITY", "DEFAULT_SIMILARITY", "FIELDS", "MODES", *_LAZY]


def __getattr__(name: str) -> object:
    """The names that need datasketch, imported on first access (its import takes a while)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)
