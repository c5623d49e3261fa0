"""The crawl-wide index of stored articles: for each new article, the first stored copy it nearly
repeats. In memory by default (datasketch's ``MinHashLSH``, bounded: the oldest articles are forgotten
past ``capacity``); shared through Redis with :mod:`.redis_index`."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from datasketch import MinHashLSH

from .defaults import DEFAULT_CAPACITY, DEFAULT_SIMILARITY, FIELDS
from .shingles import NUM_PERM, Fingerprint

#: the LSH bands are tuned this far below the similarity, so that candidates near it are not missed
LSH_MARGIN = 0.15


@dataclass(frozen=True, slots=True)
class Match:
    """The first stored copy of a story (its URL) and how similar the new article is to it."""

    url: str
    similarity: float

    def fields(self) -> dict[str, str | float]:
        """``FIELDS`` with their values: the first copy's URL, the similarity to it (4 decimals)."""
        return dict(zip(FIELDS, (self.url, round(self.similarity, 4)), strict=True))


class DuplicateIndex(Protocol):
    """What the plugin, the command line and the datatrove step ask of an index."""

    similarity: float

    def claim(self, url: str, print_: Fingerprint) -> Match | None:
        """The stored article ``print_`` repeats, or None after storing it as the first copy; one
        step, so that two callers never both store one story. A text of no words is never stored. The
        same URL claimed again (a page fetched twice, a crawl restarted) repeats its own first copy."""
        ...

    def close(self) -> None: ...


def lsh_bands(similarity: float) -> MinHashLSH:
    """datasketch's ``MinHashLSH`` for ``similarity``: its bands and rows decide the candidates."""
    return MinHashLSH(threshold=max(0.05, similarity - LSH_MARGIN), num_perm=NUM_PERM)


class MemoryIndex:
    """In one process: exact digests in a dict, signatures in ``MinHashLSH``; past ``capacity``
    articles the oldest is forgotten (``evicted`` counts them)."""

    def __init__(self, similarity: float = DEFAULT_SIMILARITY, capacity: int = DEFAULT_CAPACITY):
        if not 0.0 < similarity <= 1.0:
            raise ValueError(f"similarity must be within (0, 1], got {similarity!r}")
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity!r}")
        self.similarity = similarity
        self.capacity = capacity
        self.evicted = 0
        self._lsh = lsh_bands(similarity)
        self._exact: dict[bytes, int] = {}
        self._stored: OrderedDict[int, tuple[str, bytes, bytes]] = OrderedDict()  # id -> url, exact, signature
        self._next_id = 0

    def __len__(self) -> int:
        return len(self._stored)

    def claim(self, url: str, print_: Fingerprint) -> Match | None:
        if not print_.words:
            return None
        match = self.lookup(print_)
        if match is None:
            self._store(url, print_)
        return match

    def close(self) -> None:
        """Nothing to release: the index lives and dies with the process."""

    def lookup(self, print_: Fingerprint) -> Match | None:
        """The most similar stored article at ``similarity`` or above, without storing anything."""
        known = self._exact.get(print_.exact)
        if known is not None:
            return Match(self._stored[known][0], 1.0)
        best: Match | None = None
        signature = print_.signature
        for key in self._lsh.query(print_.minhash):
            url, _, stored = self._stored[key]
            similarity = float(np.count_nonzero(np.frombuffer(stored, dtype=np.uint32) == signature)) / NUM_PERM
            if similarity >= self.similarity and (best is None or similarity > best.similarity):
                best = Match(url, similarity)
        return best

    def _store(self, url: str, print_: Fingerprint) -> None:
        key, self._next_id = self._next_id, self._next_id + 1
        self._lsh.insert(key, print_.minhash, check_duplication=False)
        self._exact[print_.exact] = key
        self._stored[key] = (url, print_.exact, print_.signature.tobytes())
        while len(self._stored) > self.capacity:
            old, (_, exact, _) = self._stored.popitem(last=False)
            self._lsh.remove(old)
            if self._exact.get(exact) == old:
                del self._exact[exact]
            self.evicted += 1
