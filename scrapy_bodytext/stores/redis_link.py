"""How the package reaches a Redis server: its URL checked at start (scheme, host, port, database),
a client whose connect and read timeouts are explicit and whose calls are made once (a call that
failed is the caller's fallback, not a hidden retry that multiplies a frozen server's cost), and the
guard every call goes through (``outage``), told which of redis-py's errors are an outage (the server
not reached now) and which a refusal (the server answered "no": it would again)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from ..extras import missing_extra
from .outage import Failure, Log, OutageGuard, failure_of

#: seconds to open a connection (BODYTEXT_REDIS_CONNECT_TIMEOUT)
DEFAULT_CONNECT_TIMEOUT = 0.5
#: seconds one call may take (BODYTEXT_REDIS_TIMEOUT)
DEFAULT_TIMEOUT = 0.5
#: seconds a failing server is left alone before it is tried again (BODYTEXT_REDIS_RETRY_AFTER)
DEFAULT_RETRY_AFTER = 5.0
SCHEMES = ("redis", "rediss", "unix")
EXAMPLE = "redis://localhost:6379/0"


def check_redis_url(url: str) -> str:
    """``url`` stripped when it names a Redis server completely (``redis://host[:port][/db]``,
    ``rediss://…``, ``unix:///path/to/socket[?db=N]``); ValueError saying what is wrong otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise ValueError(f"expected a Redis URL such as {EXAMPLE!r}")
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"expected a Redis URL starting redis://, rediss:// or unix://, such as {EXAMPLE!r}")
    query = parse_qs(parts.query)
    db_values = query.get("db", [])
    if parts.scheme == "unix":
        if not parts.path:
            raise ValueError("a unix:// Redis URL names the socket's path, e.g. 'unix:///run/redis.sock'")
    else:
        if not parts.hostname:
            raise ValueError(f"the Redis URL names no host, e.g. {EXAMPLE!r}")
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"the Redis URL's port is not a number from 1 to 65535, e.g. {EXAMPLE!r}") from None
        if port == 0:
            raise ValueError(f"the Redis URL's port is not a number from 1 to 65535, e.g. {EXAMPLE!r}")
        path = parts.path.strip("/")
        if path:
            db_values = [path, *db_values]
    for value in db_values:
        if not value.isdigit():
            raise ValueError(f"the Redis URL's database {value!r} is not a number (e.g. {EXAMPLE!r}: database 0)")
    return url


def redacted(url: str) -> str:
    """``url`` without its password, for messages; an IPv6 host keeps its brackets (``[::1]:6379``), a
    URL that cannot be parsed is shown as given."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
    except ValueError:
        return url
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]  # host and port as written
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@dataclass(frozen=True)
class RedisLink:
    """A Redis server as the package reaches it: its URL, the setting that named it (for errors and
    log lines), the timeouts of each connection and call, and how long a failing server rests."""

    url: str
    setting: str = ""
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    timeout: float = DEFAULT_TIMEOUT
    retry_after: float = DEFAULT_RETRY_AFTER

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", check_redis_url(self.url))
        for name in ("connect_timeout", "timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0 seconds, got {getattr(self, name)!r}")
        if self.retry_after < 0:
            raise ValueError(f"retry_after must be >= 0 seconds, got {self.retry_after!r}")

    @classmethod
    def of(cls, link: RedisLink | str) -> RedisLink:
        """``link``, or a link to the URL ``link`` with the default timeouts."""
        return link if isinstance(link, RedisLink) else cls(link)

    def describe(self, what: str) -> str:
        """``what`` at this server, naming the setting: "site memory in Redis at redis://… (SETTING)"."""
        named = f" ({self.setting})" if self.setting else ""
        return f"{what} at {redacted(self.url)}{named}"

    def client(self, what: str) -> Any:
        """A client of this server; a clear error naming the extra when redis is missing."""
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as exc:
            raise missing_extra(what, "redis", exc) from None
        return redis.Redis.from_url(
            self.url,
            socket_connect_timeout=self.connect_timeout,
            socket_timeout=self.timeout,
            retry=Retry(NoBackoff(), 0),
            retry_on_timeout=False,
        )

    def guard(
        self,
        what: str,
        *,
        fallback: str = "",
        log: Log | None = None,
        count: Callable[[str, int], None] | None = None,
    ) -> OutageGuard:
        """The guard every call of ``what`` goes through (a redis-py timeout rests it at once, a
        refused command turns it off); ``log``: a logger or a function ``(level, message, *args)``."""
        return OutageGuard(
            self.describe(what),
            retry_after=self.retry_after,
            fallback=fallback,
            failure=redis_failure,
            log=log,
            count=count,
        )


#: error replies of a server that is busy or between roles for a while (redis-py raises them as
#: ``ResponseError`` unless it names them): an outage, not a refusal
PASSING_REPLIES = ("BUSY ", "LOADING ", "MASTERDOWN ", "TRYAGAIN ", "CLUSTERDOWN ")


def redis_failure(exc: BaseException) -> Failure | None:
    """What a redis-py error says of the server: a timeout; lost (a connection refused, dropped or
    unreadable, a server loading its data or busy); refused (a command the server answered with an
    error: ``READONLY`` on a replica, ``OOM``, ``NOPERM``, ``WRONGTYPE``, a wrong password); None for
    anything else, a bug of the caller (``DataError``: a value redis-py cannot send, ``TypeError``)."""
    try:
        from redis import exceptions as errors
    except ImportError:
        return failure_of(exc)
    if isinstance(exc, (errors.AuthenticationError, errors.AuthorizationError)):
        return Failure.REFUSED  # a wrong password or user is refused again at every connection
    if isinstance(exc, (TimeoutError, errors.TimeoutError)):
        return Failure.TIMED_OUT
    if isinstance(exc, (errors.ConnectionError, errors.InvalidResponse, errors.TryAgainError, errors.ClusterDownError)):
        return Failure.LOST  # BusyLoadingError is a ConnectionError
    if isinstance(exc, errors.ResponseError):
        return Failure.LOST if str(exc).startswith(PASSING_REPLIES) else Failure.REFUSED
    return failure_of(exc)


def delete_prefix(client: Any, prefix: str) -> int:
    """Delete every key under ``prefix`` (``{prefix}:*``), in batches; the number deleted."""
    deleted = 0
    for batch in _batches(client.scan_iter(match=f"{prefix}:*", count=1000), 500):
        deleted += client.delete(*batch)
    return deleted


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
