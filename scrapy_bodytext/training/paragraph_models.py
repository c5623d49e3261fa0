"""The paragraph models of the default method, fitted and scored out of fold.

First pass: a logistic model over each candidate paragraph's own features (``units.FEATURES``).
Second pass: the same features plus the context of the first-pass scores (``context.FEATURES``),
scored by two models whose probabilities are averaged — a logistic model (smooth, extrapolates
gently to pages unlike the corpus) and boosted oblivious trees (interactions: a short line is main
text between good paragraphs, not among menus). As in stacking, the second pass is fitted on
first-pass scores that are themselves out of fold.
"""

from __future__ import annotations

import math
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..extractors.bodytext import context, units
from ..extractors.bodytext.model import FIRST_FEATURES, SECOND_FEATURES, Linear, SecondPass
from ..extractors.probability import fit_logistic
from .dataset import PageData
from .fitting import column_names, fit_trees
from .folds import source_groups, training_indices


@dataclass(frozen=True)
class ParagraphSettings:
    """Hyperparameters of the paragraph models and of the selection."""

    first_l2: float = 1.0
    second_l2: float = 1.0
    trees: int = 100
    depth: int = 4
    learning_rate: float = 0.2
    tree_l2: float = 10.0
    subsample: float = 0.5
    non_article_weight: float = 0.5  # paragraphs of non-article pages count this much
    max_weight_chars: int = 2000  # a paragraph weighs sqrt(min(chars, this))
    per_source: bool = True  # each source weighs the same in total (its paragraphs' weights scaled)
    cut: float = 0.5
    relative_cut: float = 0.5


@dataclass
class ParagraphTable:
    """Every candidate paragraph of every page: its page, its index there, features, label, weight."""

    page: np.ndarray
    index: np.ndarray
    base: np.ndarray
    label: np.ndarray
    weight: np.ndarray
    page_rows: dict[int, np.ndarray] = field(default_factory=dict)  # page -> its rows in the table

    @classmethod
    def of(
        cls, pages: Sequence[PageData], settings: ParagraphSettings, fitted: Sequence[bool] | None = None
    ) -> ParagraphTable:
        """Every candidate of ``pages``; the paragraphs of pages not ``fitted`` (a corpus whose gold
        is only scored) weigh 0, so that no model is fitted on them."""
        page, index, base, label, weight = [], [], [], [], []
        for k, data in enumerate(pages):
            if data.paras is None:
                continue
            share = 1.0 if data.is_article else settings.non_article_weight
            if fitted is not None and not fitted[k]:
                share = 0.0
            base.append(data.paras.rows.select(units.FEATURES))
            for i in data.paras.candidates:
                page.append(k)
                index.append(i)
                label.append(data.labels[i])
                weight.append(math.sqrt(min(data.paras.chars[i], settings.max_weight_chars)) * share)
        base_x = np.vstack(base) if base else np.zeros((0, len(units.FEATURES)))
        weights = np.array(weight, float)
        if settings.per_source:
            groups = source_groups(pages)
            weights = per_source_weights(weights, [groups[k] for k in page])
        table = cls(np.array(page), np.array(index), base_x, np.array(label, float), weights)
        order = np.argsort(table.page, kind="stable")
        bounds = np.searchsorted(table.page[order], np.arange(len(pages) + 1))
        table.page_rows = {k: order[bounds[k] : bounds[k + 1]] for k in range(len(pages)) if bounds[k + 1] > bounds[k]}
        return table

    def rows_of(self, page_indices: Sequence[int]) -> np.ndarray:
        parts = [self.page_rows[k] for k in page_indices if k in self.page_rows]
        return np.concatenate(parts) if parts else np.zeros(0, int)


def per_source_weights(weights: np.ndarray, sources: Sequence[str]) -> np.ndarray:
    """``weights`` scaled so that the paragraphs of every source (``sources``: one group per row, see
    ``folds.source_groups``) weigh the same in total, the mean total of a source: a large source's
    gold conventions must not become the method's."""
    names = np.array(sources)
    scaled = weights.copy()
    groups = [names == source for source in sorted(set(sources))]
    groups = [members for members in groups if weights[members].sum() > 0]  # a source only scored weighs 0
    mean_total = weights.sum() / max(len(groups), 1)
    for members in groups:
        total = weights[members].sum()
        if total > 0:
            scaled[members] *= mean_total / total
    return scaled


