"""``scrapy-bodytext sites``: what a site memory shared through Redis holds, one line (or one JSON
object) per site, so that what crawls learned of a site can be read without a crawl."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..sites.domains import site_key
from ..sites.summary import SiteSummary, memory_summaries, summarize_site
from ..stores.redis_link import redacted
from . import FAILED, OK
from .options import UsageError


def asked_site(text: str) -> str:
    """The key of the site ``text`` names: any URL of it, its host (``www.example.com``, an IPv6 host
    with or without its brackets, ``[::1]:8080``) or its key as printed (``example.com``)."""
    return site_key(text if "://" in text else f"http://{text}")


def _quiet(level: int, message: str, *args: Any) -> None:
    """The reader's guard says nothing: the command says what failed in its own one line."""


def run_sites(args: argparse.Namespace) -> int:
    from ..sites.redis_memory import RedisSiteReader
    from ..stores import StoreUnavailable
    from ..stores.redis_link import RedisLink

    command = "scrapy-bodytext sites"
    shown = redacted(args.redis_url)
    where = f"{shown} under {args.prefix}"
    try:
        link = RedisLink(args.redis_url)
        client = link.client(command)
    except ValueError as exc:  # not a redis:// URL
        raise UsageError(f"--redis-url {shown}: {exc}") from None
    except ImportError as exc:  # the redis extra is not installed
        print(f"{command}: {exc}", file=sys.stderr)
        return FAILED
    import redis  # present: the client was made

    try:
        memory = RedisSiteReader(link, prefix=args.prefix, client=client, guard=link.guard(command, log=_quiet))
        if args.site:
            site = asked_site(args.site)
            found = summarize_site(memory, site, most=args.shapes)
            if found is None:
                print(f"{command}: no site {site!r} in the site memory at {where}", file=sys.stderr)
                return FAILED
            summaries = [found]
        else:
            summaries = memory_summaries(memory, most=args.shapes)
    except Exception as exc:  # noqa: BLE001 - redis' other errors: a wrong password, a key of another type
        cause = exc.__cause__ if isinstance(exc, StoreUnavailable) and exc.__cause__ is not None else exc
        if isinstance(cause, (redis.ConnectionError, redis.TimeoutError)):
            print(f"{command}: cannot reach Redis at {shown}: {_reason(cause)}", file=sys.stderr)
        else:
            print(f"{command}: cannot read the site memory at {where}: {_reason(cause)}", file=sys.stderr)
        return FAILED
    finally:
        client.close()
    if args.json:
        print(json.dumps(_record(args, summaries), indent=1, ensure_ascii=False))
    elif not summaries:
        print(f"{command}: no site in the site memory at {where}", file=sys.stderr)
    else:
        for summary in summaries:
            print(summary.line())
    return OK


def _reason(exc: Exception) -> str:
    """The error's first line (redis' connection errors are one line already)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _record(args: argparse.Namespace, summaries: list[SiteSummary]) -> dict[str, Any]:
    return {
        "redis_url": redacted(args.redis_url),
        "prefix": args.prefix,
        "sites": [summary.as_dict() for summary in summaries],
    }
