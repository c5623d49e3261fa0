"""Which index a run claims its articles in: the in-memory one, or the one shared through Redis when a
Redis URL is given. Its own module, so that neither index module imports the other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .defaults import DEFAULT_CAPACITY, DEFAULT_SIMILARITY
from .index import DuplicateIndex, MemoryIndex

if TYPE_CHECKING:
    from ..stores import OutageGuard, RedisLink


def make_index(
    similarity: float = DEFAULT_SIMILARITY,
    *,
    redis_url: RedisLink | str | None = None,
    prefix: str = "bodytext:duplicates",
    capacity: int = DEFAULT_CAPACITY,
    guard: OutageGuard | None = None,
) -> DuplicateIndex:
    """The in-memory index, or the Redis one when ``redis_url`` (a URL or a ``RedisLink``) is given
    (needs the ``redis`` extra); its calls go through ``guard`` when one is given."""
    if redis_url:
        from .redis_index import RedisIndex

        return RedisIndex(redis_url, prefix=prefix, similarity=similarity, guard=guard)
    return MemoryIndex(similarity, capacity)
