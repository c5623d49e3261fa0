"""The page-level article model, fitted on out-of-fold paragraph scores, and its calibration.

A logistic model over ``page.FEATURES``. Every training page is seen twice, with its URL evidence
and with none (as on a page whose URL is not known), so that the verdict holds without the URL
and does not lean on it. Articles weigh more than non-articles as a class: a dropped article is
lost data, a kept listing page only noise. The raw score is then calibrated into a probability by
Platt scaling, fitted on out-of-fold scores (and, for the figures, cross-fitted: each fold's
pages are calibrated by a map fitted on the other folds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..extractors.bodytext import page as page_level
from ..extractors.bodytext.model import Linear
from ..extractors.bodytext.table import Table
from ..extractors.probability import Platt
from .dataset import PageData
from .folds import training_indices
from .paragraph_models import fit_linear

#: raw article scores are clipped to [this, 1 - this] before their log-odds are taken
CALIBRATION_EPSILON = 1e-6
URL_COLUMNS = np.array([page_level.FEATURES.index(name) for name in page_level.URL_FEATURES])


@dataclass(frozen=True)
class ArticleSettings:
    article_weight: float = 4.0  # class weight of articles relative to non-articles
    l2: float = 1.0
    threshold: float = 0.5


def article_matrix(rows: Sequence[Mapping[str, float]]) -> np.ndarray:
    """The article rows (name -> value) as a matrix in the order of ``page.FEATURES``."""
    return Table.of_rows(rows, page_level.FEATURES, "article features").values


def without_url(x: np.ndarray) -> np.ndarray:
    stripped = x.copy()
    stripped[:, URL_COLUMNS] = 0.0
    return stripped


def fit_article(x: np.ndarray, y: np.ndarray, settings: ArticleSettings) -> Linear:
    both = np.vstack([x, without_url(x)])
    labels = np.concatenate([y, y])
    articles = labels.sum()
    others = len(labels) - articles
    weights = np.where(labels > 0, settings.article_weight / max(articles, 1), 1.0 / max(others, 1))
    weights *= len(weights) / weights.sum()
    return fit_linear(both, labels, weights, settings.l2, page_level.FEATURES)


def fit_calibration(scores: np.ndarray, labels: np.ndarray) -> Platt:
    """The Platt map of raw article scores to probabilities (not class-balanced: the class weight
    is the article model's)."""
    return Platt.fit(scores, labels, balanced=False, epsilon=CALIBRATION_EPSILON)


def out_of_fold_scores(
    pages: Sequence[PageData], folds: Sequence[str], rows: dict[int, np.ndarray], settings: ArticleSettings
) -> tuple[dict[int, float], dict[int, float]]:
    """Raw out-of-fold article scores per page, with the URL evidence and without it."""
    with_url, no_url = {}, {}
    for fold in sorted(set(folds)):
        train = [k for k in training_indices(pages, folds, fold) if k in rows]
        test = [k for k, name in enumerate(folds) if name == fold and k in rows]
        if not test:
            continue
        model = fit_article(
            article_matrix([rows[k] for k in train]), np.array([pages[k].is_article for k in train], float), settings
        )
        x = article_matrix([rows[k] for k in test])
        for k, a, b in zip(test, model.predict(x), model.predict(without_url(x))):
            with_url[k], no_url[k] = float(a), float(b)
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
