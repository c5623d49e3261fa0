"""Quality gates on the labelled dev corpus: a regression in any extractor fails the suite.

Each registered extractor runs once over the whole corpus (shared by the three gates); an extractor
that is registered but cannot be loaded fails every gate as missing.
"""

from __future__ import annotations

import pytest

from scrapy_bodytext import extractors
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.report import Run, build_our_runner, run_pages, summarize

#: Overall mean token F1 on the article pages of ../shared/corpus/dev: the measured value minus a
#: margin of 0.02. Re-measure with `scrapy-bodytext evaluate ../shared/corpus/dev` (column "F1 mean")
#: after a deliberate change to a method, and update its floor in the same commit.
F1_FLOORS: dict[str, float] = {
    "bte": 0.850,  # measured 0.870
    "ttr": 0.791,  # measured 0.811
    "ctd": 0.825,  # measured 0.845
    "pvalue": 0.838,  # measured 0.858
    "wuyang": 0.872,  # measured 0.892
}

#: average extraction time per page, decoding and parsing included (CPU time of the test process, so
#: that other work on a shared machine does not fail the gate)
MAX_MS_PER_PAGE = 50.0

pytestmark = pytest.mark.corpus


class CorpusRuns:
    """Figures of each extractor over the corpus, computed on first use and kept for the session."""

    def __init__(self, pages):
        self.pages = pages
        self.figures: dict[str, dict] = {}

    def __getitem__(self, name: str) -> dict:
        if name not in self.figures:
            try:
                extractors.load(name).Options  # noqa: B018
            except Exception as exc:  # noqa: BLE001
                pytest.fail(f"extractor {name!r} is registered but missing: {type(exc).__name__}: {exc}")
            runner = build_our_runner(ExtractConfig(extractor=name))
            self.figures[name] = summarize(Run(name, run_pages(self.pages, runner)))
        return self.figures[name]


@pytest.fixture(scope="session")
def corpus_runs(corpus) -> CorpusRuns:
    return CorpusRuns(corpus)


@pytest.mark.parametrize("name", extractors.names())
def test_mean_f1_on_articles_stays_above_its_floor(corpus_runs, name):
    measured = corpus_runs[name]["f1_mean"]
    assert name in F1_FLOORS, f"no F1 floor stored for {name!r}; measured {measured:.3f}"
    assert measured >= F1_FLOORS[name], f"{name}: mean token F1 {measured:.3f} < floor {F1_FLOORS[name]:.3f}"


@pytest.mark.parametrize("name", extractors.names())
def test_no_page_raises(corpus_runs, name):
    figures = corpus_runs[name]
    assert figures["errors"] == 0, f"{name}: {figures['errors']} pages ended with reason 'error'"


@pytest.mark.parametrize("name", extractors.names())
def test_mean_time_per_page(corpus_runs, name):
    ms = corpus_runs[name]["ms_per_page"]
    assert ms < MAX_MS_PER_PAGE, f"{name}: {ms:.1f} ms (CPU) per page on average"
