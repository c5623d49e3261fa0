"""Measure BTE on the dev corpus and fit its article-probability map (constants for bte.CALIBRATION).

Usage: python scripts/calibrate_bte.py [CORPUS_DIR]   (default ../shared/corpus/dev)
"""

import sys
from pathlib import Path

from scrapy_bodytext.evaluation.calibration import measure, report
from scrapy_bodytext.evaluation.corpus import load_corpus
from scrapy_bodytext.extractors import bte

folder = sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev"
pages = load_corpus(folder)
fitted, text = report(measure(pages, "bte"), bte.CALIBRATION)
print(text)
print(f"CALIBRATION = LogitMap({fitted.slope:.4f}, {fitted.intercept:.4f})")