def fit_linear(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float, names: tuple[str, ...]) -> Linear:
    """A logistic model of ``y`` on the columns of ``x`` (named ``names``), weighted by ``w``."""
    beta = fit_logistic(np.c_[np.ones(len(x)), x], y, w, l2=l2)
    return Linear(float(beta[0]), beta[1:], column_names(x.shape[1], names))


def fit_first(x: np.ndarray, y: np.ndarray, w: np.ndarray, settings: ParagraphSettings) -> Linear:
    return fit_linear(x, y, w, settings.first_l2, FIRST_FEATURES)


def fit_second(x: np.ndarray, y: np.ndarray, w: np.ndarray, settings: ParagraphSettings) -> SecondPass:
    trees = fit_trees(
        x,
        y,
        w,
        trees=settings.trees,
        depth=settings.depth,
        learning_rate=settings.learning_rate,
        l2=settings.tree_l2,
        subsample=settings.subsample,
        names=SECOND_FEATURES,
    )
    return SecondPass(fit_linear(x, y, w, settings.second_l2, SECOND_FEATURES), trees)


#: what the fold workers read (inherited when they fork, so the arrays are not copied per fold)
_SHARED: dict[str, object] = {}


def _fold_predictions(fold: str) -> tuple[np.ndarray, np.ndarray]:
    pages, folds, table, x, fit = (_SHARED[name] for name in ("pages", "folds", "table", "x", "fit"))
    held = [k for k, name in enumerate(folds) if name == fold]
    test = table.rows_of(held)
    if not len(test):
        return test, np.zeros(0)
    train = table.rows_of(training_indices(pages, folds, fold))
    train = train[table.weight[train] > 0]
    model = fit(x[train], table.label[train], table.weight[train])
    return test, model.predict(x[test])


def out_of_fold(
    pages: Sequence[PageData],
    folds: Sequence[str],
    table: ParagraphTable,
    x: np.ndarray,
    fit: Callable[[np.ndarray, np.ndarray, np.ndarray], object],
    label: str = "",
    processes: int = 1,
) -> np.ndarray:
    """Each table row's prediction by a model fitted without its fold and without its site
    (folds fitted in ``processes`` forked processes at once)."""
    predicted = np.zeros(len(table.label))
    started = time.perf_counter()
    _SHARED.update(pages=pages, folds=folds, table=table, x=x, fit=fit)
    try:
        names = sorted(set(folds))
        if processes > 1 and len(names) > 1:
            context = multiprocessing.get_context("fork")
            with context.Pool(processes) as pool:
                results = pool.map(_fold_predictions, names, chunksize=1)
        else:
            results = [_fold_predictions(name) for name in names]
    finally:
        _SHARED.clear()
    for test, values in results:
        predicted[test] = values
    if label:
        print(f"  {label}: out-of-fold in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return predicted


def per_page(pages: Sequence[PageData], table: ParagraphTable, values: np.ndarray) -> list[list[float] | None]:
    """Table values spread back to one list per page (0 for paragraphs that are not candidates)."""
    found: list[list[float] | None] = [None if p.paras is None else [0.0] * len(p.paras.starts) for p in pages]
    for k, i, value in zip(table.page.tolist(), table.index.tolist(), values.tolist()):
        found[k][i] = value
    return found


def context_matrix(pages: Sequence[PageData], table: ParagraphTable, first: list[list[float] | None]) -> np.ndarray:
    """The second pass's context features of every table row, from per-page first-pass scores."""
    rows = np.zeros((len(table.label), len(context.FEATURES)))
    for k, data in enumerate(pages):
        if k in table.page_rows:
            rows[table.page_rows[k]] = context.context_rows(data.paras, first[k]).select(context.FEATURES)
    return rows
