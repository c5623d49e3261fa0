"""The index shared through Redis, for a crawl spread over processes and machines (the scrapy-redis
setup): plain Redis sets and hashes keyed by the LSH bands of datasketch's ``MinHashLSH``, checked and
written by one Lua script, so that two processes never both store one story. It outlives the crawl.

Keys, under ``prefix`` (``bodytext:duplicates`` by default), an article named by an 8-byte digest of
its URL: ``{prefix}:url`` (hash: article -> URL), ``{prefix}:exact`` (hash: exact digest -> article),
``{prefix}:signature`` (hash: article -> packed MinHash), ``{prefix}:band:{i}:{hash}`` (set of the
articles whose band ``i`` hashes to ``hash``), ``{prefix}:config`` (hash: the permutations, bands and
rows the keys were written with).
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..stores import OutageGuard, RedisLink, StoreUnavailable
from ..stores.redis_link import delete_prefix
from .index import Match, lsh_bands
from .shingles import NUM_PERM, SCHEME, SEED, SHINGLE_WORDS, Fingerprint

#: KEYS: URL hash, exact hash, signature hash, band sets. ARGV: article, URL, exact digest, packed
#: signature, equal values needed (out of NUM_PERM). Returns {URL, equal values} of the stored copy, or
#: {} after storing.
CLAIM_SCRIPT = """
local article, url, exact, signature, needed = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local known = redis.call('HGET', KEYS[2], exact)
if known then return {redis.call('HGET', KEYS[1], known), string.len(signature) / 4} end
local best, best_equal, seen = nil, -1, {}
for i = 4, #KEYS do
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[i])) do
    if not seen[member] then
      seen[member] = true
      local other = redis.call('HGET', KEYS[3], member)
      if other then
        local equal = 0
        for at = 1, string.len(signature), 4 do
          if string.sub(signature, at, at + 3) == string.sub(other, at, at + 3) then equal = equal + 1 end
        end
        if equal > best_equal then best, best_equal = member, equal end
      end
    end
  end
end
if best and best_equal >= needed then return {redis.call('HGET', KEYS[1], best), best_equal} end
redis.call('HSET', KEYS[1], article, url)
redis.call('HSET', KEYS[2], exact, article)
redis.call('HSET', KEYS[3], article, signature)
for i = 4, #KEYS do redis.call('SADD', KEYS[i], article) end
return {}
"""


#: what the index is called in errors and log lines
WHAT = "the duplicate index in Redis"


class RedisIndex:
    """The crawl-wide index in Redis at ``link`` (a ``RedisLink``, or a URL ``redis://host:port/db``),
    under ``prefix``. Every call goes through ``guard`` (``StoreUnavailable`` when Redis fails)."""

    def __init__(
        self,
        link: RedisLink | str,
        *,
        prefix: str = "bodytext:duplicates",
        similarity: float,
        client: Any = None,
        guard: OutageGuard | None = None,
    ):
        if not 0.0 < similarity <= 1.0:
            raise ValueError(f"similarity must be within (0, 1], got {similarity!r}")
        link = RedisLink.of(link)
        self.similarity = similarity
        self.prefix = prefix
        self.guard = guard or link.guard(WHAT)
        self.client = client or link.client(WHAT)
        lsh = lsh_bands(similarity)
        self.ranges = lsh.hashranges
        self._needed = max(1, round(similarity * NUM_PERM - 1e-9))
        self._config_checked = False
        self._config = {
            "num_perm": NUM_PERM,
            "seed": SEED,
            "scheme": SCHEME,
            "shingle": SHINGLE_WORDS,
            "bands": f"{lsh.b}x{lsh.r}",
        }
        self._claim = self.client.register_script(CLAIM_SCRIPT)
        try:
            mismatch = self._mismatch()
        except StoreUnavailable:
            mismatch = None  # not reachable now (said by the guard): checked before the first claim that reaches it
        if mismatch is not None:
            raise ValueError(mismatch)

    def claim(self, url: str, print_: Fingerprint) -> Match | None:
        if not print_.words:
            return None
        if not self._config_checked:
            self._check_config()
        signature = print_.signature
        names = ("url", "exact", "signature")
        keys = [*(f"{self.prefix}:{name}" for name in names), *self.band_keys(signature.tobytes())]
        article = hashlib.blake2b(url.encode("utf-8"), digest_size=8).digest()
        args = [article, url, print_.exact, signature.tobytes(), self._needed]
        found = self.guard.call(self._claim, keys=keys, args=args)
        if not found:
            return None
        return Match(found[0].decode("utf-8"), int(found[1]) / NUM_PERM)

    def reach(self) -> None:
        """``StoreUnavailable`` when Redis does not answer now (a command fails at its start instead of
        storing every article unchecked); checks the keys' configuration on the way."""
        if not self._config_checked:
            self._check_config()

    def band_keys(self, packed: bytes) -> list[str]:
        """The set of each LSH band of a packed signature (4 bytes per value)."""
        return [
            f"{self.prefix}:band:{band}:{hashlib.blake2b(packed[start * 4 : end * 4], digest_size=8).hexdigest()}"
            for band, (start, end) in enumerate(self.ranges)
        ]

    def clear(self) -> int:
        """Delete every key of this index (what a new crawl from scratch wants); the number deleted."""
        return self.guard.call(delete_prefix, self.client, self.prefix)

    def close(self) -> None:
        self.client.close()

    def _check_config(self) -> None:
        """The keys' configuration checked once Redis answers: keys of another one found only now (Redis
        was not reached at the start) are said once and turn the index off (``StoreUnavailable`` now and
        at every later call, none of them made)."""
        mismatch = self._mismatch()
        if mismatch is not None:
            self.guard.turn_off(mismatch, "mismatched")
            raise StoreUnavailable(f"{self.guard.what}: {mismatch}")

    def _mismatch(self) -> str | None:
        """What is wrong with the keys' configuration (None: they were written as this index writes
        them, or there were none and now there are). Keys written with other permutations or shingles
        would never match: they are not mixed."""
        key = f"{self.prefix}:config"
        wanted = {name: str(value) for name, value in self._config.items()}
        call = self.guard.call
        call(self.client.hsetnx, key, "num_perm", wanted["num_perm"])  # claims an empty index
        stored = {k.decode(): v.decode() for k, v in call(self.client.hgetall, key).items()}
        if len(stored) == 1:
            call(self.client.hset, key, mapping=wanted)
            stored = wanted
        self._config_checked = stored == wanted
        if stored == wanted:
            return None
        return f"the Redis keys under {self.prefix!r} were written with {stored}, not {wanted}: clear them or choose another prefix"
