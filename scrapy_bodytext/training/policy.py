"""What the policy of main text (docs/methods.md#what-main-text-is) does per source, against the
gold as given: how much of the articles' captions and bylines each source's gold keeps, and the
shingle F1 of the main text as the policy writes it beside the same text with the captions in."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ..evaluation.metrics import shingle_match, shingle_prf
from ..extractors.bodytext import article_captions


def policy_rows(pages: Sequence, keeps: dict[int, list[int]]) -> dict[str, dict[str, float]]:
    """Per source (and ``all``): articles, the share of caption and byline characters the gold keeps
    (label-weighted; ``nan`` when a source's articles show none), and shingle F1 without and with the
    captions."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    matches: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for k, data in enumerate(pages):
        if not data.is_article or not data.gold or data.paras is None:
            continue
        paras, keep = data.paras, keeps.get(k, [])
        captions = article_captions(paras, keep)
        lo = min(keep[0], paras.anchor if paras.anchor >= 0 else keep[0]) if keep else 0
        bylines = [i for i in paras.bylines if keep and lo <= i <= keep[-1]]
        with_captions = sorted({*keep, *captions})
        for source in (data.source, "all"):
            row = sums[source]
            row["articles"] += 1
            for name, found in (("caption", captions), ("byline", bylines)):
                row[f"{name} chars"] += sum(paras.chars[i] for i in found)
                row[f"{name} kept"] += sum(paras.chars[i] * data.labels[i] for i in found)
            matches[source]["policy"].append(shingle_match("\n".join(data.texts[i] for i in keep), data.gold))
            matches[source]["with captions"].append(
                shingle_match("\n".join(data.texts[i] for i in with_captions), data.gold)
            )
    rows = {}
    for source, row in sums.items():
        rows[source] = {
            "articles": row["articles"],
            "caption chars": row["caption chars"],
            "caption share kept": row["caption kept"] / row["caption chars"] if row["caption chars"] else float("nan"),
            "byline chars": row["byline chars"],
            "byline share kept": row["byline kept"] / row["byline chars"] if row["byline chars"] else float("nan"),
            "F1": shingle_prf(matches[source]["policy"])[2],
            "F1 with captions": shingle_prf(matches[source]["with captions"])[2],
        }
    return rows


def print_policy(pages: Sequence, keeps: dict[int, list[int]], mode: str) -> None:
    """The table of ``policy_rows``, sources first, then all."""
    rows = policy_rows(pages, keeps)
    print()
    print(f"## What main text is, per source, {mode} folds (captions and bylines out; the gold as given)")
    print()
    print(
        "Share of the articles' caption and byline characters the gold keeps; shingle F1 of the main text "
        "(the policy) and of the same text with the article's captions in"
    )
    print()
    print("| source | articles | caption chars | gold keeps | byline chars | gold keeps | F1 | F1 with captions | Δ |")
    print("|---|---|---|---|---|---|---|---|---|")
    for source in sorted(s for s in rows if s != "all") + ["all"]:
        row = rows[source]
        print(
            f"| {source} | {row['articles']:.0f} | {row['caption chars']:.0f} | {row['caption share kept']:.2f} | "
            f"{row['byline chars']:.0f} | {row['byline share kept']:.2f} | {row['F1']:.3f} | "
            f"{row['F1 with captions']:.3f} | {row['F1 with captions'] - row['F1']:+.3f} |"
        )
