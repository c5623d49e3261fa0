"""Measure TTR/CETR (every selection method) on the dev corpus and fit each method's
article-probability map (constants for ttr.CALIBRATION).

Usage: python scripts/calibrate_ttr.py [CORPUS_DIR] [METHOD ...]   (default ../shared/corpus/dev, all)
"""

import sys
from pathlib import Path

from scrapy_bodytext.evaluation.calibration import measure, report
from scrapy_bodytext.evaluation.corpus import load_corpus
from scrapy_bodytext.extractors import ttr

folder = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev"
methods = sys.argv[2:] or ttr.METHODS
pages = load_corpus(folder)
constants = {}
for method in methods:
    fitted, text = report(measure(pages, "ttr", {"method": method}, f"ttr method={method}"), ttr.CALIBRATION[method])
    print(text)
    constants[method] = f"LogitMap({fitted.slope:.4f}, {fitted.intercept:.4f})"
print("CALIBRATION = {")
for method, constant in constants.items():
    print(f'    "{method}": {constant},')
print("}")
