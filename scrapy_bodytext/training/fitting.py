"""The fitters of the default method's models (numpy, offline).

* ``fit_logistic`` (in ``scrapy_bodytext.extractors.probability``, beside the Platt map it fits):
  weighted, L2-regularised logistic regression by Newton's method (the bias is not regularised).
* ``fit_trees``: gradient-boosted *oblivious* trees for the log loss: each tree asks the same
  question (feature > threshold) of every row at each of its levels, so a tree of depth d is d
  questions and 2**d leaf values, and the whole model is evaluated with a few array operations
  (``scrapy_bodytext.extractors.bodytext.model.Trees``). Histogram splits on quantile bins, shrinkage, L2 on leaves.
"""

from __future__ import annotations

import numpy as np

from ..extractors.bodytext.model import Trees
from ..extractors.probability import logit, sigmoid, softmax


def quantile_bins(x: np.ndarray, bins: int) -> list[np.ndarray]:
    """Per column, the distinct candidate thresholds (quantiles of its values)."""
    edges = []
    qs = np.linspace(0, 1, bins + 1)[1:-1]
    for column in x.T:
        values = np.unique(np.quantile(column, qs, method="lower"))
        edges.append(values)
    return edges


def fit_trees(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None = None,
    *,
    trees: int = 200,
    depth: int = 4,
    learning_rate: float = 0.1,
    l2: float = 10.0,
    bins: int = 32,
    subsample: float = 1.0,
    seed: int = 0,
    names: tuple[str, ...] | None = None,
) -> Trees:
    """Boost ``trees`` oblivious trees of ``depth`` levels on the weighted log loss of ``y`` in [0, 1]
    (``names``: the features of the columns of ``x``; ``x0``, ``x1``, ... when not given)."""
    rng = np.random.default_rng(seed)
    n, m = x.shape
    w = np.ones(n) if w is None else np.asarray(w, float)
    w = w * (n / w.sum())
    edges = quantile_bins(x, bins)
    n_bins = max((len(e) + 1 for e in edges), default=1)
    binned = np.empty((n, m), np.int64)
    for j in range(m):
        binned[:, j] = np.searchsorted(edges[j], x[:, j], side="left") + j * n_bins  # x <= edge[b-1] -> bin < b
    # thresholds padded to n_bins - 1 per column; a padded one can never be chosen
    usable = np.zeros((m, n_bins - 1), bool)
    for j, e in enumerate(edges):
        usable[j, : len(e)] = True
    base = logit(float(np.average(y, weights=w)), 1e-6)
    raw = np.full(n, base)
    chosen_f, chosen_t, chosen_leaves = [], [], []
    size = 1 << depth
    for _ in range(trees):
        p = sigmoid(raw)
        g, h = w * (p - y), w * np.maximum(p * (1 - p), 1e-6)
        rows = np.flatnonzero(rng.random(n) < subsample) if subsample < 1 else np.arange(n)
        rb, rg, rh = binned[rows], g[rows], h[rows]
        leaf = np.zeros(len(rows), np.int64)
        tree_f, tree_t = [], []
        for level in range(depth):
            n_leaves = 1 << level
            cells = m * n_bins
            index = (leaf * cells)[:, None] + rb  # (rows, m): leaf, column, bin
            gh = np.bincount(index.ravel(), weights=np.repeat(rg, m), minlength=n_leaves * cells)
            hh = np.bincount(index.ravel(), weights=np.repeat(rh, m), minlength=n_leaves * cells)
            gh, hh = gh.reshape(n_leaves, m, n_bins), hh.reshape(n_leaves, m, n_bins)
            gl, hl = np.cumsum(gh, axis=2)[:, :, :-1], np.cumsum(hh, axis=2)[:, :, :-1]
            gt, ht = gh.sum(axis=2, keepdims=True), hh.sum(axis=2, keepdims=True)
            gain = (gl**2 / (hl + l2) + (gt - gl) ** 2 / (ht - hl + l2)).sum(axis=0)  # (m, n_bins - 1)
            gain[~usable] = -np.inf
            j, b = np.unravel_index(int(np.argmax(gain)), gain.shape)
            if not np.isfinite(gain[j, b]):
                break
            tree_f.append(int(j))
            tree_t.append(float(edges[j][b]))
            leaf |= ((rb[:, j] - j * n_bins) > b).astype(np.int64) << level
        while len(tree_f) < depth:  # no split left: pad with a question every row answers "no"
            tree_f.append(0)
            tree_t.append(np.inf)
        full_index = np.zeros(n, np.int64)
        for k, (jj, tt) in enumerate(zip(tree_f, tree_t)):
            full_index |= (x[:, jj] > tt).astype(np.int64) << k
        gs = np.bincount(full_index[rows], weights=rg, minlength=size)
        hs = np.bincount(full_index[rows], weights=rh, minlength=size)
        values = -learning_rate * gs / (hs + l2)
        chosen_f.append(tree_f)
        chosen_t.append(tree_t)
        chosen_leaves.append(values)
        raw += values[full_index]
    return Trees(
        base,
        np.array(chosen_f, np.int64).reshape(-1, depth),
        np.array(chosen_t, float).reshape(-1, depth),
        np.array(chosen_leaves, float).reshape(-1, size),
        column_names(m, names),
    )


