"""The page-type judge, fitted on out-of-fold paragraph scores, and its calibration.

A multinomial logistic model over ``page.FEATURES`` with one share per page type
(``page.PAGE_TYPES``; the types the training pages have), and boosted trees (``judge_trees``) of the
article share over the same features (``ArticleSettings.model``: ``trees``; ``linear`` is the
logistic model's own article share, the judge the package ships): the trees answer
questions about several features at once, and the other types share what is not the article's as the
logistic model has them. (A boosted model of every type at once cost about twelve times the CPU of the
article's alone, and the article decision reads the article share only.) Every training page is seen twice,
with its URL evidence and with none (as on a page whose URL is not known), so that the verdict holds
without the URL and does not lean on it. Articles weigh more than non-articles as a class (a dropped
article is lost data, a kept listing page only noise); among the non-articles a type weighs with the
square root of its page count, so that a type with few pages (forums, documentation) still counts;
inside a type, each source (a whole-site corpus's sources are its sites) weighs with the square root
of its pages of that type, so that no one site or theme decides what a type looks like. The article
share is then calibrated into a probability by Platt scaling, fitted on out-of-fold scores (and, for
the figures, cross-fitted: each fold's pages are calibrated by a map fitted on the other folds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..extractors.bodytext import page as page_level
from ..extractors.bodytext.judge import Forest
from ..extractors.bodytext.model import Softmax
from ..extractors.bodytext.table import Table
from ..extractors.probability import Platt
from .dataset import PageData
from .fitting import fit_softmax
from .folds import training_indices
from .judge_trees import TreeSettings, fit_forest

#: raw article scores are clipped to [this, 1 - this] before their log-odds are taken
CALIBRATION_EPSILON = 1e-6
TYPES = page_level.PAGE_TYPES
#: the judges the harness can fit: boosted trees (shipped), the multinomial logistic model (the judge before them)
MODELS = ("trees", "linear")


@dataclass(frozen=True)
class ArticleSettings:
    article_weight: float = 4.0  # class weight of articles relative to all non-articles together
    l2: float = 1.0  # the linear judge's L2 penalty
    threshold: float = 0.5  # the decision rule: article probability from which a page is an article
    model: str = "trees"  # one of ``MODELS``
    balance_sources: bool = True  # inside a type, each source weighs with the square root of its pages
    trees: TreeSettings = TreeSettings()


#: the trees' two types: they score the article share alone
TREE_TYPES = ("non-article", "article")


@dataclass(frozen=True)
class Judge:
    """A fitted judge: the multinomial logistic model of the page types, and the boosted trees of the
    article share where the judge has them (``None``: the linear model's article share)."""

    types: Softmax
    trees: Forest | None


def article_matrix(rows: Sequence[Mapping[str, float]], names: Sequence[str] = page_level.FEATURES) -> np.ndarray:
    """The article rows (name -> value; a row may hold more features than ``names``) as a matrix in the
    order of ``names`` (default ``page.FEATURES``)."""
    names = tuple(names)
    picked = [{name: row[name] for name in names if name in row} for row in rows]
    return Table.of_rows(picked, names, "article features").values


def without_url(x: np.ndarray, names: Sequence[str] = page_level.FEATURES) -> np.ndarray:
    """``x`` (columns ``names``) with its URL evidence (features named ``url_...``) zeroed."""
    stripped = x.copy()
    stripped[:, [j for j, name in enumerate(names) if name.startswith("url_")]] = 0.0
    return stripped


def type_weights(types: Sequence[str], article_weight: float, groups: Sequence[str] | None = None) -> np.ndarray:
    """Per-page weights: articles together ``article_weight`` times the non-articles together; each
    non-article type's total in proportion to the square root of its page count; inside a type, each
    of ``groups`` (a page's source, where given) in proportion to the square root of its pages of the
    type; mean 1."""
    counts = Counter(types)
    others = {kind: count for kind, count in counts.items() if kind != "article"}
    roots = sum(count**0.5 for count in others.values()) or 1.0
    weights = np.array(
        [
            article_weight / counts["article"] if kind == "article" else others[kind] ** 0.5 / roots / others[kind]
            for kind in types
        ]
    )
    if groups is not None:
        sizes = Counter(zip(types, groups))
        inside = np.array([sizes[kind, group] ** -0.5 for kind, group in zip(types, groups)])
        for kind in counts:  # each type keeps its total
            members = np.array([t == kind for t in types])
            inside[members] *= members.sum() / inside[members].sum()
        weights = weights * inside
    return weights * len(weights) / weights.sum()


def fit_article(
    x: np.ndarray,
    types: Sequence[str],
    settings: ArticleSettings,
    names: Sequence[str] = page_level.FEATURES,
    groups: Sequence[str] | None = None,
) -> Judge:
    """The judge fitted on the rows ``x`` (columns ``names``) of pages of page types ``types`` (article
    first, then the other types the pages have, in the order of ``page.PAGE_TYPES``) from the sources
    ``groups`` (weighed alike when ``settings.balance_sources``)."""
    present = tuple(kind for kind in TYPES if kind in set(types))
    both = np.vstack([x, without_url(x, names)])
    labels = [*types, *types]
    y = np.array([present.index(kind) for kind in labels])
    sources = [*groups, *groups] if groups is not None and settings.balance_sources else None
    weights = type_weights(labels, settings.article_weight, sources)
    if settings.model not in MODELS:
        raise ValueError(f"unknown judge {settings.model!r}; choose one of {', '.join(MODELS)}")
    beta = fit_softmax(np.c_[np.ones(len(both)), both], y, len(present), weights, settings.l2)
    linear = Softmax(beta[0], beta[1:], tuple(names), present)
    if settings.model == "linear":
        return Judge(linear, None)
    articles = (y == present.index("article")).astype(int)
    return Judge(linear, fit_forest(both, articles, weights, names, TREE_TYPES, settings.trees))


def shares_by_type(model: Judge, x: np.ndarray) -> np.ndarray:
    """The judge's shares (rows, ``page.PAGE_TYPES``): 0 for the types it was not fitted on; with
    trees, the article share is theirs and the other types share the rest as the linear model does."""
    found = model.types.predict(x)
    shares = np.zeros((len(x), len(TYPES)))
    for t, kind in enumerate(model.types.types):
        shares[:, TYPES.index(kind)] = found[:, t]
    if model.trees is not None:
        article = TYPES.index("article")
        p = model.trees.share(x)
        rest = np.maximum(1.0 - shares[:, article], 1e-300)
        shares *= ((1.0 - p) / rest)[:, None]
        shares[:, article] = p
    return shares


def fit_calibration(scores: np.ndarray, labels: np.ndarray) -> Platt:
    """The Platt map of raw article shares to probabilities (not class-balanced: the class weight
    is the judge's)."""
    return Platt.fit(scores, labels, balanced=False, epsilon=CALIBRATION_EPSILON)


def out_of_fold_scores(
    pages: Sequence[PageData],
    folds: Sequence[str],
    rows: dict[int, dict[str, float]],
    types: Sequence[str],
    settings: ArticleSettings,
    names: Sequence[str] = page_level.FEATURES,
) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Out-of-fold type shares per page (over ``page.PAGE_TYPES``), with the URL evidence and without
    it, of the judge weighing the features ``names``."""
    with_url, no_url = {}, {}
    for fold in sorted(set(folds)):
        train = [k for k in training_indices(pages, folds, fold) if k in rows]
        test = [k for k, name in enumerate(folds) if name == fold and k in rows]
        if not test:
            continue
        x_train = article_matrix([rows[k] for k in train], names)
        groups = [pages[k].source for k in train]
        model = fit_article(x_train, [types[k] for k in train], settings, names, groups)
        x = article_matrix([rows[k] for k in test], names)
        for k, a, b in zip(test, shares_by_type(model, x), shares_by_type(model, without_url(x, names))):
            with_url[k], no_url[k] = a, b
    return with_url, no_url


def cross_calibrated(
    pages: Sequence[PageData], folds: Sequence[str], scores: dict[int, float], reference: Sequence[tuple[int, float]]
) -> dict[int, float]:
    """Each fold's ``scores`` calibrated by a map fitted on the ``reference`` (page,
    score) pairs of the pages the fold's model may see (other folds, other sites): a map fitted on
    scores of other pages, as the shipped map is for pages it never saw."""
    calibrated = {}
    for fold in sorted(set(folds)):
        allowed = set(training_indices(pages, folds, fold))
        train = [(k, score) for k, score in reference if k in allowed]
        test = [k for k, name in enumerate(folds) if name == fold and k in scores]
        if not test:
            continue
        calibration = fit_calibration(
            np.array([score for _, score in train]), np.array([pages[k].is_article for k, _ in train], float)
        )
        for k, value in zip(test, calibration.apply(np.array([scores[k] for k in test]))):
            calibrated[k] = float(value)
    return calibrated
