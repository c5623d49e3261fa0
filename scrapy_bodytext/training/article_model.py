"""The page-type judge, fitted on out-of-fold paragraph scores, and its calibration.

A multinomial logistic model over ``page.FEATURES`` with one share per page type
(``page.PAGE_TYPES``; the types the training pages have). Every training page is seen twice, with
its URL evidence and with none (as on a page whose URL is not known), so that the verdict holds
without the URL and does not lean on it. Articles weigh more than non-articles as a class (a dropped
article is lost data, a kept listing page only noise); among the non-articles a type weighs with the
square root of its page count, so that a type with few pages (forums, documentation) still counts.
The article share is then calibrated into a probability by Platt scaling, fitted on out-of-fold
scores (and, for the figures, cross-fitted: each fold's pages are calibrated by a map fitted on the
other folds).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..extractors.bodytext import page as page_level
from ..extractors.bodytext.model import Softmax
from ..extractors.bodytext.table import Table
from ..extractors.probability import Platt
from .dataset import PageData
from .fitting import fit_softmax
from .folds import training_indices

#: raw article scores are clipped to [this, 1 - this] before their log-odds are taken
CALIBRATION_EPSILON = 1e-6
URL_COLUMNS = np.array([page_level.FEATURES.index(name) for name in page_level.URL_FEATURES])
TYPES = page_level.PAGE_TYPES


@dataclass(frozen=True)
class ArticleSettings:
    article_weight: float = 4.0  # class weight of articles relative to all non-articles together
    l2: float = 1.0
    threshold: float = 0.5  # the decision rule: article probability from which a page is an article


def article_matrix(rows: Sequence[Mapping[str, float]]) -> np.ndarray:
    """The article rows (name -> value) as a matrix in the order of ``page.FEATURES``."""
    return Table.of_rows(rows, page_level.FEATURES, "article features").values


def without_url(x: np.ndarray) -> np.ndarray:
    stripped = x.copy()
    stripped[:, URL_COLUMNS] = 0.0
    return stripped


def type_weights(types: Sequence[str], article_weight: float) -> np.ndarray:
    """Per-page weights: articles together ``article_weight`` times the non-articles together; each
    non-article type's total in proportion to the square root of its page count; mean 1."""
    counts = Counter(types)
    others = {kind: count for kind, count in counts.items() if kind != "article"}
    roots = sum(count**0.5 for count in others.values()) or 1.0
    weights = np.array(
        [
            article_weight / counts["article"] if kind == "article" else others[kind] ** 0.5 / roots / others[kind]
            for kind in types
        ]
    )
    return weights * len(weights) / weights.sum()


def fit_article(x: np.ndarray, types: Sequence[str], settings: ArticleSettings) -> Softmax:
    """The judge fitted on the rows ``x`` of pages of page types ``types`` (article first, then the
    other types the pages have, in the order of ``page.PAGE_TYPES``)."""
    present = tuple(kind for kind in TYPES if kind in set(types))
    both = np.vstack([x, without_url(x)])
    labels = [*types, *types]
    y = np.array([present.index(kind) for kind in labels])
    beta = fit_softmax(
        np.c_[np.ones(len(both)), both], y, len(present), type_weights(labels, settings.article_weight), settings.l2
    )
    return Softmax(beta[0], beta[1:], page_level.FEATURES, present)


def shares_by_type(model: Softmax, x: np.ndarray) -> np.ndarray:
    """The model's shares (rows, ``page.PAGE_TYPES``): 0 for the types it was not fitted on."""
    found = model.predict(x)
    shares = np.zeros((len(x), len(TYPES)))
    for t, kind in enumerate(model.types):
        shares[:, TYPES.index(kind)] = found[:, t]
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
) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """Out-of-fold type shares per page (over ``page.PAGE_TYPES``), with the URL evidence and without it."""
    with_url, no_url = {}, {}
    for fold in sorted(set(folds)):
        train = [k for k in training_indices(pages, folds, fold) if k in rows]
        test = [k for k, name in enumerate(folds) if name == fold and k in rows]
        if not test:
            continue
        model = fit_article(article_matrix([rows[k] for k in train]), [types[k] for k in train], settings)
        x = article_matrix([rows[k] for k in test])
        for k, a, b in zip(test, shares_by_type(model, x), shares_by_type(model, without_url(x))):
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
