#!/usr/bin/env python
"""What reading page metadata adds to an extraction, over a labelled corpus.

    python benchmarks/metadata_cost.py [DIR] [--rounds N]

Each round runs ``extract_with_config`` (default configuration: decoding, parsing, metadata,
cleaning, extraction, what a crawl pays per page) four times on every page of DIR (default
../shared/corpus/dev next to the checkout), in the order with, without, without, with metadata (the
reader replaced by one that returns nothing), so that neither kind always meets the page's data in
the caches first. The cost of metadata is the difference of
the two CPU-time sums, as a share of the first; the median share of the rounds is reported. (Timing
``read_metadata`` on its own overstates it: the first walk over a freshly parsed tree pays for
bringing the tree into the CPU caches, which the extraction's own walks then do not.)
This is a measurement script, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from scrapy_bodytext import api
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.report import machine_description
from scrapy_bodytext.metadata import PageMetadata

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "dev"


def _no_metadata(root, url=None, declared=None) -> PageMetadata:
    return PageMetadata()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), metavar="DIR")
    parser.add_argument("--rounds", type=int, default=3, metavar="N", help="rounds over the corpus (default 3)")
    args = parser.parse_args(argv)
    config = api.default_config()
    reader = api.read_metadata
    pages = [(page.body, page.url, page.charset) for page in iter_corpus(args.corpus)]
    cpu = time.process_time
    shares, with_ms, without_ms = [], [], []
    for number in range(1, args.rounds + 1):
        spent = {True: 0.0, False: 0.0}
        for body, url, charset in pages:
            for with_metadata in (True, False, False, True):
                api.read_metadata = reader if with_metadata else _no_metadata
                started = cpu()
                api.extract_with_config(body, config, url=url, encoding=charset)
                spent[with_metadata] += cpu() - started
        api.read_metadata = reader
        shares.append((spent[True] - spent[False]) / spent[True])
        with_ms.append(500 * spent[True] / len(pages))
        without_ms.append(500 * spent[False] / len(pages))
        print(
            f"round {number}: with metadata {with_ms[-1]:.2f} ms/page, without {without_ms[-1]:.2f} ms/page, "
            f"metadata {100 * shares[-1]:.1f} %",
            file=sys.stderr,
        )
    print(f"{len(pages)} pages, {args.rounds} rounds, {machine_description()['summary']}")
    print(
        f"extract() with metadata: {statistics.median(with_ms):.2f} ms/page CPU, without: "
        f"{statistics.median(without_ms):.2f} ms/page CPU (medians of rounds)"
    )
    print(
        f"metadata share of extract(): {100 * statistics.median(shares):.1f} % (median; rounds: "
        f"{', '.join(f'{100 * s:.1f}' for s in shares)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
