"""Metrics against values computed by hand; aggregation of a corpus run."""

from __future__ import annotations

import json
import os

import pytest

from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.corpus import LabelledPage
from scrapy_bodytext.evaluation.metrics import (
    ShingleMatch,
    brier_score,
    reliability_table,
    roc_auc,
    shingle_match,
    shingle_prf,
    shingles,
    token_f1,
    token_prf,
)
from scrapy_bodytext.evaluation.report import Run, our_method, run_isolated, run_pages, summarize


def test_token_prf_counts_repeated_tokens_case_sensitively():
    # predicted {the:2, cat:1}, gold {the:1, Cat:1, sat:1}: overlap 1 ("the")
    precision, recall, f1 = token_prf("the the cat", "the Cat sat")
    assert precision == pytest.approx(1 / 3)
    assert recall == pytest.approx(1 / 3)
    assert f1 == pytest.approx(1 / 3)
    assert token_f1("", "") == 1.0
    assert token_f1("", "gold") == 0.0


def test_shingles_are_runs_of_four_tokens_and_short_texts_one_shingle():
    assert shingles("a b, c d e") == {("a", "b", "c", "d"): 1, ("b", "c", "d", "e"): 1}
    assert shingles("x x x x x") == {("x", "x", "x", "x"): 2}
    assert shingles("only two") == {("only", "two"): 1}
    assert shingles(" ... ") == {}


def test_shingle_match_normalises_counts_per_page():
    match = shingle_match("a b c d e", "a b c d e f")  # tp 2, fp 0, fn 1 of 3
    assert (match.tp, match.fp, match.fn) == pytest.approx((2 / 3, 0.0, 1 / 3))
    assert match.precision == pytest.approx(1.0)
    assert match.recall == pytest.approx(2 / 3)
    assert match.f1 == pytest.approx(0.8)

    repeated = shingle_match("x x x x x", "x x x x")  # tp 1, fp 1
    assert (repeated.precision, repeated.recall) == pytest.approx((0.5, 1.0))


def test_shingle_match_of_empty_texts():
    nothing_found = shingle_match("", "a b c d")
    assert nothing_found.precision is None  # stays out of the precision mean
    assert nothing_found.recall == 0.0
    assert nothing_found.f1 == 0.0
    assert shingle_match("", "").f1 == 1.0


def test_shingle_prf_averages_page_precision_and_recall_then_takes_harmonic_mean():
    pages = [shingle_match("a b c d e", "a b c d e f"), shingle_match("", "g h i j k")]
    precision, recall, f1 = shingle_prf(pages)
    assert precision == pytest.approx(1.0)  # the empty prediction has no precision
    assert recall == pytest.approx((2 / 3 + 0.0) / 2)
    assert f1 == pytest.approx(2 * 1.0 * (1 / 3) / (1.0 + 1 / 3))
    assert shingle_prf([ShingleMatch(0.0, 0.0, 0.0)]) == (0.0, 0.0, 0.0)


def test_roc_auc_counts_ordered_pairs_and_half_ties():
    # pairs (positive, negative): 0.35>0.1, 0.35<0.4, 0.8>0.1, 0.8>0.4 -> 3 of 4
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == pytest.approx(0.75)
    assert roc_auc([0.5, 0.5, 0.9], [True, False, True]) == pytest.approx((0.5 + 1.0) / 2)
    assert roc_auc([0.2, 0.9], [False, True]) == 1.0
    assert roc_auc([0.2, 0.9], [True, True]) is None
    with pytest.raises(ValueError):
        roc_auc([0.1], [True, False])


def test_brier_score():
    assert brier_score([1.0, 0.0, 0.5], [True, False, True]) == pytest.approx(0.25 / 3)
    assert brier_score([0.0], [True]) == 1.0
    with pytest.raises(ValueError):
        brier_score([], [])


