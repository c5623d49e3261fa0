#!/usr/bin/env python
"""Fingerprint every method's output on a labelled corpus, and compare two fingerprints.

    python scripts/compare_outputs.py write FILE [DIR] [--extractor NAME ...] [--every N]
    python scripts/compare_outputs.py compare OLD NEW

``write`` runs each registered method (all of them unless ``--extractor`` is given) over every page
of the corpus at DIR (default ../shared/corpus/dev next to the checkout) and writes one JSON line per
page and method: the SHA-256 of the text, the exact probability, the reason and the other result
values (title, language, encoding, detail). The time budget is lifted so that a busy machine cannot
change an outcome; it names the build of the core in use (compiled or pure Python: run it once with
``BODYTEXT_PURE_PYTHON=1`` and once without to compare the two), and ``--every N`` keeps every Nth
page only. ``compare`` lists every page and method whose line differs, with the values that
changed, and exits 1 when any did: a change to shared code must leave every method's output as it
was, or each changed page must be explained.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from scrapy_bodytext import _core, extractors
from scrapy_bodytext.api import extract_with_config
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.report import count_pages

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "dev"
#: seconds per page: far above any page's cost, so outcomes never depend on the machine's load
NO_TIME_LIMIT = 3600.0


def fingerprint(result) -> dict:
    """The values of a result that a change of shared code must not alter (``debug`` left out)."""
    return {
        "text_sha256": hashlib.sha256(result.text.encode("utf-8")).hexdigest(),
        "chars": len(result.text),
        "probability": repr(result.article_probability),
        "reason": result.reason.value,
        "detail": result.detail,
        "title": result.title,
        "language": result.language,
        "encoding": result.encoding,
    }


def write(path: Path, folder: Path, names: list[str], every: int = 1) -> int:
    configs = {name: ExtractConfig(extractor=name, time_budget=NO_TIME_LIMIT) for name in names}
    total = -(-count_pages(folder) // every)
    started = time.perf_counter()
    print(f"core: {_core.build()}", file=sys.stderr, flush=True)
    pages = (page for number, page in enumerate(iter_corpus(folder)) if not number % every)
    with open(path, "w", encoding="utf-8") as out:
        for done, page in enumerate(pages, 1):
            for name, config in configs.items():
                result = extract_with_config(page.body, config, url=page.url, encoding=page.charset)
                out.write(json.dumps({"id": page.id, "method": name, **fingerprint(result)}, sort_keys=True) + "\n")
            if not done % 100 or done == total:
                print(f"{done}/{total} pages, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return 0


def load(path: Path) -> dict[tuple[str, str], dict]:
    lines = {}
    with open(path, encoding="utf-8") as found:
        for line in found:
            row = json.loads(line)
            lines[row.pop("id"), row.pop("method")] = row
    return lines


def compare(old_path: Path, new_path: Path) -> int:
    old, new = load(old_path), load(new_path)
    changed = 0
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        changed += 1
        if before is None or after is None:
            print(f"{key[0]} {key[1]}: only in {'new' if before is None else 'old'} fingerprint")
            continue
        diffs = ", ".join(
            f"{field}: {before.get(field)!r} -> {after.get(field)!r}"
            for field in sorted(before.keys() | after.keys())
            if before.get(field) != after.get(field)
        )
        print(f"{key[0]} {key[1]}: {diffs}")
    methods = sorted({method for _, method in old.keys() | new.keys()})
    print(f"{changed} of {len(old.keys() | new.keys())} page outputs changed ({', '.join(methods)})")
    return 1 if changed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write", help="fingerprint every method's output on a corpus")
    writing.add_argument("file", type=Path)
    writing.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, metavar="DIR")
    writing.add_argument("--extractor", action="append", metavar="NAME", help="method(s) to run (default all)")
    writing.add_argument("--every", type=int, default=1, metavar="N", help="every Nth page only (default 1: all)")
    comparing = commands.add_parser("compare", help="list the page outputs that differ between two fingerprints")
    comparing.add_argument("old", type=Path)
    comparing.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    if args.command == "compare":
        return compare(args.old, args.new)
    if not (args.corpus / "index.jsonl").is_file():
        parser.error(f"{args.corpus}: no index.jsonl")
    names = args.extractor or extractors.names()
    for name in names:
        try:
            extractors.load(name)  # an unknown name fails here, before any page is read
        except ValueError as exc:
            parser.error(str(exc))
    if args.every < 1:
        parser.error("--every must be 1 or more")
    return write(args.file, args.corpus, names, args.every)


if __name__ == "__main__":
    sys.exit(main())
