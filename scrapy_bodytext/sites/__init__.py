"""Site memory (issue 30): a crawler never sees a page alone. The confident verdicts of a site's pages,
counted per URL shape and template signature, and the links of a page's selection to the site's
article shapes are weighed with the page's own probability; lines that recur on many of a site's
articles are its furniture. No Scrapy here: the plugin, the command line and datatrove use it
(docs/site-memory.md)."""

from __future__ import annotations

from .domains import site_key
from .memory import DEFAULT_MAX_SITES, SiteMemory
from .shapes import coarse_shape, url_shape
from .verdict import FEATURES, SiteVerdict, Weights, load_weights

__all__ = [
    "DEFAULT_MAX_SITES",
    "FEATURES",
    "RedisSiteMemory",
    "SiteMemory",
    "SiteVerdict",
    "Weights",
    "coarse_shape",
    "load_weights",
    "site_key",
    "url_shape",
]


def __getattr__(name: str):
    if name == "RedisSiteMemory":  # loads redis only when asked for
        from .redis_memory import RedisSiteMemory

        return RedisSiteMemory
    raise AttributeError(name)
