"""Text-overlap metrics between an extraction and gold text."""

from __future__ import annotations

import re
from collections import Counter

_WORD_RE = re.compile(r"\w+")


def bag_of_words(text: str) -> Counter:
    """Case-sensitive multiset of ``\\w+`` tokens."""
    return Counter(_WORD_RE.findall(text))


def prf(predicted: Counter, gold: Counter) -> tuple[float, float, float]:
    """Precision, recall and F1 of two multisets; both empty counts as a perfect match."""
    if not predicted and not gold:
        return 1.0, 1.0, 1.0
    if not predicted or not gold:
        return 0.0, 0.0, 0.0
    overlap = sum((predicted & gold).values())
    if not overlap:
        return 0.0, 0.0, 0.0
    precision = overlap / sum(predicted.values())
    recall = overlap / sum(gold.values())
    return precision, recall, 2 * precision * recall / (precision + recall)


def token_prf(predicted: str, gold: str) -> tuple[float, float, float]:
    """Bag-of-``\\w+``-tokens precision, recall and F1."""
    return prf(bag_of_words(predicted), bag_of_words(gold))


def token_f1(predicted: str, gold: str) -> float:
    return token_prf(predicted, gold)[2]
