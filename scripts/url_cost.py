"""What judging pages without their URLs costs: the shipped default method over a labelled corpus, each
page judged with its URL and again without it, at the default threshold.

    python scripts/url_cost.py ../shared/corpus/sites
    python scripts/url_cost.py ../shared/corpus/dev

prints, for each way, the articles and the non-articles dropped (the figures docs/command-line.md and
the ``extract`` command's warning quote, docs/command-line.md#pages-and-their-urls).
"""

from __future__ import annotations

import sys

from scrapy_bodytext import extract
from scrapy_bodytext.evaluation.corpus import iter_corpus


def main(folder: str) -> None:
    dropped = {"with URL": [0, 0], "without URL": [0, 0]}  # [articles dropped, non-articles dropped]
    totals = [0, 0]  # [articles, non-articles] with a URL in the corpus
    for page in iter_corpus(folder):
        if not page.url:
            continue
        kind = 0 if page.is_article else 1
        totals[kind] += 1
        for way, url in (("with URL", page.url), ("without URL", None)):
            result = extract(page.body, url=url)
            if not result.is_article:
                dropped[way][kind] += 1
    for way, (articles, others) in dropped.items():
        print(
            f"{way}: articles dropped {articles} of {totals[0]} ({100 * articles / max(1, totals[0]):.1f} %), "
            f"non-articles dropped {others} of {totals[1]} ({100 * others / max(1, totals[1]):.1f} %)"
        )


if __name__ == "__main__":
    main(sys.argv[1])
