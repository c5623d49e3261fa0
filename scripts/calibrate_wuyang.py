"""Measure the Wu & Yang reconstruction on the dev corpus and refit its logistic weights a, b, c.

Usage: python scripts/calibrate_wuyang.py [CORPUS_DIR]   (default ../shared/corpus/dev)

The article probability is σ(a·(d − θ_d) + b·ln(s/θ_s) − c·ld) over the best block's stop-word density
d, stop-word count s and link density ld (docs/methods.md#wuyang-decision-and-probability). The
weights are refitted here by class-balanced logistic regression (no intercept: the thresholds θ_d, θ_s
stay as they are; the project's one fitter, ``scrapy_bodytext.extractors.probability.fit_logistic``); paste the printed
constants into wuyang.LOGISTIC_A/B/C.
"""

import math
import sys
from pathlib import Path

from scrapy_bodytext.api import extract
from scrapy_bodytext.evaluation.calibration import measure, report
from scrapy_bodytext.evaluation.corpus import load_corpus
from scrapy_bodytext.extractors.calibration import LogitMap
from scrapy_bodytext.extractors.probability import balanced_weights, fit_logistic


def balanced_accuracy(decisions: list[bool], labels: list[bool]) -> float:
    hits = {True: 0, False: 0}
    for decision, label in zip(decisions, labels):
        hits[label] += decision == label
    return (hits[True] / labels.count(True) + hits[False] / labels.count(False)) / 2


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev"
    pages = load_corpus(folder)
    _, text = report(measure(pages, "wuyang"), LogitMap())
    print(
        "\n".join(
            line
            for line in text.splitlines()
            if "region P" not in line and "module constants" not in line and "refitted" not in line
        )
    )

    results = [(extract(page.body, extractor="wuyang", encoding=page.charset), page.is_article) for page in pages]
    scored = [(r.debug, label) for r, label in results if "d" in r.debug]
    labels = [label for _, label in scored]
    features = [
        [debug["d"] - debug["theta_d"], math.log(max(debug["s"], 1) / debug["theta_s"]), -debug["ld"]]
        for debug, _ in scored
    ]
    a, b, c = fit_logistic(features, labels, balanced_weights(labels), l2=1e-6, bias=False)
    logistic = [a * x[0] + b * x[1] + c * x[2] >= 0 for x in features]
    accepted = [debug["accepted"] for debug, _ in scored]
    print(f"{len(scored)} pages with a stop-word language and a candidate block:")
    print(
        f"  balanced accuracy: threshold rule {balanced_accuracy(accepted, labels):.3f}, "
        f"refitted logistic {balanced_accuracy(logistic, labels):.3f}, both "
        f"{balanced_accuracy([p and q for p, q in zip(logistic, accepted)], labels):.3f}"
    )
    all_labels = [label for _, label in results]
    current = [r.is_article for r, _ in results]
    print(
        f"  all {len(results)} pages, module constants: accuracy "
        f"{sum(p == y for p, y in zip(current, all_labels)) / len(results):.3f}, balanced accuracy "
        f"{balanced_accuracy(current, all_labels):.3f}"
    )
    print(f"LOGISTIC_A = {a:.4f}\nLOGISTIC_B = {b:.4f}\nLOGISTIC_C = {c:.4f}")


if __name__ == "__main__":
    main()
