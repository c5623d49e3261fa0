"""Figures of one extractor over the labelled corpus (quality, speed, robustness) for its gate test."""

from __future__ import annotations

from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.report import Run, build_our_runner, run_pages, summarize


def figures_of(pages, name: str) -> dict:
    """``summarize`` figures of extractor ``name``: ``f1_mean`` over the article pages, ``errors``,
    ``ms_per_page`` (CPU time, decoding and parsing included), ..."""
    return summarize(Run(name, run_pages(pages, build_our_runner(ExtractConfig(extractor=name)))))
