"""Measure one method on the dev corpus and fit its article-probability map (the constants of its
module's ``CALIBRATION``).

Usage: python scripts/calibrate.py EXTRACTOR [CORPUS_DIR]   (e.g. bte, ctd; default corpus ../shared/corpus/dev)
"""

import sys
from pathlib import Path

from scrapy_bodytext import extractors
from scrapy_bodytext.evaluation.calibration import measure, report
from scrapy_bodytext.evaluation.corpus import load_corpus

if len(sys.argv) < 2:
    sys.exit(__doc__)
name = sys.argv[1]
folder = sys.argv[2] if len(sys.argv) > 2 else Path(__file__).resolve().parents[2] / "shared" / "corpus" / "dev"
fitted, text = report(measure(load_corpus(folder), name), extractors.load(name).CALIBRATION)
print(text)
print(f"CALIBRATION = LogitMap({fitted.slope:.4f}, {fitted.intercept:.4f})")
