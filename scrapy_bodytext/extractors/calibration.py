"""Monotone maps from a method's raw score (a region P) to a calibrated article probability (fitted on a
labelled corpus by ``LogitMap.fit``; docs/methods.md#calibration).

The map is Platt scaling on the log-odds of the raw score (``probability.Platt``):

    p = 1 / (1 + exp(-(slope · logit(P) + intercept)))

fitted by class-balanced logistic regression, so p ≥ 0.5 means "more likely an article than not" with
articles and non-articles weighted as equally frequent (the dev corpus is 85 % articles; a crawl's mix
is unknown). P = 0 (nothing extracted) stays 0 and P = 1 stays 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from .probability import Platt

#: raw scores are clipped to [EPSILON, 1 - EPSILON] before taking log-odds
EPSILON = 1e-4


@dataclass(frozen=True)
class LogitMap(Platt):
    """``p = sigmoid(slope · logit(raw) + intercept)``; identity for slope 1, intercept 0; a raw score
    of 0 or 1 is kept as it is."""

    epsilon: float = EPSILON

    def __call__(self, raw: float) -> float:
        if raw <= 0.0:
            return 0.0
        if raw >= 1.0:
            return 1.0
        return super().__call__(raw)
