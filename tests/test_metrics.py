"""Metrics against values computed by hand."""

from __future__ import annotations

import pytest

from scrapy_bodytext.evaluation.metrics import (
    ShingleMatch, brier_score, reliability_table, roc_auc, shingle_match, shingle_prf, shingles, token_f1, token_prf,
)


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
