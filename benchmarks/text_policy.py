#!/usr/bin/env python
"""Per-page outcomes of the default method on labelled corpora, and the before/after table of a
change of the main-text policy (captions, bylines, code tables).

    python benchmarks/text_policy.py write OUT DIR [DIR ...]
    python benchmarks/text_policy.py table BEFORE AFTER

``write`` runs the default method over every page of each corpus folder (on a whole-site folder,
only the articles with gold text) with the time budget lifted, and writes one JSON line per page:
its source, label, a hash of the main text, whether the text is empty, the shingle F1 against the
gold text and the article verdict. Run it once with the old code on the path, once with the new.
``table`` prints, per source: the pages whose main text changed, the mean shingle F1 of the articles
before and after, the articles with an empty main text, the articles whose F1 fell below half of
what it was, and the articles and non-articles whose verdict flipped.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path
from statistics import fmean

from scrapy_bodytext.api import extract_with_config
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.metrics import shingle_match

#: seconds per page: far above any page's cost, so outcomes never depend on the machine's load
NO_TIME_LIMIT = 3600.0


def write(out_path: Path, folders: list[Path], options: dict) -> int:
    config = ExtractConfig(time_budget=NO_TIME_LIMIT, **options)
    with open(out_path, "w", encoding="utf-8") as out:
        for folder in folders:
            whole_sites = (folder / "SITES.md").exists() or folder.name == "sites"
            for number, page in enumerate(iter_corpus(folder), 1):
                if whole_sites and not (page.is_article and page.gold_text):
                    continue
                result = extract_with_config(page.body, config, url=page.url, encoding=page.charset)
                scored = page.is_article and bool(page.gold_text)
                row = {
                    "id": page.id,
                    "source": page.source,
                    "is_article": page.is_article,
                    "scored": scored,
                    "text_sha256": hashlib.sha256(result.text.encode("utf-8")).hexdigest(),
                    "empty": not result.text.strip(),
                    "f1": shingle_match(result.text, page.gold_text).f1 if scored else None,
                    "judged_article": result.is_article,
                }
                out.write(json.dumps(row) + "\n")
                if not number % 200:
                    print(f"{folder.name}: {number} pages", file=sys.stderr, flush=True)
    return 0


def _load(path: Path) -> dict[str, dict]:
    with open(path, encoding="utf-8") as lines:
        return {row["id"]: row for row in map(json.loads, lines)}


def table(before_path: Path, after_path: Path) -> int:
    before, after = _load(before_path), _load(after_path)
    by_source: dict[str, list[tuple[dict, dict]]] = defaultdict(list)
    for page_id, old in before.items():
        new = after.get(page_id)
        if new is not None:
            by_source[old["source"]].append((old, new))
    headers = (
        "source",
        "pages",
        "text changed",
        "F1 before",
        "F1 after",
        "empty before",
        "empty after",
        "F1 < half",
        "verdict flips (art.)",
        "verdict flips (non-art.)",
    )
    rows = []
    totals = [0] * 7
    for source in sorted(by_source):
        pairs = by_source[source]
        scored = [(old, new) for old, new in pairs if old["scored"]]
        articles = [(old, new) for old, new in pairs if old["is_article"]]
        figures = (
            len(pairs),
            sum(old["text_sha256"] != new["text_sha256"] for old, new in pairs),
            sum(old["empty"] for old, _ in articles),
            sum(new["empty"] for _, new in articles),
            sum(new["f1"] < 0.5 * old["f1"] for old, new in scored),
            sum(old["judged_article"] != new["judged_article"] for old, new in articles),
            sum(old["judged_article"] != new["judged_article"] for old, new in pairs if not old["is_article"]),
        )
        totals = [a + b for a, b in zip(totals, figures)]
        f1_before = f"{fmean(old['f1'] for old, _ in scored):.4f}" if scored else "-"
        f1_after = f"{fmean(new['f1'] for _, new in scored):.4f}" if scored else "-"
        rows.append((source, *map(str, figures[:2]), f1_before, f1_after, *map(str, figures[2:])))
    rows.append(("all", *map(str, totals[:2]), "", "", *map(str, totals[2:])))
    print("| " + " | ".join(headers) + " |")
    print("|" + "---|" * len(headers))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("write")
    run.add_argument("out", type=Path)
    run.add_argument("folders", type=Path, nargs="+")
    run.add_argument("--config", default="{}", help='ExtractConfig values as JSON, e.g. \'{"captions": "inline"}\'')
    compare = commands.add_parser("table")
    compare.add_argument("before", type=Path)
    compare.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        return write(args.out, args.folders, json.loads(args.config))
    return table(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
