"""Imported by the forkserver of the worker processes before it forks any worker: one small
extraction with every method, so that lazy imports and the stop-word lists are loaded once, every
worker (a recycled one too) starts warm instead of spending about 0.1 s of CPU on its first page,
and the workers share those memory pages."""

from __future__ import annotations

import logging

from .. import extractors
from ..api import extract

SAMPLE = b"""<html lang="en"><head><title>A sample page</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>A sample page</h1><p>The workers of the crawl start warm: this paragraph is long enough to be
weighed as text by every method, and it is written in English so that the language of the page is found
from its words and the stop-word lists are loaded before the first real page arrives.</p>
<p>A second paragraph follows, so that the methods that compare paragraphs have more than one to look at,
and the article gets its probability like any other page would.</p></article></body></html>"""


def warm_up() -> None:
    for name in extractors.names():
        extract(SAMPLE, extractor=name)


try:
    warm_up()
except Exception:  # noqa: BLE001 - a cold worker still works: never stop the forkserver for this
    logging.getLogger(__name__).exception("Could not warm up the extraction workers")
