"""The article decision as a curve, out of fold: at each threshold, the articles dropped (overall and
in the worst source) beside the non-articles dropped (overall and per page type), with the ROC AUC of
the ranking, so a decision rule is chosen from what it costs and never read off one point.

``python -m scrapy_bodytext.training.tradeoff figures.json`` prints the curve of a harness run's
per-page results (``--json``); the harness prints the same table for every corpus."""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path

from ..evaluation.metrics import roc_auc

#: the thresholds of the curve (the default, 0.5, among them)
CURVE_THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
#: page types with fewer pages than this get no column of their own (they count in "all")
MIN_TYPE_PAGES = 10


def tradeoff_table(
    probability: Mapping[Hashable, float],
    page_type: Mapping[Hashable, str],
    source: Mapping[Hashable, str],
    thresholds: Sequence[float] = CURVE_THRESHOLDS,
    min_pages: int = MIN_TYPE_PAGES,
) -> list[str]:
    """The curve as Markdown lines, one row per threshold: a page is dropped below the threshold.
    ``page_type`` is each page's labelled type ("article" for articles), ``source`` its source or site."""
    pages = list(probability)
    articles = [k for k in pages if page_type[k] == "article"]
    others = [k for k in pages if page_type[k] != "article"]
    by_type: dict[str, list] = defaultdict(list)
    for k in others:
        by_type[page_type[k]].append(k)
    kinds = sorted(kind for kind, ks in by_type.items() if len(ks) >= min_pages)
    by_source: dict[str, list] = defaultdict(list)
    for k in articles:
        by_source[source[k]].append(k)
    auc = roc_auc([probability[k] for k in pages], [page_type[k] == "article" for k in pages])
    lines = [
        f"ROC AUC {auc:.3f} ({len(articles)} articles, {len(others)} non-articles)" if auc is not None else "",
        "",
        "| threshold | articles dropped | worst source | non-articles dropped | "
        + " | ".join(f"{kind} ({len(by_type[kind])})" for kind in kinds)
        + " |",
        "|---" * (4 + len(kinds)) + "|",
    ]
    for threshold in thresholds:

        def dropped(ks: Sequence, threshold: float = threshold) -> int:
            return sum(1 for k in ks if probability[k] < threshold)

        lost = dropped(articles)
        worst_share, worst = max(((dropped(ks) / len(ks), name) for name, ks in by_source.items()), default=(0.0, "–"))
        cells = [
            f"{threshold:g}",
            f"{lost} ({lost / max(len(articles), 1):.1%})",
            f"{worst_share:.1%} {worst}" if worst_share else "0.0%",
            f"{dropped(others)} ({dropped(others) / max(len(others), 1):.1%})",
            *(f"{dropped(by_type[kind]) / len(by_type[kind]):.0%}" for kind in kinds),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("figures", type=Path, help="a harness run's --json file (its per-page results)")
    parser.add_argument("--by", choices=("all", "corpus"), default="corpus", help="one curve, or one per corpus")
    parser.add_argument(
        "--corpus",
        type=Path,
        action="append",
        default=[],
        help="a corpus folder whose index.jsonl names its pages (for results that do not say their corpus)",
    )
    args = parser.parse_args(argv)
    try:
        pages = json.loads(args.figures.read_text(encoding="utf-8"))["pages"]
        listed = {
            json.loads(line)["id"]: folder.name
            for folder in args.corpus
            for line in (folder / "index.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        }
    except (OSError, ValueError, KeyError) as exc:
        print(f"tradeoff: cannot read per-page results from {args.figures}: {exc}", file=sys.stderr)
        return 2
    groups: dict[str, list[str]] = defaultdict(list)
    for page_id, row in pages.items():
        corpus = row.get("corpus") or listed.get(page_id, "all")
        groups[corpus if args.by == "corpus" else "all"].append(page_id)
    for name, ids in sorted(groups.items()):
        print(f"\n## Trade-off, {name}: out of fold, with URL; pages below the threshold are dropped\n")
        rows = {k: pages[k] for k in ids}
        table = tradeoff_table(
            {k: row["article_probability"] for k, row in rows.items()},
            {k: row["labelled_type"] for k, row in rows.items()},
            {k: row["source"] for k, row in rows.items()},
        )
        print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
