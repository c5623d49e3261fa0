"""scrapy-bodytext: main body text and article probability for every page a Scrapy crawl stores.

The core (``extract``, ``ExtractConfig``, ``ExtractionResult``) imports nothing from Scrapy; the Scrapy
components (``Addon``, middlewares, pipeline, the drop exceptions, the review feed and its signal) are
loaded on first access.
"""

import typing as _typing

from . import _core  # first: with BODYTEXT_PURE_PYTHON set, the modules below load from their .py files
from .api import extract, extract_with_config
from .config import ExtractConfig
from .extractors import DEFAULT_EXTRACTOR
from .result import ExtractionResult, Reason

__version__ = "0.1.0"

_SCRAPY_EXPORTS = {
    "Addon": "scrapy_bodytext.plugin.addon",
    "BodyTextDownloaderMiddleware": "scrapy_bodytext.plugin.middlewares",
    "BodyTextSpiderMiddleware": "scrapy_bodytext.plugin.spidermiddlewares",
    "BodyTextPipeline": "scrapy_bodytext.plugin.pipelines",
    "NotAnArticle": "scrapy_bodytext.plugin.pipelines",
    "ExtractionFailed": "scrapy_bodytext.plugin.pipelines",
    "DuplicateArticle": "scrapy_bodytext.plugin.pipelines",
    "RejectedFeed": "scrapy_bodytext.plugin.review",
    "RejectedPage": "scrapy_bodytext.plugin.review",
    "page_rejected": "scrapy_bodytext.plugin.review",
}

__all__ = [
    "DEFAULT_EXTRACTOR",
    "ExtractConfig",
    "ExtractionResult",
    "Reason",
    "extract",
    "extract_with_config",
    *_SCRAPY_EXPORTS,
]

if _typing.TYPE_CHECKING:  # pragma: no cover
    from .plugin.addon import Addon
    from .plugin.middlewares import BodyTextDownloaderMiddleware
    from .plugin.pipelines import BodyTextPipeline, DuplicateArticle, ExtractionFailed, NotAnArticle
    from .plugin.review import RejectedFeed, RejectedPage, page_rejected
    from .plugin.spidermiddlewares import BodyTextSpiderMiddleware


def __getattr__(name: str) -> object:
    """The Scrapy components, imported on first access so that the core stays free of Scrapy."""
    module = _SCRAPY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scrapy_bodytext' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    """The public API only (not the submodules and helpers this module happens to hold)."""
    return sorted([*__all__, "__version__"])
