"""The page-type judge as boosted decision trees, evaluated with numpy (no library at run time).

The trees are fitted at training time (``scrapy_bodytext.training.judge_trees``, scikit-learn's
histogram gradient boosting, in the ``training`` extra) and kept in ``model.json`` as data: per page
type, a start score and a list of trees, each node either a question (``[feature, threshold, left,
right]``: go to ``left`` when the page's value of ``feature`` is at most ``threshold``) or a leaf
(``[value]``). A page type's score is its start score plus the leaf each tree leads to; the type
probabilities are the softmax of the scores (one score per type), or, fitted on two types, the
sigmoid of the one score. Trees answer questions about several features at once, which is what the
linear judge could not: a long text is an article's evidence on a page without repeated records,
not on a listing of long teasers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np

from ..probability import sigmoid, softmax
from .table import ModelError, Table


class TypeShares:
    """What every page-type model offers from its ``predict`` (rows, types): the probabilities of a
    table's rows, and one type's share; a model has ``names`` (its columns) and ``types``."""

    names: tuple[str, ...]
    types: tuple[str, ...]

    def predict(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def probabilities(self, rows: Table) -> np.ndarray:
        return self.predict(rows.select(self.names))

    def share(self, x: np.ndarray, kind: str = "article") -> np.ndarray:
        """The probability of type ``kind`` of each row (0 for a type the model was not fitted on)."""
        if kind not in self.types:
            return np.zeros(len(x))
        return self.predict(x)[:, self.types.index(kind)]


@dataclass(frozen=True)
class Forest(TypeShares):
    """Boosted trees with one score per type of ``types`` (one score in all when two types): the
    nodes of every tree in flat arrays, a tree starting at its ``roots`` entry; a leaf's ``feature``
    is -1 and its ``left`` and ``right`` point at itself."""

    starts: np.ndarray  # (scores,) the start score of each
    roots: np.ndarray  # (trees,) the index of each tree's first node
    scores: np.ndarray  # (trees,) the score each tree adds to
    feature: np.ndarray  # (nodes,) column of ``names`` asked, -1 at a leaf
    threshold: np.ndarray  # (nodes,)
    left: np.ndarray  # (nodes,)
    right: np.ndarray  # (nodes,)
    value: np.ndarray  # (nodes,) a leaf's value (0 elsewhere)
    depth: int  # the most questions on a path from a root
    names: tuple[str, ...]
    types: tuple[str, ...]

    def raw(self, x: np.ndarray) -> np.ndarray:
        """The scores (rows, scores) of the rows of ``x`` (columns in the order of ``names``)."""
        x = np.asarray(x, float)
        node = np.broadcast_to(self.roots, (len(x), len(self.roots))).copy()  # (rows, trees)
        rows = np.arange(len(x))[:, None]
        for _ in range(self.depth):
            asked = self.feature[node]
            values = x[rows, np.maximum(asked, 0)]
            node = np.where(values <= self.threshold[node], self.left[node], self.right[node])
        cells = (np.arange(len(x))[:, None] * len(self.starts) + self.scores).ravel()  # (row, score) of each leaf
        sums = np.bincount(cells, weights=self.value[node].ravel(), minlength=len(x) * len(self.starts))
        return self.starts + sums.reshape(len(x), len(self.starts))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Type probabilities (rows, types) of the rows of ``x``."""
        raw = self.raw(x)
        if len(self.types) == 2 and raw.shape[1] == 1:
            p = sigmoid(raw[:, 0])
            return np.c_[1 - p, p]
        return softmax(raw)

    def to_json(self) -> dict[str, Any]:
        trees: dict[str, list] = {str(score): [] for score in range(len(self.starts))}
        ends = [*self.roots[1:].tolist(), len(self.feature)]
        for root, end, score in zip(self.roots.tolist(), ends, self.scores.tolist()):
            nodes = []
            for n in range(root, end):
                if self.feature[n] < 0:
                    nodes.append([float(self.value[n])])
                else:
                    nodes.append(
                        [
                            self.names[self.feature[n]],
                            float(self.threshold[n]),
                            int(self.left[n] - root),
                            int(self.right[n] - root),
                        ]
                    )
            trees[str(score)].append(nodes)
        labels = self.types if len(self.starts) == len(self.types) else self.types[1:]
        return {
            "kind": "trees",
            "features": list(self.names),
            "types": list(self.types),
            "scores": {
                label: {"start": float(self.starts[s]), "trees": trees[str(s)]} for s, label in enumerate(labels)
            },
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], part: str = "article") -> Self:
        names, types = tuple(data["features"]), tuple(data["types"])
        column = {name: index for index, name in enumerate(names)}
        starts, nodes, depth = [], ForestNodes(), 0
        for s, (label, score) in enumerate(data["scores"].items()):
            if label not in types:
                raise ModelError(f"{part}: a score for {label!r}, not one of its types")
            starts.append(float(score["start"]))
            for tree in score["trees"]:
                nodes.start_tree(s)
                for node in tree:
                    if len(node) == 1:
                        nodes.leaf(float(node[0]))
                        continue
                    name, cut, low, high = node
                    if name not in column:
                        raise ModelError(f"{part}: a tree asks about {name!r}, which is not one of its features")
                    nodes.split(column[name], float(cut), int(low), int(high))
                depth = max(depth, _depth(tree))
        return nodes.forest(np.array(starts, float), depth, names, types)


class ForestNodes:
    """The flat node arrays of a ``Forest`` built tree by tree, node by node (a tree's child indices
    relative to its root): one way to read trees, from the package's JSON or from a fitted library."""

    def __init__(self) -> None:
        self.roots: list[int] = []
        self.scores: list[int] = []
        self.feature: list[int] = []
        self.threshold: list[float] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.value: list[float] = []

    def start_tree(self, score: int) -> None:
        self.roots.append(len(self.feature))
        self.scores.append(score)

    def leaf(self, value: float) -> None:
        self._add(-1, 0.0, len(self.feature), len(self.feature), value)

    def split(self, feature: int, threshold: float, low: int, high: int) -> None:
        root = self.roots[-1]
        self._add(feature, threshold, root + low, root + high, 0.0)

    def _add(self, feature: int, threshold: float, left: int, right: int, value: float) -> None:
        self.feature.append(feature)
        self.threshold.append(threshold)
        self.left.append(left)
        self.right.append(right)
        self.value.append(value)

    def forest(self, starts: np.ndarray, depth: int, names: Sequence[str], types: Sequence[str]) -> Forest:
        return Forest(
            starts,
            np.array(self.roots, np.int64),
            np.array(self.scores, np.int64),
            np.array(self.feature, np.int64),
            np.array(self.threshold, float),
            np.array(self.left, np.int64),
            np.array(self.right, np.int64),
            np.array(self.value, float),
            depth,
            tuple(names),
            tuple(types),
        )


def _depth(tree: Sequence[Sequence[Any]]) -> int:
    """The most questions on a path from the tree's root (node 0) to a leaf."""
    deepest, stack = 0, [(0, 0)]
    while stack:
        n, level = stack.pop()
        node = tree[n]
        if len(node) == 1:
            deepest = max(deepest, level)
        else:
            stack += [(int(node[2]), level + 1), (int(node[3]), level + 1)]
    return deepest
