"""Quality gates on the labelled dev corpus: a regression in any extractor fails the suite.

Each registered extractor runs once per session over the whole corpus (shared by the three gates and
the extractors' own corpus tests); an extractor that is registered but cannot be loaded fails every
gate as missing. Time is CPU time per page, decoding and parsing included.
"""

from __future__ import annotations

import json

import pytest
from corpus_figures import MAX_MS_PER_PAGE, figures_of

from scrapy_bodytext import extractors
from scrapy_bodytext.extractors.bodytext.model import MODEL_FILE

#: the default method's floor is its own out-of-fold figure as the harness recorded it in model.json
#: (each source left out whole: the page is scored by models that never saw its source), minus this
#: margin; measured on the pages it was fitted on it can only be higher
MODEL_MARGIN = 0.02


def recorded_out_of_fold() -> dict:
    """The leave-one-source-out summary the harness wrote into the default method's model.json."""
    return json.loads(MODEL_FILE.read_text(encoding="utf-8"))["about"]["out_of_fold"]["source"]


#: Overall mean token F1 on the article pages of ../shared/corpus/dev: the measured value minus a
#: margin of 0.02. Re-measure with `scrapy-bodytext evaluate ../shared/corpus/dev` (column "F1 mean")
#: after a deliberate change to a method, and update its floor in the same commit.
F1_FLOORS: dict[str, float] = {
    "bodytext": round(recorded_out_of_fold()["text"]["token_f1"] - MODEL_MARGIN, 3),
    "bte": 0.857,  # measured 0.877
    "ttr": 0.795,  # measured 0.815
    "ctd": 0.831,  # measured 0.851
    "pvalue": 0.845,  # measured 0.865
    "wuyang": 0.878,  # measured 0.898
}

pytestmark = pytest.mark.corpus


def figures(corpus, name: str) -> dict:
    """Figures of extractor ``name`` over the corpus, computed once per session (shared with the
    extractors' own corpus tests through ``corpus_figures``); a missing extractor fails."""
    try:
        extractors.load(name).Options  # noqa: B018
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"extractor {name!r} is registered but missing: {type(exc).__name__}: {exc}")
    return figures_of(corpus, name)


@pytest.mark.parametrize("name", extractors.names())
def test_mean_f1_on_articles_stays_above_its_floor(corpus, name):
    measured = figures(corpus, name)["f1_mean"]
    assert name in F1_FLOORS, f"no F1 floor stored for {name!r}; measured {measured:.3f}"
    assert measured >= F1_FLOORS[name], f"{name}: mean token F1 {measured:.3f} < floor {F1_FLOORS[name]:.3f}"


@pytest.mark.parametrize("name", extractors.names())
def test_no_page_raises(corpus, name):
    found = figures(corpus, name)
    assert found["errors"] == 0, f"{name}: {found['errors']} pages ended with reason 'error'"


@pytest.mark.parametrize("name", extractors.names())
def test_mean_time_per_page(corpus, name):
    ms = figures(corpus, name)["ms_per_page"]
    assert ms < MAX_MS_PER_PAGE, f"{name}: {ms:.1f} ms (CPU) per page on average"
