"""The training harness of the default method: grouped folds, the fitters, the model file's round trip,
and the shipped model against the code's features."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import scrapy_bodytext
from scrapy_bodytext.extractors.bodytext import model, page
from scrapy_bodytext.extractors.bodytext.judge import Forest
from scrapy_bodytext.extractors.bodytext.model import (
    ARTICLE_FEATURES,
    FIRST_FEATURES,
    SECOND_FEATURES,
    Model,
    ModelError,
    load_model,
    write_model,
)
from scrapy_bodytext.extractors.probability import Platt, fit_logistic, logit, sigmoid, softmax
from scrapy_bodytext.training import fingerprint
from scrapy_bodytext.training.article_model import ArticleSettings, fit_article, fit_calibration
from scrapy_bodytext.training.crossval import SMALL_SOURCE, fold_names, recall_first
from scrapy_bodytext.training.fitting import fit_softmax, fit_trees, softmax_loss
from scrapy_bodytext.training.folds import LARGE_SOURCE, MODES, assign_folds, source_groups, training_indices
from scrapy_bodytext.training.judge_trees import AGREEMENT, TreeSettings, fit_forest, forest_of
from scrapy_bodytext.training.paragraph_models import (
    ParagraphSettings,
    ParagraphTable,
    fit_first,
    fit_linear,
    fit_second,
    out_of_fold,
    per_source_weights,
)


@dataclass
class Page:
    """What the folds read of a labelled page."""

    source: str
    site: str


def synthetic_corpus() -> list[Page]:
    """Sources large (split into site groups), middling and small (merged into one fold), with sites
    that several sources share, as a real corpus has."""
    pages = []
    for source, size, sites in (
        ("large-a", 120, 40),
        ("large-b", 90, 9),
        ("middle", 40, 5),
        ("small-a", 12, 3),
        ("small-b", 5, 5),
    ):
        pages += [Page(source, f"site{k % sites}.{source}.example") for k in range(size)]
    # the same sites in several sources: never fitted on when one of their pages is scored
    pages += [Page(source, "shared.example") for source in ("large-a", "large-b", "middle", "small-a")]
    pages += [Page("large-b", "site1.large-a.example"), Page("middle", "site2.large-b.example")]
    return pages


@pytest.mark.parametrize("mode", MODES)
def test_no_site_is_both_fitted_and_scored(mode):
    pages = synthetic_corpus()
    folds = fold_names(pages, mode)
    assert len(folds) == len(pages) and len(set(folds)) > 2
    for fold in set(folds):
        scored = [k for k, name in enumerate(folds) if name == fold]
        fitted = training_indices(pages, folds, fold)
        assert fitted, fold
        assert not set(scored) & set(fitted)
        assert not {pages[k].site for k in scored} & {pages[k].site for k in fitted}, fold
        if mode == "source":  # a source left out is left out whole
            assert not {pages[k].source for k in scored} & {pages[k].source for k in fitted}, fold


def test_small_sources_are_left_out_together_and_large_ones_by_site_groups():
    pages = synthetic_corpus()
    sizes = {source: sum(p.source == source for p in pages) for source in {p.source for p in pages}}
    mixed = fold_names(pages, "mixed")
    for p, name in zip(pages, mixed):
        if sizes[p.source] < SMALL_SOURCE:
            assert name == "small sources"
        elif sizes[p.source] < LARGE_SOURCE:
            assert name == p.source
        else:
            assert name.startswith(f"{p.source}/")
    # the site groups of a large source: every page of a site in the same fold
    site_fold = {}
    for p, name in zip(pages, assign_folds(pages, "site")):
        assert site_fold.setdefault((p.source, p.site), name) == name
    with pytest.raises(ValueError, match="unknown fold mode"):
        assign_folds(pages, "random")


@pytest.mark.parametrize("mode", MODES)
def test_the_out_of_fold_scores_come_from_models_that_never_saw_the_site(mode):
    pages = synthetic_corpus()
    folds = fold_names(pages, mode)
    n = len(pages)
    table = ParagraphTable(
        np.arange(n), np.zeros(n, int), np.arange(n, dtype=float)[:, None], np.arange(n) % 2 * 1.0, np.ones(n)
    )
    table.page_rows = {k: np.array([k]) for k in range(n)}
    fits = []

    class Recorder:
        def __init__(self, seen):
            self.seen = seen

        def predict(self, x):
            fits.append((self.seen, {int(k) for k in x[:, 0]}))
            return np.full(len(x), 0.5)

    predicted = out_of_fold(pages, folds, table, table.base, lambda x, y, w: Recorder({int(k) for k in x[:, 0]}))
    assert len(fits) == len(set(folds)) and np.all(predicted == 0.5)
    assert set().union(*(scored for _, scored in fits)) == set(range(n))  # every page scored once
    for seen, scored in fits:
        assert not {pages[k].site for k in seen} & {pages[k].site for k in scored}


def test_each_source_weighs_the_same_and_small_sources_count_as_one():
    pages = synthetic_corpus()
    groups = source_groups(pages)
    assert set(groups) == {"large-a", "large-b", "middle", "small sources"}
    raw = np.linspace(1.0, 3.0, len(pages))
    weights = per_source_weights(raw, groups)
    totals = {group: weights[[g == group for g in groups]].sum() for group in set(groups)}
    assert max(totals.values()) == pytest.approx(min(totals.values()))
    assert sum(totals.values()) == pytest.approx(raw.sum())
    inside = [k for k, g in enumerate(groups) if g == "middle"]  # within a source, the ratios are kept
    np.testing.assert_allclose(weights[inside] / raw[inside], weights[inside[0]] / raw[inside[0]])


def test_ties_within_the_tie_margin_go_to_recall():
    grid = {"precise": (0.90, 0.950), "complete": (0.94, 0.9485), "far behind": (0.99, 0.940)}
    assert recall_first(grid) == "complete"  # 0.0015 under the best F1: a tie, and more recall
    assert recall_first(grid, tie=0.001) == "precise"


def test_logistic_regression_recovers_the_weights_it_was_drawn_from():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20_000, 3))
    truth = np.array([0.5, 2.0, -1.0, 0.0])
    y = (rng.random(len(x)) < sigmoid(truth[0] + x @ truth[1:])).astype(float)
    fitted = fit_linear(x, y, np.ones(len(x)), 1e-6, ("a", "b", "c"))
    assert fitted.names == ("a", "b", "c")
    np.testing.assert_allclose([fitted.intercept, *fitted.weights], truth, atol=0.1)
    beta = fit_logistic(np.c_[np.ones(len(x)), x], y, l2=1e-6)
    np.testing.assert_allclose(beta, [fitted.intercept, *fitted.weights])


def test_the_multinomial_fit_finds_the_weights_the_types_were_drawn_with():
    rng = np.random.default_rng(7)
    x = np.c_[np.ones(6000), rng.normal(size=(6000, 2))]
    truth = np.array([[0.0, 0.5, -0.5], [0.0, 2.0, 0.0], [0.0, 0.0, -2.0]])  # type 0: the reference
    y = np.array([rng.choice(3, p=row) for row in softmax(x @ truth)])
    np.testing.assert_allclose(fit_softmax(x, y, 3, l2=1e-6), truth, atol=0.15)
    shares = softmax(np.array([[1.0, 2.0, 3.0], [1000.0, 0.0, -1000.0]]))
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    assert shares[1, 0] == 1.0  # no overflow


def test_the_multinomial_fit_stays_finite_where_types_are_nearly_separable():
    """Weighted rows of four types, three of them separable from the rest by one feature each: the
    plain Newton step runs away there; the fit must lower the loss and stay finite."""
    rng = np.random.default_rng(3)
    n = 4000
    y = rng.integers(0, 4, n)
    x = np.c_[np.ones(n), rng.normal(size=(n, 6)), (y[:, None] == np.arange(1, 4)) * 5.0]
    w = np.where(y == 0, 8.0, 0.5)
    target = np.eye(4)[y]
    penalty = np.r_[0.0, np.full(x.shape[1] - 1, 1e-3)]
    beta = fit_softmax(x, y, 4, w, l2=1e-3)
    assert np.isfinite(beta).all() and np.abs(beta).max() < 1e3
    assert softmax_loss(x, target, w, penalty, beta[:, 1:]) < softmax_loss(
        x, target, w, penalty, np.zeros((x.shape[1], 3))
    )
    assert np.mean(softmax(x @ beta).argmax(axis=1) == y) > 0.99


def test_logistic_regression_separates_separable_classes():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(500, 2))
    y = (x[:, 0] - 0.5 * x[:, 1] > 0.2).astype(float)
    fitted = fit_linear(x, y, np.ones(len(x)), 1e-3, ("a", "b"))
    assert np.mean((fitted.predict(x) >= 0.5) == (y > 0)) > 0.99
    # the boundary found is the one drawn: x_a - 0.5 x_b = 0.2
    a, b = fitted.weights
    assert b / a == pytest.approx(-0.5, abs=0.05) and -fitted.intercept / a == pytest.approx(0.2, abs=0.05)


def test_boosted_trees_find_the_questions_that_separate_the_classes():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, size=(4000, 4))
    y = ((x[:, 1] > 0.3) & (x[:, 2] < -0.2)).astype(float)  # an interaction no linear model draws
    trees = fit_trees(x, y, trees=30, depth=2, learning_rate=0.5, names=("a", "b", "c", "d"))
    first = {trees.names[f]: t for f, t in zip(trees.features[0], trees.thresholds[0])}
    assert set(first) == {"b", "c"}
    assert first["b"] == pytest.approx(0.3, abs=0.1) and first["c"] == pytest.approx(-0.2, abs=0.1)
    test = rng.uniform(-1, 1, size=(2000, 4))
    truth = (test[:, 1] > 0.3) & (test[:, 2] < -0.2)
    assert np.mean((trees.predict(test) >= 0.5) == truth) > 0.98


def test_platt_scaling_recovers_the_map_it_was_drawn_from():
    rng = np.random.default_rng(4)
    z = rng.uniform(-6, 6, size=50_000)
    raw = sigmoid(z)
    labels = (rng.random(len(z)) < sigmoid(1.5 * z - 0.7)).astype(float)
    fitted = Platt.fit(raw, labels, balanced=False, epsilon=1e-6)
    assert fitted.slope == pytest.approx(1.5, abs=0.1) and fitted.intercept == pytest.approx(-0.7, abs=0.1)
    assert fit_calibration(raw, labels) == fitted
    assert fitted(0.3) == pytest.approx(sigmoid(1.5 * logit(0.3, 1e-6) - 0.7), abs=0.03)
    assert fitted.raw_threshold(fitted(0.3)) == pytest.approx(0.3)
    np.testing.assert_array_equal(fitted.apply(np.array([0.3])), [fitted(0.3)])
    # balanced: the classes weigh alike, so a corpus of mostly articles does not pull the map up
    assert Platt.fit(raw, labels).intercept != fitted.intercept


def fitted_model(rng) -> tuple[Model, np.ndarray, np.ndarray, np.ndarray]:
    """A model fitted on random rows of the code's features, and the rows it was fitted on."""
    settings = ParagraphSettings(trees=5, depth=3)
    x_first = rng.normal(size=(600, len(FIRST_FEATURES)))
    y = (x_first[:, 0] + rng.normal(size=600) > 0).astype(float)
    w = rng.uniform(0.5, 2, size=600)
    x_second = np.hstack([x_first, rng.normal(size=(600, len(SECOND_FEATURES) - len(FIRST_FEATURES)))])
    x_article = rng.normal(size=(300, len(ARTICLE_FEATURES)))
    articles = (x_article[:, 1] + rng.normal(size=300) > 0).astype(float)
    types = ["article" if a else "listing" if x > 0 else "forum" for a, x in zip(articles, x_article[:, 2])]
    judge = fit_article(x_article, types, ArticleSettings(trees=TreeSettings(iterations=20)))
    calibration = fit_calibration(judge.trees.share(x_article), articles)
    built = Model(
        fit_first(x_first, y, w, settings),
        fit_second(x_second, y, w, settings),
        judge.types,
        calibration,
        0.5,
        0.5,
        {"date": "2026-01-01", "feature_fingerprint": fingerprint.feature_fingerprint()},
        article_threshold=0.3,
        article_trees=judge.trees,
    )
    return built, x_first, x_second, x_article