def test_reliability_table_bins_probabilities_and_counts_articles():
    table = reliability_table([0.05, 0.15, 0.15, 0.95, 1.0], [False, True, False, True, True], bins=10)
    assert len(table) == 10
    assert (table[0].pages, table[0].article_share) == (1, 0.0)
    assert (table[1].pages, table[1].article_share) == (2, 0.5)
    assert table[1].mean_probability == pytest.approx(0.15)
    assert (table[9].pages, table[9].article_share) == (2, 1.0)  # 1.0 falls in the last bin
    assert table[9].mean_probability == pytest.approx(0.975)
    assert table[5].pages == 0 and table[5].article_share is None
    assert sum(b.pages for b in table) == 5


# --- aggregation over a corpus run ---------------------------------------------------------------------


def _page(id_: str, source: str, gold: str) -> LabelledPage:
    return LabelledPage(
        id=id_,
        source=source,
        url=None,
        is_article=bool(gold),
        gold_text=gold,
        lang=None,
        charset=None,
        body=b"<p>x</p>",
    )


def test_run_pages_scores_each_page_and_turns_crashes_into_errors():
    pages = [_page("a", "s1", "one two three four five"), _page("b", "s1", "six seven"), _page("c", "s2", "")]
    outcomes = {
        "a": ("one two three four five", 0.9, True, "ok"),  # perfect
        "b": ("", 0.2, False, "no_main_text"),  # an article dropped
        "c": ("menu", 0.7, True, "ok"),  # a non-article kept
    }

    def runner(page):
        if page.id == "b":
            raise RuntimeError("boom")
        return outcomes[page.id]

    scores = run_pages(pages, runner)
    assert [s.reason for s in scores] == ["ok", "error", "ok"]
    assert scores[0].token == (1.0, 1.0, 1.0) and scores[0].shingles.f1 == 1.0
    assert scores[2].token is None  # no text score on non-articles
    figures = summarize(Run("m", scores))
    assert (figures["pages"], figures["articles"], figures["non_articles"]) == (3, 2, 1)
    assert figures["f1_mean"] == pytest.approx(0.5) and figures["f1_median"] == pytest.approx(0.5)
    assert figures["shingle_precision"] == pytest.approx(1.0)  # the crashed page predicted nothing
    assert figures["shingle_recall"] == pytest.approx(0.5)
    assert figures["accuracy"] == pytest.approx(1 / 3)
    assert (figures["articles_dropped"], figures["non_articles_kept"]) == (1, 1)
    assert figures["errors"] == 1
    # the crash has no probability; it counts as 0: positives 0.9, 0.0 vs negative 0.7 -> AUC 0.5
    assert figures["roc_auc"] == pytest.approx(0.5)
    assert figures["brier"] == pytest.approx((0.1**2 + 1.0 + 0.7**2) / 3)
    assert figures["by_source"]["s1"]["f1_mean"] == pytest.approx(0.5)
    assert figures["by_source"]["s2"]["judged_article_share"] == 1.0


def test_methods_without_probability_have_no_calibration_figures():
    scores = run_pages([_page("a", "s", "gold words here")], lambda page: ("gold words", None, True, "ok"))
    figures = summarize(Run("peer", scores))
    assert figures["roc_auc"] is None and figures["brier"] is None and figures["reliability"] is None
    assert figures["accuracy"] == 1.0


def _dying_method():
    os._exit(3)  # a crash in a C extension looks like this from outside


def test_isolated_runs_report_their_memory_and_survive_a_dying_worker(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "page.html").write_bytes(b"<html><body><p>one two three four five</p></body></html>")
    (folder / "index.jsonl").write_text(
        json.dumps(
            {"id": "a", "source": "s", "file": "page.html", "is_article": True, "gold_text": "one two three four five"}
        )
        + "\n",
        encoding="utf-8",
    )
    run = run_isolated("bodytext", our_method(ExtractConfig()), folder)
    assert run.failure is None and len(run.scores) == 1
    assert run.peak_rss_kb >= run.base_rss_kb > 0
    died = run_isolated("dying", _dying_method, folder)
    assert died.scores == [] and "worker process died" in died.failure
    assert summarize(died)["failure"] == died.failure
