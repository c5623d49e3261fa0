"""Metrics of an extraction against gold text and of an article probability against labels.

Text overlap: bag-of-tokens P/R/F1 and the 4-gram shingle P/R/F1 of the article-extraction-benchmark
(scrapinghub). Classification: ROC AUC, Brier score and a reliability table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean

from ..page.rendering import rendered
from ..page.tokens import words

#: shingle length of the article-extraction-benchmark
SHINGLE_SIZE = 4


def bag_of_words(text: str) -> Counter:
    """Case-sensitive multiset of the words of ``text`` as a reader sees them (``page.rendering``,
    ``page.tokens.words``)."""
    return Counter(words(rendered(text)))


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
    """Bag-of-words precision, recall and F1."""
    return prf(bag_of_words(predicted), bag_of_words(gold))


def token_f1(predicted: str, gold: str) -> float:
    return token_prf(predicted, gold)[2]


# --- 4-gram shingles (article-extraction-benchmark) -------------------------------------------------


def shingles(text: str, size: int = SHINGLE_SIZE) -> Counter:
    """Multiset of the runs of ``size`` consecutive words; a text with fewer tokens is
    one shingle of all of them, an empty text none. Words as a reader sees them: a soft hyphen or a
    decomposed accent in a gold text or an output is no word break (``page.rendering``)."""
    tokens = words(rendered(text))
    if len(tokens) <= size:
        return Counter([tuple(tokens)]) if tokens else Counter()
    return Counter(zip(*(tokens[offset:] for offset in range(size))))


@dataclass(frozen=True, slots=True)
class ShingleMatch:
    """True-positive, false-positive and false-negative shingle counts of one page, divided by their
    sum (so that every page weighs the same; all zero when both texts are empty)."""

    tp: float
    fp: float
    fn: float

    @property
    def precision(self) -> float | None:
        """Page precision; ``None`` when nothing was predicted (such pages stay out of the mean)."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """Page recall; ``None`` when the gold text is empty (such pages stay out of the mean)."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float:
        """Page F1; two empty texts match perfectly."""
        if not (self.tp or self.fp or self.fn):
            return 1.0
        p, r = self.precision or 0.0, self.recall or 0.0
        return 2 * p * r / (p + r) if p + r else 0.0


def shingle_match(predicted: str, gold: str, size: int = SHINGLE_SIZE) -> ShingleMatch:
    """Compare the shingle multisets of ``predicted`` and ``gold`` text."""
    found, wanted = shingles(predicted, size), shingles(gold, size)
    tp = sum((found & wanted).values())
    fp = sum((found - wanted).values())
    fn = sum((wanted - found).values())
    total = tp + fp + fn
    if not total:
        return ShingleMatch(0.0, 0.0, 0.0)
    return ShingleMatch(tp / total, fp / total, fn / total)


def shingle_prf(matches: Iterable[ShingleMatch]) -> tuple[float, float, float]:
    """The benchmark's corpus figures: precision is the mean page precision over pages with a
    prediction, recall the mean page recall over pages with gold text, F1 their harmonic mean."""
    matches = list(matches)
    precisions = [m.precision for m in matches if m.precision is not None]
    recalls = [m.recall for m in matches if m.recall is not None]
    precision = fmean(precisions) if precisions else 0.0
    recall = fmean(recalls) if recalls else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


# --- article probability ---------------------------------------------------------------------------


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Probability that a random positive scores above a random negative (ties count one half);
    ``None`` when one class is absent."""
    if len(scores) != len(labels):
        raise ValueError("scores and labels differ in length")
    order = sorted(range(len(scores)), key=scores.__getitem__)
    positives = sum(1 for label in labels if label)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return None
    # Mann-Whitney U from average ranks (ties share the mean of their ranks)
    rank_sum = 0.0
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[start]]:
            end += 1
        mean_rank = (start + end) / 2 + 1
        rank_sum += mean_rank * sum(1 for i in order[start : end + 1] if labels[i])
        start = end + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def brier_score(probabilities: Sequence[float], labels: Sequence[bool]) -> float:
    """Mean squared difference between probability and outcome (0 is perfect, 0.25 is a coin)."""
    if len(probabilities) != len(labels):
        raise ValueError("probabilities and labels differ in length")
    if not probabilities:
        raise ValueError("no probabilities")
    return fmean((p - (1.0 if y else 0.0)) ** 2 for p, y in zip(probabilities, labels))


@dataclass(frozen=True, slots=True)
class ReliabilityBin:
    """Pages whose probability fell in ``[low, high)`` (the last bin includes 1.0)."""

    low: float
    high: float
    pages: int
    mean_probability: float | None
    article_share: float | None


def reliability_table(probabilities: Sequence[float], labels: Sequence[bool], bins: int = 10) -> list[ReliabilityBin]:
    """Observed share of articles per probability bin: a calibrated probability has
    ``article_share`` close to ``mean_probability`` in every bin."""
    if len(probabilities) != len(labels):
        raise ValueError("probabilities and labels differ in length")
    if bins < 1:
        raise ValueError("bins must be at least 1")
    members: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for p, y in zip(probabilities, labels):
        members[min(bins - 1, max(0, int(p * bins)))].append((p, bool(y)))
    table = []
    for index, found in enumerate(members):
        table.append(
            ReliabilityBin(
                low=index / bins,
                high=(index + 1) / bins,
                pages=len(found),
                mean_probability=fmean(p for p, _ in found) if found else None,
                article_share=sum(y for _, y in found) / len(found) if found else None,
            )
        )
    return table
