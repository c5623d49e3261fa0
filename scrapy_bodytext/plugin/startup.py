"""The validated ``BODYTEXT_*`` settings of a crawler, checked once when the crawl starts.

Unknown ``BODYTEXT_*`` names get one WARNING line, with the setting a typo most likely meant. An
invalid value gets one ERROR line naming the setting and stops the crawl before any request: the
start-up fails as Scrapy's process expects (``scrapy crawl``/``runspider`` exit with status 1), and
the error, already reported, is not logged a second time with a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from functools import partial
from typing import TYPE_CHECKING, Any, NoReturn

from scrapy.exceptions import NotConfigured

from .settings import BodyTextSettingError, BodyTextSettings, is_enabled, load_settings, unknown_names

if TYPE_CHECKING:
    from collections.abc import Mapping

    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

_validated: weakref.WeakKeyDictionary[Crawler, BodyTextSettings] = weakref.WeakKeyDictionary()
_warned: weakref.WeakSet[Crawler] = weakref.WeakSet()


def crawler_settings(crawler: Crawler) -> BodyTextSettings:
    """The validated settings of a crawler's components (validated and warned about once per crawl);
    ``NotConfigured`` when ``BODYTEXT_ENABLED`` is False."""
    loaded = _validated.get(crawler)
    if loaded is None:
        loaded = validate(crawler.settings, crawler)
        if loaded is None:
            raise NotConfigured("BODYTEXT_ENABLED is False")
        warn_unknown_names(crawler)
        if crawler.settings.frozen:  # final: later components reuse it
            _validated[crawler] = loaded
    return loaded


def validate(settings: Mapping[str, Any], crawler: Crawler | None = None) -> BodyTextSettings | None:
    """``load_settings`` (None when the plugin is off), stopping the crawl with one error line on an
    invalid value."""
    try:
        return load_settings(settings) if is_enabled(settings) else None
    except BodyTextSettingError as error:
        stop_crawl(error, crawler)


def warn_unknown_names(crawler: Crawler) -> None:
    """One WARNING line (once per crawl) listing the unknown ``BODYTEXT_*`` names, with a suggestion
    for each typo."""
    unknown = unknown_names(crawler.settings)
    if unknown and crawler not in _warned:
        _warned.add(crawler)
        described = [f"{name} (did you mean {known}?)" if known else name for name, known in sorted(unknown.items())]
        logger.warning(
            "Unknown setting%s ignored: %s",
            "s" if len(unknown) > 1 else "",
            ", ".join(described),
            extra={"crawler": crawler},
        )


def stop_crawl(error: BodyTextSettingError, crawler: Crawler | None = None) -> NoReturn:
    """Report ``error`` in one line and raise it, which fails the crawler's start-up."""
    logger.error("Crawl stopped by an invalid setting: %s", error, extra={"crawler": crawler})
    _quiet_traceback(error)
    raise error


def _quiet_traceback(error: BaseException) -> None:
    """Scrapy runs a crawler's start-up in an asyncio task and lets asyncio log an exception that ends
    it ("Task exception was never retrieved", with a traceback). This one is reported already: mark it
    retrieved when the task ends. (A start-up driven by Deferreds, with a non-asyncio reactor, has no
    such task; there Twisted still logs its traceback after the error line.)"""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no running event loop
        return
    if task is not None:
        task.add_done_callback(partial(_retrieve, error))


def _retrieve(error: BaseException, task: asyncio.Task) -> None:
    if task.cancelled():
        return
    found = task.exception()  # marks the exception retrieved
    if found is not None and found is not error:  # another failure: report it as asyncio would
        task.get_loop().call_exception_handler(
            {"message": "Task exception was never retrieved", "exception": found, "future": task}
        )
