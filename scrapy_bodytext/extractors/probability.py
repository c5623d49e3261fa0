"""Probabilities from scores: the one sigmoid, logit and Platt map of the package, and their fitters.

Every method and the training harness use these: the default method's models and calibration, the
published methods' calibration maps (``calibration.LogitMap``), Wu & Yang's logistic probability,
the page-type judge's softmax, and the fits behind them (``fit_logistic``, ``Platt.fit``; the
judge's multinomial fit is the harness's, ``training.fitting.fit_softmax``). Each works on a float (with ``math``) or
on a numpy array (with numpy), so a page is scored with the same operations it always was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Self, overload

import numpy as np

#: log-odds beyond ±this are clipped: the probability is then within 1e-15 of 0 or 1, and exp() stays finite
LOGIT_LIMIT = 35.0


@overload
def sigmoid(z: float) -> float: ...
@overload
def sigmoid(z: np.ndarray) -> np.ndarray: ...
def sigmoid(z):
    """``1 / (1 + exp(-z))``, with ``z`` clipped to ±``LOGIT_LIMIT``."""
    if isinstance(z, np.ndarray):
        return 1.0 / (1.0 + np.exp(-np.clip(z, -LOGIT_LIMIT, LOGIT_LIMIT)))
    return 1.0 / (1.0 + math.exp(-max(-LOGIT_LIMIT, min(LOGIT_LIMIT, z))))


@overload
def logit(p: float, epsilon: float) -> float: ...
@overload
def logit(p: np.ndarray, epsilon: float) -> np.ndarray: ...
def logit(p, epsilon):
    """``log(p / (1 - p))``, with ``p`` clipped to [``epsilon``, 1 - ``epsilon``]."""
    if isinstance(p, np.ndarray):
        p = np.clip(p, epsilon, 1 - epsilon)
        return np.log(p / (1 - p))
    p = min(max(p, epsilon), 1 - epsilon)
    return math.log(p / (1 - p))


def fit_logistic(
    x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None, l2: float = 1.0, *, bias: bool = True
) -> np.ndarray:
    """Coefficients of a weighted, L2-regularised logistic regression by Newton's method; with
    ``bias``, column 0 of ``x`` is the bias (all ones) and is not regularised."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    if bias:
        penalty[0] = 0.0
    for _ in range(60):
        p = sigmoid(x @ beta)
        gradient = x.T @ (w * (p - y)) + penalty * beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-7:
            break
    return beta


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise ``exp(z) / sum(exp(z))`` of a (rows, classes) array of scores (the multinomial
    sigmoid), shifted by each row's maximum so that exp() stays finite."""
    z = np.asarray(z, float)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def balanced_weights(labels: np.ndarray) -> np.ndarray:
    """Per-row weights that make both classes count as much in all (each class sums to half)."""
    labels = np.asarray(labels, bool)
    positives = labels.sum()
    negatives = len(labels) - positives
    if not positives or not negatives:
        raise ValueError("both classes are needed")
    return np.where(labels, len(labels) / (2 * positives), len(labels) / (2 * negatives))


@dataclass(frozen=True)
class Platt:
    """Platt scaling: ``p = sigmoid(slope · logit(raw) + intercept)``, ``raw`` clipped to
    [``epsilon``, 1 - ``epsilon``] (two numbers, monotone, smooth)."""

    slope: float = 1.0
    intercept: float = 0.0
    epsilon: float = 1e-4

    @classmethod
    def fit(cls, raw: np.ndarray, labels: np.ndarray, *, balanced: bool = True, epsilon: float = 1e-4) -> Self:
        """The map fitted by logistic regression of ``labels`` on ``logit(raw)``, class-balanced by
        default (p >= 0.5 then means "more likely an article than not" whatever the corpus's mix);
        a small ridge keeps it finite when the classes are separable."""
        x = np.c_[np.ones(len(raw)), logit(np.asarray(raw, float), epsilon)]
        weights = balanced_weights(labels) if balanced else None
        intercept, slope = fit_logistic(x, labels, weights, l2=1e-3)
        return cls(float(slope), float(intercept), epsilon)

    def __call__(self, raw: float) -> float:
        return sigmoid(self.slope * logit(raw, self.epsilon) + self.intercept)

    def apply(self, raw: np.ndarray) -> np.ndarray:
        """The map of every score of ``raw``."""
        return sigmoid(self.slope * logit(np.asarray(raw, float), self.epsilon) + self.intercept)

    def moved(self, rule: float, to: float = 0.5) -> Self:
        """The map moved along the log-odds so that what it maps to ``rule`` maps to ``to``: a
        decision rule chosen on this map's probabilities becomes the rule ``p >= to`` (a cost put into
        the probabilities: the same decisions, at the threshold a caller uses by default)."""
        return type(self)(
            self.slope, self.intercept + logit(to, self.epsilon) - logit(rule, self.epsilon), self.epsilon
        )

    def raw_threshold(self, probability: float = 0.5) -> float:
        """The raw score that maps to ``probability`` (where the decision boundary lies on raw scores)."""
        return sigmoid((logit(probability, self.epsilon) - self.intercept) / self.slope)

    def to_json(self) -> dict[str, float]:
        return {"intercept": self.intercept, "slope": self.slope, "epsilon": self.epsilon}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        return cls(float(data["slope"]), float(data["intercept"]), float(data["epsilon"]))
