"""Measure a method on a labelled corpus and fit the map from its raw region P to an article
probability (used by ``scripts/calibrate_*.py``)."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..api import extract
from ..extractors.calibration import LogitMap, fit_logit_map
from .corpus import LabelledPage
from .metrics import token_f1


@dataclass
class Measurement:
    """Per-page raw scores, labels and F1 of one method on a corpus, and the time it took."""

    name: str
    raw: list[float]
    labels: list[bool]
    extracted: list[bool]
    f1_by_source: dict[str, list[float]]
    seconds: float
    errors: int

    @property
    def mean_f1(self) -> float:
        scores = [f for values in self.f1_by_source.values() for f in values]
        return sum(scores) / len(scores) if scores else 0.0


def measure(pages: Sequence[LabelledPage], extractor: str, options: Mapping[str, Any] | None = None,
            name: str | None = None) -> Measurement:
    """Run ``extractor`` through ``extract()`` on every page; raw P is ``debug["region_p"]``."""
    raw, labels, extracted, errors = [], [], [], 0
    f1_by_source: dict[str, list[float]] = defaultdict(list)
    results = []
    started = time.perf_counter()
    for page in pages:
        results.append(extract(page.body, extractor=extractor, options=options, encoding=page.charset))
    seconds = time.perf_counter() - started
    for page, result in zip(pages, results):
        errors += result.reason == "error"
        raw.append(float(result.debug.get("region_p", 0.0)))
        labels.append(page.is_article)
        extracted.append(bool(result.text))
        if page.is_article:
            f1_by_source[page.source].append(token_f1(result.text, page.gold_text))
    return Measurement(name or extractor, raw, labels, extracted, dict(f1_by_source), seconds, errors)


def accuracy(m: Measurement, to_probability: LogitMap, threshold: float = 0.5) -> tuple[float, float, float]:
    """Accuracy, balanced accuracy and Brier score of ``probability >= threshold`` (and text found)."""
    hits = {True: [0, 0], False: [0, 0]}
    brier = 0.0
    for raw, label, found in zip(m.raw, m.labels, m.extracted):
        p = to_probability(raw)
        hits[label][0] += (p >= threshold and found) == label
        hits[label][1] += 1
        brier += (p - label) ** 2
    total = len(m.labels)
    correct = hits[True][0] + hits[False][0]
    balanced = sum(h / n for h, n in hits.values() if n) / sum(1 for _, n in hits.values() if n)
    return correct / total, balanced, brier / total


def report(m: Measurement, current: LogitMap) -> tuple[LogitMap, str]:
    """The fitted map and a printable report: F1 per source, accuracy before/after calibration, speed."""
    fitted = fit_logit_map(m.raw, m.labels)
    pages = len(m.labels)
    lines = [
        f"{m.name}: {pages} pages in {m.seconds:.1f} s = {pages / m.seconds:.1f} pages/s "
        f"({1000 * m.seconds / pages:.1f} ms/page), errors: {m.errors}",
        f"  mean token F1 on {sum(map(len, m.f1_by_source.values()))} article pages: {m.mean_f1:.3f}",
    ]
    for source, scores in sorted(m.f1_by_source.items()):
        lines.append(f"    {source:<22} {len(scores):4d}  {sum(scores) / len(scores):.3f}")
    for label, mapping in (("raw region P", LogitMap()), ("module constants", current), ("refitted", fitted)):
        acc, balanced, brier = accuracy(m, mapping)
        lines.append(
            f"  at 0.5, {label:<16}: accuracy {acc:.3f}, balanced accuracy {balanced:.3f}, Brier {brier:.3f}"
            f"  (slope {mapping.slope:.3f}, intercept {mapping.intercept:.3f}, raw P threshold "
            f"{mapping.raw_threshold():.3f})"
        )
    return fitted, "\n".join(lines)
