"""The corpus gate every extractor's tests apply: quality, speed and robustness on the dev corpus."""

from __future__ import annotations

from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.report import Run, build_our_runner, run_pages, summarize

#: average CPU time per page, decoding and parsing included
MAX_MS_PER_PAGE = 50.0

_FIGURES: dict[tuple[int, str, float | None], dict] = {}


def figures_of(pages, name: str, threshold: float | None = None) -> dict:
    """``summarize`` figures of extractor ``name``: ``f1_mean`` over the article pages, ``errors``,
    ``ms_per_page`` (CPU time, decoding and parsing included), ...; computed once per page list
    (the session's ``corpus`` fixture), extractor and article threshold (``None``: the default)."""
    config = ExtractConfig(extractor=name) if threshold is None else ExtractConfig(extractor=name, threshold=threshold)
    key = (id(pages), name, config.threshold)  # the default threshold named or not: one run
    if key not in _FIGURES:
        _FIGURES[key] = summarize(Run(name, run_pages(pages, build_our_runner(config))))
    return _FIGURES[key]
