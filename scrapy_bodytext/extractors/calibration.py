"""Monotone maps from a method's raw score (a region P) to a calibrated article probability, and their
fit on a labelled corpus (docs/methods.md#calibration).

The map is Platt scaling on the log-odds of the raw score:

    p = 1 / (1 + exp(-(slope · logit(P) + intercept)))

fitted by class-balanced logistic regression, so p ≥ 0.5 means "more likely an article than not" with
articles and non-articles weighted as equally frequent (the dev corpus is 85 % articles; a crawl's mix
is unknown). P = 0 (nothing extracted) stays 0 and P = 1 stays 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: raw scores are clipped to [EPSILON, 1 - EPSILON] before taking log-odds
EPSILON = 1e-4


def _logit(p: float) -> float:
    p = min(1.0 - EPSILON, max(EPSILON, p))
    return math.log(p / (1.0 - p))


@dataclass(frozen=True)
class LogitMap:
    """``p = sigmoid(slope · logit(raw) + intercept)``; identity for slope 1, intercept 0."""

    slope: float = 1.0
    intercept: float = 0.0

    def __call__(self, raw: float) -> float:
        if raw <= 0.0:
            return 0.0
        if raw >= 1.0:
            return 1.0
        z = self.slope * _logit(raw) + self.intercept
        if z < -700:  # exp overflow
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))

    def raw_threshold(self, probability: float = 0.5) -> float:
        """The raw score that maps to ``probability`` (where the decision boundary lies on raw P)."""
        x = (_logit(probability) - self.intercept) / self.slope
        return 1.0 / (1.0 + math.exp(-x))


def fit_logit_map(
    raw: Sequence[float], labels: Sequence[bool], *, ridge: float = 1e-3, iterations: int = 100
) -> LogitMap:
    """Class-balanced logistic regression of ``labels`` on ``logit(raw)`` (Newton's method).

    A small ridge penalty keeps the fit finite when the classes are separable. Needs both classes.
    """
    positives = sum(1 for label in labels if label)
    negatives = len(labels) - positives
    if not positives or not negatives:
        raise ValueError("calibration needs both articles and non-articles")
    weight = {True: len(labels) / (2 * positives), False: len(labels) / (2 * negatives)}
    xs = [_logit(p) for p in raw]
    ys = [1.0 if label else 0.0 for label in labels]
    ws = [weight[bool(label)] for label in labels]
    a, b = 1.0, 0.0
    for _ in range(iterations):
        ga = gb = haa = hab = hbb = 0.0
        for x, y, w in zip(xs, ys, ws):
            z = max(-30.0, min(30.0, a * x + b))
            p = 1.0 / (1.0 + math.exp(-z))
            r = w * (p - y)
            h = w * p * (1.0 - p)
            ga += r * x
            gb += r
            haa += h * x * x
            hab += h * x
            hbb += h
        ga += ridge * a
        haa += ridge
        hbb += ridge
        det = haa * hbb - hab * hab
        if det <= 0:
            break
        step_a = (hbb * ga - hab * gb) / det
        step_b = (haa * gb - hab * ga) / det
        a, b = a - step_a, b - step_b
        if abs(step_a) + abs(step_b) < 1e-10:
            break
    return LogitMap(a, b)
