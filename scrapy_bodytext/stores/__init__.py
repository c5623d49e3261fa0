"""Shared stores (Redis) behind one guarded boundary: URLs checked at start, calls bounded by explicit
timeouts, and an outage (or a server that refuses the store's commands: then off for the run) turned
into one clear answer, "unavailable", that callers meet with their own fallback (the page's own
verdict, an article stored unchecked). No Scrapy here."""

from __future__ import annotations

from .outage import OutageGuard, StoreUnavailable
from .redis_link import DEFAULT_CONNECT_TIMEOUT, DEFAULT_RETRY_AFTER, DEFAULT_TIMEOUT, RedisLink, check_redis_url

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_RETRY_AFTER",
    "DEFAULT_TIMEOUT",
    "OutageGuard",
    "RedisLink",
    "StoreUnavailable",
    "check_redis_url",
]
