"""Monotone maps from a method's raw score (a region P) to a calibrated article probability (fitted on a
labelled corpus by ``scrapy_bodytext.training.fitting.fit_platt``; docs/methods.md#calibration).

The map is Platt scaling on the log-odds of the raw score:

    p = 1 / (1 + exp(-(slope · logit(P) + intercept)))

fitted by class-balanced logistic regression, so p ≥ 0.5 means "more likely an article than not" with
articles and non-articles weighted as equally frequent (the dev corpus is 85 % articles; a crawl's mix
is unknown). P = 0 (nothing extracted) stays 0 and P = 1 stays 1.
"""

from __future__ import annotations

import math
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
