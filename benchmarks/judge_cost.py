#!/usr/bin/env python
"""What the page judge's evidence and model cost per page, group by group, over a labelled corpus.

    python benchmarks/judge_cost.py [DIR] [--every N]

On every Nth page of DIR (default ../shared/corpus/dev next to the checkout, every page), once parsed
(``api.load_document``) and split into paragraphs: the CPU time of the page evidence the judge
weighs (``page_evidence``, the chosen whole-page groups in it), of each group of
``whole_page.GROUPS`` computed alone (``outside`` from the paragraphs), and of the shipped judge
(``Model.judge``: the logistic model, the trees where present, the calibration), in milliseconds per
page (``time.thread_time``). This is a measurement script, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from scrapy_bodytext import api
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.report import machine_description
from scrapy_bodytext.extractors.bodytext import page, units, whole_page
from scrapy_bodytext.extractors.bodytext.model import load_model
from scrapy_bodytext.page.document import LimitExceeded

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "dev"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), metavar="DIR")
    parser.add_argument("--every", type=int, default=1, metavar="N", help="time every Nth page (default 1)")
    args = parser.parse_args(argv)
    config, model = ExtractConfig(), load_model()
    parts = ("page evidence (page_evidence, the chosen groups in it)", *whole_page.GROUPS, "the judge (Model.judge)")
    spent = dict.fromkeys(parts, 0.0)
    pages = 0
    for number, labelled in enumerate(iter_corpus(args.corpus)):
        if number % args.every:
            continue
        try:
            doc = api.load_document(labelled.body, config, url=labelled.url, encoding=labelled.charset)
        except LimitExceeded:
            continue
        paras = units.paragraphs(doc)
        pages += 1
        started = time.thread_time()
        evidence = page.page_evidence(doc, paras)
        spent[parts[0]] += time.thread_time() - started
        for group in whole_page.GROUPS:
            started = time.thread_time()
            if group == "outside":
                whole_page.outside_evidence(paras.chars, paras.link_chars, range(len(paras.chars) // 2))
            else:
                whole_page.whole_page_evidence(doc, [group])
            spent[group] += time.thread_time() - started
        row = page.article_row(paras, evidence, list(range(len(paras.chars))), [0.5] * len(paras.chars))
        started = time.thread_time()
        model.judge(row)
        spent[parts[-1]] += time.thread_time() - started
    print(f"# The page judge's cost per page: {pages} pages of {args.corpus}")
    print()
    print(machine_description()["summary"])
    print()
    print("| part | CPU ms/page | chosen |")
    print("|---|---:|---|")
    for part in parts:
        chosen = "yes" if part in whole_page.CHOSEN else "" if part in whole_page.GROUPS else "–"
        print(f"| {part} | {1000 * spent[part] / max(pages, 1):.3f} | {chosen} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