def test_a_fitted_model_written_and_read_back_predicts_exactly_the_same(tmp_path):
    rng = np.random.default_rng(5)
    fitted, x_first, x_second, x_article = fitted_model(rng)
    path = tmp_path / "model.json"
    write_model(fitted, path)
    loaded = load_model(path)
    assert loaded is not fitted and loaded.to_json() == fitted.to_json()
    assert np.array_equal(loaded.first.predict(x_first), fitted.first.predict(x_first))
    assert np.array_equal(loaded.second.predict(x_second), fitted.second.predict(x_second))
    assert np.array_equal(loaded.article.predict(x_article), fitted.article.predict(x_article))
    assert np.array_equal(loaded.article_trees.predict(x_article), fitted.article_trees.predict(x_article))
    scores = fitted.article_trees.share(x_article)
    assert [loaded.calibration(s) for s in scores.tolist()] == [fitted.calibration(s) for s in scores.tolist()]
    row = dict(zip(ARTICLE_FEATURES, x_article[0].tolist()))
    assert loaded.article_probability(row) == fitted.article_probability(row)
    assert 0.0 <= fitted.article_probability(row) <= 1.0
    assert loaded.judge(row) == fitted.judge(row) and loaded.article_threshold == 0.3
    assert fitted.article.types == ("article", "listing", "forum")


