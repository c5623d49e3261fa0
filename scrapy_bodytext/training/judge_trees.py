"""The page-type judge's boosted trees fitted with scikit-learn (the ``training`` extra) and turned into
the package's own ``judge.Forest``, which evaluates them with numpy: the plugin needs no library to
run them. ``forest_of`` reads the fitted trees node by node, so the two agree to rounding: every fit
checks it on its training rows (``AGREEMENT``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..extractors.bodytext.judge import Forest, ForestNodes
from ..extras import missing_extra

#: the package's evaluation of the trees must give the library's probabilities to this much on every
#: training row (checked at every fit)
AGREEMENT = 1e-9


@dataclass(frozen=True)
class TreeSettings:
    """scikit-learn's ``HistGradientBoostingClassifier`` settings of the judge (no early stopping:
    every fold fits the same number of trees)."""

    iterations: int = 100
    learning_rate: float = 0.1
    leaves: int = 8
    min_leaf: int = 20
    l2: float = 1.0
    threads: int = 1  # OpenMP threads of a fit: more spin waiting for cores on a shared machine


def fit_forest(
    x: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray,
    names: Sequence[str],
    types: Sequence[str],
    settings: TreeSettings = TreeSettings(),
) -> Forest:
    """Boosted trees of the type indices ``y`` (into ``types``, every one of them present) of the rows
    ``x`` (columns ``names``), each row weighing ``weights``."""
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier
        from threadpoolctl import threadpool_limits
    except ImportError as exc:
        raise missing_extra("fitting the page judge's trees", "training", exc) from exc
    model = HistGradientBoostingClassifier(
        max_iter=settings.iterations,
        learning_rate=settings.learning_rate,
        max_leaf_nodes=settings.leaves,
        min_samples_leaf=settings.min_leaf,
        l2_regularization=settings.l2,
        early_stopping=False,
        random_state=0,
    )
    with threadpool_limits(settings.threads):
        model.fit(np.asarray(x, float), np.asarray(y), sample_weight=weights)
    if list(model.classes_) != list(range(len(types))):
        raise ValueError(f"fitted on types {list(model.classes_)}, expected every one of {len(types)}")
    forest = forest_of(model, names, types)
    difference = largest_difference(forest, model, x)
    if difference > AGREEMENT:
        raise ValueError(f"the package's trees differ from scikit-learn's by {difference} on their training rows")
    return forest


def largest_difference(forest: Forest, model, x: np.ndarray) -> float:
    """The largest difference between the type probabilities of ``forest`` and of the fitted ``model``
    on the rows ``x``."""
    return float(np.abs(forest.predict(x) - model.predict_proba(np.asarray(x, float))).max(initial=0.0))


def forest_of(model, names: Sequence[str], types: Sequence[str]) -> Forest:
    """The ``Forest`` of a fitted ``HistGradientBoostingClassifier`` (numeric features, no missing values)."""
    starts = np.asarray(model._baseline_prediction, float).reshape(-1)
    nodes, depth = ForestNodes(), 0
    for iteration in model._predictors:
        for score, predictor in enumerate(iteration):
            nodes.start_tree(score)
            for node in predictor.nodes:
                if node["is_leaf"]:
                    nodes.leaf(float(node["value"]))
                else:
                    nodes.split(
                        int(node["feature_idx"]), float(node["num_threshold"]), int(node["left"]), int(node["right"])
                    )
            depth = max(depth, int(predictor.nodes["depth"].max()))
    return nodes.forest(starts, depth, names, types)
