"""Which index a run claims its articles in: the in-memory one, or the one shared through Redis when a
Redis URL is given. Its own module, so that neither index module imports the other."""

from __future__ import annotations

from .defaults import DEFAULT_CAPACITY, DEFAULT_SIMILARITY
from .index import DuplicateIndex, MemoryIndex


def make_index(
    similarity: float = DEFAULT_SIMILARITY,
    *,
    redis_url: str | None = None,
    prefix: str = "bodytext:duplicates",
    capacity: int = DEFAULT_CAPACITY,
) -> DuplicateIndex:
    """The in-memory index, or the Redis one when ``redis_url`` is given (needs the ``redis`` extra)."""
    if redis_url:
        from .redis_index import RedisIndex

        return RedisIndex(redis_url, prefix=prefix, similarity=similarity)
    return MemoryIndex(similarity, capacity)