def test_the_judges_trees_give_scikit_learns_probabilities_on_their_training_rows():
    sklearn = pytest.importorskip("sklearn.ensemble")
    rng = np.random.default_rng(11)
    x = rng.normal(size=(400, len(ARTICLE_FEATURES)))
    kinds = ("article", "listing", "forum", "service")
    y = np.where(x[:, 0] * x[:, 1] > 0, 0, np.where(x[:, 2] > 0.5, 1, np.where(x[:, 3] > 0, 2, 3)))
    w = rng.uniform(0.5, 2, size=400)
    settings = TreeSettings(iterations=30)
    forest = fit_forest(x, y, w, ARTICLE_FEATURES, kinds, settings)
    library = sklearn.HistGradientBoostingClassifier(
        max_iter=30, max_leaf_nodes=settings.leaves, min_samples_leaf=settings.min_leaf,
        l2_regularization=settings.l2, learning_rate=settings.learning_rate, early_stopping=False, random_state=0,
    ).fit(x, y, sample_weight=w)  # fmt: skip
    assert np.abs(forest.predict(x) - library.predict_proba(x)).max() <= AGREEMENT
    assert np.abs(forest_of(library, ARTICLE_FEATURES, kinds).predict(x) - forest.predict(x)).max() <= AGREEMENT
    read_back = Forest.from_json(json.loads(json.dumps(forest.to_json())))
    assert np.array_equal(read_back.predict(x), forest.predict(x)) and read_back.names == ARTICLE_FEATURES
    # two types: one score, its sigmoid the second type's probability
    binary = fit_forest(x, (y == 0).astype(int), w, ARTICLE_FEATURES, ("listing", "article"), settings)
    assert np.abs(binary.share(x) - binary.predict(x)[:, 1]).max() == 0.0
    assert Forest.from_json(json.loads(json.dumps(binary.to_json()))).predict(x).shape == (400, 2)


