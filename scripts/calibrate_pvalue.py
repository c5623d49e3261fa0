"""Measure the P value method on the dev corpus and choose its recommended ``min_valid_chars``.

Usage: python scripts/calibrate_pvalue.py [CORPUS_DIR]   (default ../shared/corpus/dev)

Page P is used as published (no calibration map). The guard (docs/methods.md#p-value-guard) is swept
over 0..2000 valid characters, separately for pages whose answer is CJK; the value maximising balanced
accuracy (articles and non-articles weighted equally) at P ≥ 0.5 is printed (ties: the smallest).
"""

import sys
from pathlib import Path

from scrapy_bodytext.api import extract
from scrapy_bodytext.evaluation.calibration import measure, report
from scrapy_bodytext.evaluation.corpus import load_corpus
from scrapy_bodytext.extractors.calibration import LogitMap

folder = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev"
pages = load_corpus(folder)
_, text = report(measure(pages, "pvalue"), LogitMap())
print(
    "\n".join(
        line.replace("raw region P", "page P as published")
        for line in text.splitlines()
        if "module constants" not in line and "refitted" not in line
    )
)  # no map: P is the probability

rows = [(extract(page.body, extractor="pvalue", encoding=page.charset).debug, page.is_article) for page in pages]
for cjk in (False, True):
    subset = [
        (debug.get("region_p", 0.0), debug.get("valid_chars", 0), label)
        for debug, label in rows
        if debug.get("cjk", False) == cjk
    ]
    articles = sum(label for *_, label in subset)
    others = len(subset) - articles

    def balanced(minimum: int) -> float:
        hits = {True: 0, False: 0}
        for p, valid, label in subset:  # noqa: B023 - called within this iteration
            hits[label] += (p >= 0.5 and valid >= minimum) == label
        return (hits[True] / articles + hits[False] / others) / 2  # noqa: B023

    if not articles or not others:
        print(f"{'CJK' if cjk else 'other'} answers: {len(subset)} pages, one class only: nothing to fit")
        continue
    best = max(range(0, 2001, 10), key=lambda minimum: (balanced(minimum), -minimum))
    print(
        f"{'CJK' if cjk else 'other'} answers: {articles} articles, {others} non-articles; balanced accuracy "
        f"{balanced(0):.3f} without the guard, {balanced(best):.3f} with min_valid_chars = {best}"
    )
