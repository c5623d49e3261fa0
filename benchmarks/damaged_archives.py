#!/usr/bin/env python
"""How much survives damage: web archives of real pages damaged at random places, and what is read back.

    python benchmarks/damaged_archives.py [--corpus DIR] [--pages 60] [--points 100] [--seed 1]
                                          [--containers warc.gz,warc,arc.gz,arc] [--unseekable]

For each container (WARC written with warcio, or ARC; gzipped record by record, or not) one archive
of ``--pages`` pages is written (from the labelled corpus when it is there, otherwise the pages
bundled with the tests), then damaged ``--points`` times, one damage at a time on a fresh copy: bytes
flipped, a stretch cut out, garbage inserted or the tail cut off, at the start, header, middle or end
of a record, on a record boundary or anywhere (the mix of tests/archive_damage.py). Each damaged copy
is read with ``iter_archive`` (from a stream that cannot seek with ``--unseekable``).

Printed per container: records written (summed over the damaged copies), records damaged, records
removed whole (cut out, or after a cut-off tail), intact records, how many of those came back exactly
as written and how many were lost, the damage reports by kind, and broken promises (an intact record
lost or altered, damage reported more than once or with a kind that does not fit). Exit status 1
when any promise was broken. This is a measurement script, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "dev"
sys.path.insert(0, str(REPO / "tests"))

from archive_damage import CONTAINERS, Tally, bundled_pages, corpus_pages, pick_pages, run  # noqa: E402

COLUMNS = (
    "container",
    "points",
    "records",
    "damaged",
    "removed",
    "intact",
    "intact back",
    "intact lost",
    "reports (by kind)",
    "broken",
)


def row(name: str, tally: Tally) -> list[str]:
    kinds = ", ".join(f"{kind} {count}" for kind, count in tally.reports.most_common())
    return [
        name,
        str(tally.points),
        str(tally.records),
        str(tally.damaged),
        str(tally.removed),
        str(tally.intact),
        str(tally.intact_extracted),
        str(tally.intact_lost),
        f"{sum(tally.reports.values())} ({kinds})",
        str(len(tally.problems)),
    ]


def total(tallies: list[Tally]) -> Tally:
    whole = Tally()
    for tally in tallies:
        for name in ("points", "records", "damaged", "removed", "intact", "intact_extracted"):
            setattr(whole, name, getattr(whole, name) + getattr(tally, name))
        whole.reports.update(tally.reports)
        whole.problems.extend(tally.problems)
    return whole


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help="labelled corpus folder (default %(default)s)"
    )
    parser.add_argument("--pages", type=int, default=60, help="pages per archive (default %(default)s)")
    parser.add_argument("--points", type=int, default=100, help="damages per container (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default %(default)s)")
    parser.add_argument("--containers", default=",".join(CONTAINERS), help="default %(default)s")
    parser.add_argument("--unseekable", action="store_true", help="read from a stream that cannot seek")
    args = parser.parse_args()

    from_corpus = (args.corpus / "index.jsonl").is_file()
    pages = pick_pages(corpus_pages(args.corpus) if from_corpus else bundled_pages(), args.pages, args.seed)
    source = f"corpus {args.corpus}" if from_corpus else "the bundled test pages"
    print(
        f"{args.pages} pages from {source}, {args.points} damages per container, seed {args.seed}, "
        f"{'unseekable stream' if args.unseekable else 'seekable file'}",
        flush=True,
    )
    started = time.perf_counter()
    containers = tuple(args.containers.split(","))
    tallies = run(containers, pages, args.points, args.seed, seekable=not args.unseekable)
    rows = [row(name, tallies[name]) for name in containers] + [row("all", total(list(tallies.values())))]
    widths = [max(len(line[i]) for line in [list(COLUMNS), *rows]) for i in range(len(COLUMNS))]
    print("| " + " | ".join(title.ljust(width) for title, width in zip(COLUMNS, widths)) + " |")
    print("|" + "|".join("-" * (width + 2) for width in widths) + "|")
    for line in rows:
        print("| " + " | ".join(cell.ljust(width) for cell, width in zip(line, widths)) + " |")
    problems = total(list(tallies.values())).problems
    for problem in problems[:20]:
        print("broken:", problem)
    print(f"{time.perf_counter() - started:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
