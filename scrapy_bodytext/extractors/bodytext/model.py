"""The fitted model of the default method, read once from ``model.json``.

The file is written by ``python -m scrapy_bodytext.training`` and holds, by feature name:

* ``first_pass``: logistic weights over ``units.FEATURES``;
* ``second_pass``: logistic weights and boosted oblivious trees (each a list of ``[feature,
  threshold]`` questions and ``2**depth`` leaf values) over ``units.FEATURES`` + ``context.FEATURES``;
  the paragraph probability is the mean of the two;
* ``selection``: the paragraph cut and the recall guard (``guard``: share, cut, prose_ratio);
* ``article``: logistic weights over ``page.FEATURES``, and ``calibration``: the Platt scaling of
  that score into the article probability;
* ``about``: when and on what it was fitted, its settings and its out-of-fold figures.

Names are checked against the features the code computes when the file is read, so a model and a
feature set that disagree fail loudly rather than score silently wrong.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from . import context, page, units

MODEL_FILE = Path(__file__).with_name("model.json")
FIRST_FEATURES = units.FEATURES
SECOND_FEATURES = (*units.FEATURES, *context.FEATURES)
ARTICLE_FEATURES = page.FEATURES


class ModelError(ValueError):
    """The model file does not fit the code (missing or unknown feature names, bad shape)."""


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -35.0, 35.0)))


def _ordered(weights: dict[str, float], names: tuple[str, ...], part: str) -> np.ndarray:
    if set(weights) != set(names):
        missing, unknown = sorted(set(names) - set(weights)), sorted(set(weights) - set(names))
        raise ModelError(f"{part}: the model's features differ from the code's (missing {missing}, unknown {unknown})")
    return np.array([weights[name] for name in names], float)


@dataclass(frozen=True)
class Linear:
    """Logistic model: ``sigmoid(intercept + x · weights)``."""

    intercept: float
    weights: np.ndarray

    @classmethod
    def read(cls, data: dict[str, Any], names: tuple[str, ...], part: str) -> Linear:
        return cls(float(data["intercept"]), _ordered(data["weights"], names, part))

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        return _sigmoid(self.intercept + x @ self.weights)


@dataclass(frozen=True)
class Trees:
    """Boosted oblivious trees: bit ``k`` of a row's leaf in tree ``t`` answers question ``k``."""

    base: float
    features: np.ndarray  # (trees, depth) column indices
    thresholds: np.ndarray  # (trees, depth)
    leaves: np.ndarray  # (trees, 2**depth)

    @classmethod
    def read(cls, data: dict[str, Any], names: tuple[str, ...], part: str) -> Trees:
        column = {name: index for index, name in enumerate(names)}
        features, thresholds, leaves = [], [], []
        for tree in data["trees"]:
            try:
                features.append([column[name] for name, _ in tree["questions"]])
            except KeyError as exc:
                raise ModelError(f"{part}: a tree asks about {exc.args[0]!r}, which the code does not compute") from None
            thresholds.append([float(value) for _, value in tree["questions"]])
            leaves.append([float(value) for value in tree["leaves"]])
        depth = len(features[0]) if features else 0
        if any(len(f) != depth for f in features) or any(len(v) != 1 << depth for v in leaves):
            raise ModelError(f"{part}: trees of unequal depth or with the wrong number of leaves")
        return cls(float(data["base"]), np.array(features, np.int64).reshape(-1, depth),
                   np.array(thresholds, float).reshape(-1, depth), np.array(leaves, float).reshape(-1, 1 << depth))

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        if not len(self.features):
            return _sigmoid(np.full(len(x), self.base))
        bits = (x[:, self.features] > self.thresholds).astype(np.int64)
        index = bits @ (1 << np.arange(self.features.shape[1], dtype=np.int64))
        return _sigmoid(self.base + self.leaves[np.arange(len(self.features)), index].sum(axis=1))


@dataclass(frozen=True)
class Calibration:
    """Platt scaling of the article model's score: ``sigmoid(intercept + slope * logit(score))``."""

    intercept: float
    slope: float

    def __call__(self, score: float) -> float:
        score = min(max(score, 1e-6), 1 - 1e-6)
        z = self.intercept + self.slope * math.log(score / (1 - score))
        return 1.0 / (1.0 + math.exp(-max(-35.0, min(35.0, z))))


@dataclass(frozen=True)
class Model:
    first: Linear
    second_linear: Linear
    second_trees: Trees
    article: Linear
    calibration: Calibration
    cut: float
    relative_cut: float
    about: dict[str, Any]
    guard: Any = None  # the selection's recall guard (``bodytext.Guard``), None: off

    def first_pass(self, rows: np.ndarray) -> np.ndarray:
        return self.first.probabilities(rows)

    def second_pass(self, rows: np.ndarray) -> np.ndarray:
        return (self.second_linear.probabilities(rows) + self.second_trees.probabilities(rows)) / 2

    def article_probability(self, row: list[float]) -> float:
        score = float(self.article.probabilities(np.array([row], float))[0])
        return min(1.0, max(0.0, self.calibration(score)))


def read_model(data: dict[str, Any]) -> Model:
    """A ``Model`` from the JSON object of a model file (``ModelError`` when it does not fit the code)."""
    try:
        second = data["second_pass"]
        calibration = data["calibration"]
        return Model(
            first=Linear.read(data["first_pass"], FIRST_FEATURES, "first_pass"),
            second_linear=Linear.read(second["linear"], SECOND_FEATURES, "second_pass.linear"),
            second_trees=Trees.read(second["trees"], SECOND_FEATURES, "second_pass.trees"),
            article=Linear.read(data["article"], ARTICLE_FEATURES, "article"),
            calibration=Calibration(float(calibration["intercept"]), float(calibration["slope"])),
            cut=float(data["selection"]["cut"]),
            relative_cut=float(data["selection"]["relative_cut"]),
            about=dict(data.get("about", {})),
            guard=_guard(data["selection"].get("guard")),
        )
    except (KeyError, TypeError) as exc:
        raise ModelError(f"model file lacks {exc}") from None


def _guard(data: dict[str, Any] | None) -> Any:
    from . import Guard  # the guard is the selection's idea; read here only

    return Guard(**{key: float(value) for key, value in data.items()}) if data else None


@cache
def load_model(path: Path = MODEL_FILE) -> Model:
    """The model in ``path`` (read once per process)."""
    return read_model(json.loads(Path(path).read_text(encoding="utf-8")))
