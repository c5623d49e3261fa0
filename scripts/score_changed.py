#!/usr/bin/env python
"""Score the pages a change altered against their gold text, before and after.

    python scripts/score_changed.py score CHANGES OUT [DIR]
    python scripts/score_changed.py summary BEFORE AFTER

``compare_outputs.py compare OLD NEW > CHANGES`` lists the pages and methods whose output changed.
``score`` runs each of them with the code on the path (run it once with the old code, once with the
new) and writes one JSON line per page and method: the shingle precision, recall and F1 against the
page's gold text, and the article probability. ``summary`` prints, per method, how many changed
pages improved, got worse or kept their shingle recall and F1, the means before and after, and how
many article and non-article pages changed side of the threshold.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from statistics import fmean

from compare_outputs import DEFAULT_CORPUS, NO_TIME_LIMIT  # the script's own folder is on sys.path

from scrapy_bodytext.api import extract_with_config
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.metrics import shingle_match

#: a line of ``compare_outputs.py compare``: page id, method, then the values that changed
_CHANGED_LINE = re.compile(r"^(\S+) (\S+): ")
#: a change of less than this is "the same"
EPSILON = 1e-9


def read_changes(path: Path) -> dict[str, set[str]]:
    """Page id -> methods whose output changed, from the output of ``compare_outputs.py compare``."""
    changes: dict[str, set[str]] = defaultdict(set)
    with open(path, encoding="utf-8") as found:
        for line in found:
            matched = _CHANGED_LINE.match(line)
            if matched:
                changes[matched.group(1)].add(matched.group(2))
    return changes


def score(changes_path: Path, out_path: Path, folder: Path) -> int:
    changes = read_changes(changes_path)
    configs: dict[str, ExtractConfig] = {}
    with open(out_path, "w", encoding="utf-8") as out:
        for page in iter_corpus(folder):
            for method in sorted(changes.get(page.id, ())):
                config = configs.get(method)
                if config is None:
                    config = configs[method] = ExtractConfig(extractor=method, time_budget=NO_TIME_LIMIT)
                result = extract_with_config(page.body, config, url=page.url, encoding=page.charset)
                match = shingle_match(result.text, page.gold_text)
                out.write(
                    json.dumps(
                        {
                            "id": page.id,
                            "method": method,
                            "source": page.source,
                            "is_article": page.is_article,
                            "precision": match.precision,
                            "recall": match.recall,
                            "f1": match.f1,
                            "probability": result.article_probability,
                            "judged_article": result.is_article,
                        }
                    )
                    + "\n"
                )
    return 0


def load(path: Path) -> dict[tuple[str, str], dict]:
    with open(path, encoding="utf-8") as found:
        rows = [json.loads(line) for line in found]
    return {(row["id"], row["method"]): row for row in rows}


def _moves(pairs: list[tuple[float, float]]) -> str:
    better = sum(after > before + EPSILON for before, after in pairs)
    worse = sum(after < before - EPSILON for before, after in pairs)
    mean_before = fmean(before for before, _ in pairs)
    mean_after = fmean(after for _, after in pairs)
    return (
        f"{better} better, {worse} worse, {len(pairs) - better - worse} same; "
        f"mean {mean_before:.3f} -> {mean_after:.3f}"
    )


def summary(before_path: Path, after_path: Path) -> int:
    before, after = load(before_path), load(after_path)
    methods = sorted({method for _, method in before.keys() & after.keys()})
    for method in methods:
        keys = sorted(key for key in before.keys() & after.keys() if key[1] == method)
        gold = [key for key in keys if before[key]["is_article"]]
        recall = [(before[key]["recall"] or 0.0, after[key]["recall"] or 0.0) for key in gold]
        f1 = [(before[key]["f1"], after[key]["f1"]) for key in gold]
        flips = defaultdict(int)
        for key in keys:
            if before[key]["judged_article"] != after[key]["judged_article"]:
                kind = "article" if before[key]["is_article"] else "non-article"
                flips[f"{kind} {'kept' if after[key]['judged_article'] else 'dropped'}"] += 1
        print(f"{method}: {len(keys)} changed pages, {len(gold)} with gold text")
        if gold:
            print(f"  shingle recall: {_moves(recall)}")
            print(f"  shingle F1:     {_moves(f1)}")
        print(f"  judgement changed: {dict(sorted(flips.items())) or 'none'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    scoring = commands.add_parser("score", help="score the changed pages with the code on the path")
    scoring.add_argument("changes", type=Path, help="the output of compare_outputs.py compare")
    scoring.add_argument("out", type=Path)
    scoring.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, metavar="DIR")
    summing = commands.add_parser("summary", help="compare two score files")
    summing.add_argument("before", type=Path)
    summing.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "summary":
        return summary(args.before, args.after)
    if not (args.corpus / "index.jsonl").is_file():
        parser.error(f"{args.corpus}: no index.jsonl")
    return score(args.changes, args.out, args.corpus)


if __name__ == "__main__":
    sys.exit(main())
