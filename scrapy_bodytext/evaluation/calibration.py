"""Measure a method on a labelled corpus and fit the map from its raw region P to an article
probability (used by ``scripts/calibrate_*.py``); pages are run and scored by ``report.run_pages``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..api import extract_with_config
from ..config import ExtractConfig
from ..extractors.calibration import LogitMap
from .corpus import LabelledPage
from .report import Outcome, PageScore, Run, run_pages, summarize


def _raw_p_runner(config: ExtractConfig, page: LabelledPage) -> Outcome:
    """Like the report's runner, but the probability is the method's raw region P."""
    result = extract_with_config(page.body, config, url=page.url, encoding=page.charset)
    return result.text, float(result.debug.get("region_p", 0.0)), result.is_article, result.reason.value


@dataclass
class Measurement:
    """Per-page scores of one method on a corpus (``probability`` holds the raw region P)."""

    name: str
    scores: list[PageScore]
    figures: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.figures = summarize(Run(self.name, self.scores))

    @property
    def raw(self) -> list[float]:
        return [s.probability or 0.0 for s in self.scores]

    @property
    def labels(self) -> list[bool]:
        return [s.is_article for s in self.scores]


def measure(
    pages: Sequence[LabelledPage], extractor: str, options: Mapping[str, Any] | None = None, name: str | None = None
) -> Measurement:
    """Run ``extractor`` (with ``options``) on every page; the raw P is its ``debug["region_p"]``."""
    config = ExtractConfig(extractor=extractor, options={extractor: dict(options or {})})
    return Measurement(name or extractor, run_pages(pages, partial(_raw_p_runner, config)))


def accuracy(m: Measurement, to_probability: LogitMap, threshold: float = 0.5) -> tuple[float, float, float]:
    """Accuracy, balanced accuracy and Brier score of ``probability >= threshold`` (and text found)."""
    hits = {True: [0, 0], False: [0, 0]}
    brier = 0.0
    for s in m.scores:
        p = to_probability(s.probability or 0.0)
        judged = p >= threshold and s.reason == "ok"
        hits[s.is_article][0] += judged == s.is_article
        hits[s.is_article][1] += 1
        brier += (p - s.is_article) ** 2
    total = len(m.scores)
    counted = [h / n for h, n in hits.values() if n]
    return (hits[True][0] + hits[False][0]) / total, sum(counted) / len(counted), brier / total


def report(m: Measurement, current: LogitMap) -> tuple[LogitMap, str]:
    """The fitted map and a printable report: F1 per source, accuracy before/after calibration, speed."""
    fitted = LogitMap.fit(m.raw, m.labels)
    f = m.figures
    lines = [
        f"{m.name}: {f['pages']} pages, {f['pages_per_s']:.1f} pages/s CPU ({f['ms_per_page']:.1f} ms/page), "
        f"{f['wall_pages_per_s']:.1f} pages/s wall-clock, errors: {f['errors']}",
        f"  mean token F1 on {f['articles']} article pages: {f['f1_mean']:.3f}",
    ]
    for source, group in f["by_source"].items():
        if group["articles"]:
            lines.append(f"    {source:<22} {group['articles']:4d}  {group['f1_mean']:.3f}")
    for label, mapping in (("raw region P", LogitMap()), ("module constants", current), ("refitted", fitted)):
        acc, balanced, brier = accuracy(m, mapping)
        lines.append(
            f"  at 0.5, {label:<16}: accuracy {acc:.3f}, balanced accuracy {balanced:.3f}, Brier {brier:.3f}"
            f"  (slope {mapping.slope:.3f}, intercept {mapping.intercept:.3f}, raw P threshold "
            f"{mapping.raw_threshold():.3f})"
        )
    return fitted, "\n".join(lines)