def column_names(columns: int, names: tuple[str, ...] | None) -> tuple[str, ...]:
    """``names``, checked to name each of the ``columns``, or ``x0``, ``x1``, ... when not given."""
    if names is None:
        return tuple(f"x{j}" for j in range(columns))
    if len(names) != columns:
        raise ValueError(f"{len(names)} names for {columns} columns")
    return tuple(names)


def softmax_loss(x: np.ndarray, target: np.ndarray, w: np.ndarray, penalty: np.ndarray, beta: np.ndarray) -> float:
    """The weighted multinomial log loss of ``beta`` (class 0's scores fixed at zero) plus its L2 term."""
    z = np.c_[np.zeros(len(x)), x @ beta]
    top = z.max(axis=1, keepdims=True)
    log_p = z - top - np.log(np.exp(z - top).sum(axis=1, keepdims=True))
    return float(-(w * (target * log_p).sum(axis=1)).sum() + 0.5 * (penalty[:, None] * beta**2).sum())


def fit_softmax(
    x: np.ndarray, y: np.ndarray, classes: int, w: np.ndarray | None = None, l2: float = 1.0, *, bias: bool = True
) -> np.ndarray:
    """Coefficients (features, classes) of a weighted, L2-regularised multinomial logistic regression
    of the class indices ``y`` by Newton's method with step halving; class 0's scores are fixed at
    zero (the reference: the model is identified), and with ``bias``, column 0 of ``x`` is the bias and
    is not regularised. A full Newton step is taken only where it lowers the loss (else half of it,
    and so on): where some types are nearly separable from the others the plain step overshoots
    and runs away (the judge of every page type on whole sites and single pages does)."""
    x, y = np.asarray(x, float), np.asarray(y, int)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    n, d = x.shape
    k = classes - 1
    target = np.zeros((n, classes))
    target[np.arange(n), y] = 1.0
    penalty = np.full(d, l2)
    if bias:
        penalty[0] = 0.0
    beta = np.zeros((d, k))
    loss = softmax_loss(x, target, w, penalty, beta)
    for _ in range(100):
        p = softmax(np.c_[np.zeros(n), x @ beta])
        gradient = (x.T @ (w[:, None] * (p[:, 1:] - target[:, 1:]))) + penalty[:, None] * beta
        hessian = np.empty((d * k, d * k))
        for a in range(k):
            for b in range(a, k):  # symmetric: each block above the diagonal once
                c = p[:, a + 1] * ((a == b) - p[:, b + 1]) * w
                block = (x * c[:, None]).T @ x
                hessian[a * d : (a + 1) * d, b * d : (b + 1) * d] = block
                hessian[b * d : (b + 1) * d, a * d : (a + 1) * d] = block.T
        hessian += np.diag(np.tile(penalty, k) + 1e-9)
        step = np.linalg.solve(hessian, gradient.T.reshape(-1)).reshape(k, d).T
        scale = 1.0
        for _ in range(40):
            trial = beta - scale * step
            trial_loss = softmax_loss(x, target, w, penalty, trial)
            if trial_loss <= loss:
                break
            scale /= 2
        else:
            break  # no step lowers the loss: at the optimum within rounding
        beta, loss = trial, trial_loss
        if np.abs(scale * step).max() < 1e-7:
            break
    return np.c_[np.zeros(d), beta]
