"""The site a URL belongs to: its registrable domain (``blog.example.co.uk`` -> ``example.co.uk``,
``someone.github.io`` stays itself), read from the public suffix list that tldextract ships (no
network: the bundled snapshot only); an IP address or a name without a suffix keys as host:port, and
the local files of a ``file:`` crawl (a mirror on disk, an offline copy of a site) are one site."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from urllib.parse import urlsplit

import tldextract

#: the bundled public suffix list, private suffixes included (``github.io``, ``blogspot.com``: every
#: blog under them is a site of its own); never fetched, never cached on disk
_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True)


#: the site of every local file
FILE_SITE = "file://"


@lru_cache(maxsize=4096)
def _host_key(host: str, port: int | None) -> str:
    host = host.lower().rstrip(".")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        parts = _EXTRACT(host)
        if parts.suffix and parts.domain:
            return f"{parts.domain}.{parts.suffix}"
    return f"{host}:{port}" if port else host


@lru_cache(maxsize=65_536)
def site_key(url: str) -> str:
    """The key of ``url``'s site (``file://`` for local files; "" for another URL without a host)."""
    if url[:5].lower() == "file:":
        return FILE_SITE
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:  # a malformed port or bracket: the text before the path is the best key there is
        return url.split("/")[2].lower() if url.count("/") >= 2 else ""
    return _host_key(host, port) if host else ""
