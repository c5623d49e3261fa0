"""Site memory shared through Redis, for a crawl spread over processes and machines: the same
counts as ``SiteMemory``, written by one Lua script (a page is learned once, the oldest sites go
past the bound), so every process reads what every other learned. It outlives the crawl.

Keys, under ``prefix`` (``bodytext:sites`` by default): ``{prefix}:site:{site}`` (hash: the site's
counters and marks, see ``evidence``), ``{prefix}:order`` (sorted set: site -> when it was last
learned), ``{prefix}:clock`` (the counter that orders them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..stores import OutageGuard, RedisLink
from ..stores.redis_link import delete_prefix
from .memory import DEFAULT_MAX_SITES, SiteMemory
from .verdict import Weights

#: KEYS: the site's hash, the order, the clock. ARGV: prefix, site, max sites, the field that must not
#: be set yet ("" for none), number of increments, then name/step pairs, then name/value pairs.
#: Returns 1 when the site was updated, 0 when the field was set already.
UPDATE_SCRIPT = """
local prefix, site, max_sites, unless, n = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
if unless ~= '' and redis.call('HEXISTS', KEYS[1], unless) == 1 then return 0 end
local at = 6
for i = 1, n do
  redis.call('HINCRBY', KEYS[1], ARGV[at], ARGV[at + 1])
  at = at + 2
end
while at < #ARGV do
  redis.call('HSET', KEYS[1], ARGV[at], ARGV[at + 1])
  at = at + 2
end
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), site)
while redis.call('ZCARD', KEYS[2]) > max_sites do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  redis.call('DEL', prefix .. ':site:' .. oldest[1])
end
return 1
"""


#: what the memory is called in errors and log lines
WHAT = "site memory in Redis"


class RedisSiteReader:
    """Reads each site's fields from their Redis hash and the sites in the order they were last
    learned, and nothing else: what reads a shared memory without a crawl (``scrapy-bodytext sites``)
    cannot change it. Every call goes through ``guard`` (``StoreUnavailable`` when Redis fails)."""

    def __init__(self, link: RedisLink | str, *, prefix: str, client: Any = None, guard: OutageGuard | None = None):
        link = RedisLink.of(link)
        self.prefix = prefix
        self.guard = guard or link.guard(WHAT)
        self.client = client or link.client(WHAT)

    def site_key(self, site: str) -> str:
        return f"{self.prefix}:site:{site}"

    def read(self, site: str, names: Sequence[str]) -> list[int | str | None]:
        if not names:
            return []
        values = self.guard.call(self.client.hmget, self.site_key(site), list(names))
        return [value.decode("utf-8") if value is not None else None for value in values]

    def fields(self, site: str) -> dict[str, int | str]:
        """Every field of the site's hash (empty when the site is not remembered)."""
        found = self.guard.call(self.client.hgetall, self.site_key(site))
        return {name.decode("utf-8"): value.decode("utf-8") for name, value in found.items()}

    def site_names(self) -> list[str]:
        """The sites remembered, the least recently learned first."""
        return [name.decode("utf-8") for name in self.guard.call(self.client.zrange, f"{self.prefix}:order", 0, -1)]

    def __len__(self) -> int:
        return int(self.guard.call(self.client.zcard, f"{self.prefix}:order"))

    def close(self) -> None:
        self.client.close()


class RedisStore(RedisSiteReader):
    """The reader that also learns: a site's fields updated by one script, the oldest sites past
    ``max_sites`` forgotten. Every call goes through ``guard``."""

    def __init__(
        self,
        link: RedisLink | str,
        *,
        prefix: str,
        max_sites: int,
        client: Any = None,
        guard: OutageGuard | None = None,
    ) -> None:
        if max_sites < 1:
            raise ValueError(f"max_sites must be at least 1, got {max_sites}")
        super().__init__(link, prefix=prefix, client=client, guard=guard)
        self.max_sites = max_sites
        self._update = self.client.register_script(UPDATE_SCRIPT)

    def update(
        self, site: str, increments: Mapping[str, int], values: Mapping[str, str], unless: str | None = None
    ) -> bool:
        args: list[Any] = [self.prefix, site, self.max_sites, unless or "", len(increments)]
        for name, step in increments.items():
            args += [name, step]
        for name, value in values.items():
            args += [name, value]
        keys = [self.site_key(site), f"{self.prefix}:order", f"{self.prefix}:clock"]
        return bool(self.guard.call(self._update, keys=keys, args=args))

    def forget(self) -> None:
        """Delete every key under the prefix."""
        self.guard.call(delete_prefix, self.client, self.prefix)


class RedisSiteMemory(SiteMemory):
    """``SiteMemory`` kept in the Redis at ``link`` (a ``RedisLink``, or a URL ``redis://host:port/db``)
    under ``prefix``; every call through ``guard``."""

    def __init__(
        self,
        link: RedisLink | str,
        *,
        prefix: str = "bodytext:sites",
        max_sites: int = DEFAULT_MAX_SITES,
        weights: Weights | None = None,
        client: Any = None,
        guard: OutageGuard | None = None,
    ) -> None:
        store = RedisStore(link, prefix=prefix, max_sites=max_sites, client=client, guard=guard)
        super().__init__(max_sites, weights=weights, store=store)

    def close(self) -> None:
        self.store.close()