def test_a_tree_asking_about_a_feature_the_judge_does_not_weigh_is_refused():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 3))
    data = fit_forest(x, (x[:, 0] > 0).astype(int), np.ones(200), ("a", "b", "c"), ("listing", "article")).to_json()
    node = next(node for tree in data["scores"]["article"]["trees"] for node in tree if len(node) == 4)
    node[0] = "a_feature_nobody_computes"
    with pytest.raises(ModelError, match="a_feature_nobody_computes"):
        Forest.from_json(data)


def test_a_model_file_with_a_part_missing_is_refused(tmp_path):
    data = json.loads(model.MODEL_FILE.read_text(encoding="utf-8"))
    del data["calibration"]["epsilon"]
    with pytest.raises(ModelError, match="epsilon"):
        model.read_model(data)
    data = json.loads(model.MODEL_FILE.read_text(encoding="utf-8"))
    data["second_pass"]["trees"]["trees"][0]["questions"][0][0] = "a_feature_nobody_computes"
    with pytest.raises(ModelError, match="a_feature_nobody_computes"):
        model.read_model(data)


def test_the_shipped_model_was_fitted_on_the_features_the_code_computes():
    shipped = load_model()
    assert shipped.first.names == FIRST_FEATURES
    assert shipped.second.linear.names == shipped.second.trees.names == SECOND_FEATURES
    assert shipped.article.names == ARTICLE_FEATURES
    assert shipped.about["feature_fingerprint"] == fingerprint.feature_fingerprint(), (
        "a feature computes other values than the model was fitted on: refit it "
        "(python -m scrapy_bodytext.training CORPUS --write), see docs/development.md"
    )


def test_the_feature_fingerprint_follows_what_a_feature_measures(monkeypatch):
    before = fingerprint.feature_fingerprint()
    assert fingerprint.feature_fingerprint() == before
    monkeypatch.setattr(page, "SHORT_SELECTION_CHARS", page.SHORT_SELECTION_CHARS + 100)
    assert fingerprint.feature_fingerprint() != before


PACKAGE = Path(scrapy_bodytext.__file__).parent


