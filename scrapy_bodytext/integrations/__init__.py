"""Steps for other engines (datatrove), each in its own module behind an optional extra; the core
never imports them. Zyte's item classes are filled by the Scrapy plugin (``plugin.zyte``)."""

from __future__ import annotations

from ..extras import MissingExtra, missing_extra

__all__ = ["MissingExtra", "missing_extra"]