def _modules(folder: Path):
    for path in sorted(folder.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_evaluation_imports_nothing_from_training():
    for path, tree in _modules(PACKAGE / "evaluation"):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert "training" not in (node.module or "").split("."), f"{path.name} imports {node.module}"
            elif isinstance(node, ast.Import):
                assert not any("training" in alias.name.split(".") for alias in node.names), path.name


def test_one_sigmoid_and_one_logit_in_the_package():
    defined = [
        (path.relative_to(PACKAGE).as_posix(), node.name)
        for path, tree in _modules(PACKAGE)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name.strip("_") in ("sigmoid", "logit", "logistic", "fit_platt")
    ]
    # each is written three times there: two typing overloads and the definition
    assert sorted(set(defined)) == [("extractors/probability.py", "logit"), ("extractors/probability.py", "sigmoid")]


def test_a_map_moved_to_the_default_threshold_makes_the_same_decisions_there():
    fitted = Platt(1.3, -0.4, 1e-6)
    raw = np.linspace(0.001, 0.999, 999)
    rule = 0.12
    moved = fitted.moved(rule, 0.5)
    assert moved(fitted.raw_threshold(rule)) == pytest.approx(0.5)
    np.testing.assert_array_equal(moved.apply(raw) >= 0.5, fitted.apply(raw) >= rule - 1e-12)
    assert np.all(np.diff(moved.apply(raw)) > 0)  # still monotone: the ranking is kept


def test_each_corpus_gets_its_own_cache_and_only_the_first_fits_the_paragraph_models():
    from scrapy_bodytext.training.crossval import corpus_cache, paragraph_folds

    assert corpus_cache("/tmp/pages.pickle", "/data/dev", ["/data/dev"]) == "/tmp/pages.pickle"
    named = [
        corpus_cache("/tmp/pages.pickle", folder, ["/data/dev", "/data/sites"])
        for folder in ("/data/dev", "/data/sites")
    ]
    assert named == ["/tmp/pages.dev.pickle", "/tmp/pages.sites.pickle"]
    assert corpus_cache(None, "/data/dev", ["/data/dev", "/data/sites"]) is None
    folds = paragraph_folds(["a", "b", "site-x", "site-y"], ["dev", "dev", "sites", "sites"])
    assert folds[:2] == ["a", "b"] and folds[2] == folds[3] != "site-x"


def test_a_whole_site_corpus_gives_its_own_page_types():
    from scrapy_bodytext.training.page_types import note_type

    assert note_type(False, "", {}, "sit-1", "listing") == "listing"
    assert note_type(False, "", {}, "sit-2", "documentation") == "documentation"
    assert note_type(True, "", {}, "sit-3", "article") == "article"
    assert note_type(False, "", {"sit-4": "service"}, "sit-4", "not-a-type") == "service"


def test_pages_of_a_corpus_only_scored_weigh_nothing_in_the_paragraph_models():
    weights = per_source_weights(np.array([1.0, 3.0, 0.0, 0.0]), ["a", "b", "c", "c"])
    np.testing.assert_allclose(weights, [2.0, 2.0, 0.0, 0.0])


def test_the_tradeoff_curve_counts_what_each_threshold_drops(tmp_path, capsys):
    from scrapy_bodytext.training.tradeoff import main as tradeoff_main
    from scrapy_bodytext.training.tradeoff import tradeoff_table

    probability = {"a1": 0.95, "a2": 0.45, "a3": 0.8, "l1": 0.2, "l2": 0.55, "s1": 0.1}
    kinds = {"a1": "article", "a2": "article", "a3": "article", "l1": "listing", "l2": "listing", "s1": "service"}
    source = {"a1": "x", "a2": "y", "a3": "y", "l1": "x", "l2": "x", "s1": "y"}
    lines = tradeoff_table(probability, kinds, source, thresholds=(0.5, 0.9), min_pages=2)
    assert lines[0].startswith("ROC AUC 0.889 (3 articles, 3 non-articles)")
    assert lines[2] == "| threshold | articles dropped | worst source | non-articles dropped | listing (2) |"
    assert lines[4] == "| 0.5 | 1 (33.3%) | 50.0% y | 2 (66.7%) | 50% |"  # a2 (of y's two) dropped; l1, s1
    assert lines[5] == "| 0.9 | 2 (66.7%) | 100.0% y | 3 (100.0%) | 100% |"
    figures = tmp_path / "figures.json"
    rows = {
        k: {"article_probability": p, "labelled_type": kinds[k], "source": source[k], "corpus": "dev"}
        for k, p in probability.items()
    }
    figures.write_text(json.dumps({"pages": rows}))
    assert tradeoff_main([str(figures)]) == 0
    assert "## Trade-off, dev" in capsys.readouterr().out
    assert tradeoff_main([str(tmp_path / "missing.json")]) == 2
