"""Fit the default method's two small logistic models on a labelled corpus and report
leave-one-source-out figures.

    python scripts/fit_bodytext.py ../shared/corpus/dev            # fit, report, write weights
    python scripts/fit_bodytext.py ../shared/corpus/dev --dry-run  # report only

Paragraph labels come from the gold text: a paragraph is main text when its text occurs in the gold
text (or is a gold line), or when nearly all of its words are gold words. Needs numpy (fitting only;
the extractor itself does not use it).
"""

from __future__ import annotations

import argparse
import math
import pickle
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from scrapy_bodytext.api import load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.result import LimitExceeded
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.metrics import shingle_match, shingle_prf, token_f1
from scrapy_bodytext.extractors import bodytext
from scrapy_bodytext.render import render_slots

ARTICLE_CLASS_WEIGHT = 8.0
WEIGHTS_FILE = Path(bodytext.__file__).with_name("bodytext_weights.py")
_WORD = re.compile(r"\w+")


def paragraph_labels(texts: list[str], gold: str) -> list[int]:
    norm_gold = " ".join(gold.split())
    gold_lines = {" ".join(line.split()) for line in gold.splitlines()}
    gold_words = set(_WORD.findall(gold))
    labels = []
    for text in texts:
        if not gold:
            labels.append(0)
            continue
        words = _WORD.findall(text)
        if (len(text) >= 15 and text in norm_gold) or text in gold_lines:
            labels.append(1)
        elif len(words) >= 8 and sum(w in gold_words for w in words) >= 0.9 * len(words):
            labels.append(1)
        else:
            labels.append(0)
    return labels


class Page:
    __slots__ = ("id", "source", "is_article", "gold", "paras", "texts", "labels")

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            setattr(self, name, value)


def load_pages(folder: str) -> list[Page]:
    config = ExtractConfig()
    pages = []
    for labelled in iter_corpus(folder):
        page = Page()
        page.id, page.source, page.is_article, page.gold = (
            labelled.id, labelled.source, labelled.is_article, labelled.gold_text)
        try:
            doc = load_document(labelled.body, config, url=labelled.url)
        except LimitExceeded:
            page.paras, page.texts, page.labels = None, [], []
        else:
            page.paras = bodytext.paragraphs(doc)
            page.texts = [
                render_slots(doc, range(s, e)).replace("\n", " ") for s, e in zip(page.paras.starts, page.paras.ends)
            ]
            page.labels = paragraph_labels(page.texts, page.gold)
        pages.append(page)
    return pages


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1.0) -> np.ndarray:
    """Weighted L2-regularised logistic regression by Newton's method (bias not regularised)."""
    beta = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(x @ beta, -35, 35)))
        gradient = x.T @ (w * (p - y)) + penalty * beta
        hessian = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-7:
            break
    return beta


def fit_paragraphs(pages: list[Page]) -> np.ndarray:
    rows, labels, weights = [], [], []
    for page in pages:
        if page.paras is None:
            continue
        for row, label, chars in zip(page.paras.features, page.labels, page.paras.chars):
            if row is None:
                continue
            rows.append(row)
            labels.append(label)
            weights.append(math.sqrt(min(chars, 2000)) * (1.0 if page.is_article else 0.5))
    return fit_logistic(np.array(rows), np.array(labels, float), np.array(weights))


def run_page(page: Page, paragraph_weights, options: bodytext.Options):
    if page.paras is None or not page.paras.starts:
        return [], None
    scores = bodytext.scores_of(page.paras, paragraph_weights)
    keep = bodytext.select(page.paras, scores, options)
    return keep, bodytext.article_features(page.paras, keep, scores)


def fit_articles(pages: list[Page], paragraph_weights, options) -> np.ndarray:
    rows, labels, weights = [], [], []
    n_articles = sum(p.is_article for p in pages)
    n_other = len(pages) - n_articles
    for page in pages:
        _, row = run_page(page, paragraph_weights, options)
        if row is None:
            continue
        rows.append(row)
        labels.append(1.0 if page.is_article else 0.0)
        # a dropped article is lost data, a kept listing page only noise: articles weigh 8 times
        # more as a class (chosen by leave-one-source-out: under 1 % of articles dropped)
        weights.append(ARTICLE_CLASS_WEIGHT / n_articles if page.is_article else 1.0 / max(n_other, 1))
    w = np.array(weights)
    return fit_logistic(np.array(rows), np.array(labels), w * len(w) / w.sum(), l2=0.3)


def evaluate(pages: list[Page], paragraph_weights, article_weights, options) -> dict:
    f1_by_source: dict[str, list[float]] = defaultdict(list)
    matches = []
    correct = dropped = kept_other = 0
    for page in pages:
        keep, row = run_page(page, paragraph_weights, options)
        text = "\n".join(page.texts[i] for i in keep)
        p = bodytext._logistic(article_weights, row) if row is not None else 0.0
        judged = p >= 0.5
        correct += judged == page.is_article
        if page.is_article:
            f1_by_source[page.source].append(token_f1(text, page.gold))
            matches.append(shingle_match(text, page.gold))
            dropped += not judged
        else:
            kept_other += judged
    all_f1 = [f for values in f1_by_source.values() for f in values]
    return {
        "f1": statistics.fmean(all_f1) if all_f1 else float("nan"),
        "f1_values": all_f1,
        "shingle_f1": shingle_prf(matches)[2] if matches else float("nan"),
        "by_source": {s: statistics.fmean(v) for s, v in sorted(f1_by_source.items())},
        "accuracy": correct / len(pages),
        "articles_dropped": dropped,
        "non_articles_kept": kept_other,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--dry-run", action="store_true", help="report only; do not write the weights")
    parser.add_argument("--cache", help="pickle file keeping the page features between runs")
    parser.add_argument("--no-cv", action="store_true", help="skip the leave-one-source-out report")
    args = parser.parse_args(argv)
    options = bodytext.Options()
    started = time.perf_counter()
    if args.cache and Path(args.cache).is_file():
        pages = pickle.loads(Path(args.cache).read_bytes())
    else:
        pages = load_pages(args.corpus)
        if args.cache:
            Path(args.cache).write_bytes(pickle.dumps(pages))
    print(f"{len(pages)} pages read in {time.perf_counter() - started:.1f}s", file=sys.stderr)

    print("leave-one-source-out (fit on all other sources, score the one left out):")
    print(f"{'source':22} {'pages':>5} {'F1':>6} {'shingleF1':>9} {'acc':>6} {'dropped':>8} {'kept':>5}")
    sources = Counter(p.source for p in pages)
    totals = []
    for source in [] if args.no_cv else sorted(sources):
        train = [p for p in pages if p.source != source]
        test = [p for p in pages if p.source == source]
        pw = fit_paragraphs(train)
        aw = fit_articles(train, pw, options)
        r = evaluate(test, pw, aw, options)
        totals.append(r)
        print(f"{source:22} {len(test):5} {r['f1']:6.3f} {r['shingle_f1']:9.3f} {r['accuracy']:6.3f} "
              f"{r['articles_dropped']:8} {r['non_articles_kept']:5}")

    if totals:
        n_pages = len(pages)
        n_articles = sum(p.is_article for p in pages)
        dropped = sum(r["articles_dropped"] for r in totals)
        kept = sum(r["non_articles_kept"] for r in totals)
        article_f1 = [f for r in totals for f in r["f1_values"]]
        print(f"{'all (left-out scores)':22} {n_pages:5} {statistics.fmean(article_f1):6.3f} {'':9} "
              f"{1 - (dropped + kept) / n_pages:6.3f} {dropped:8} {kept:5}  "
              f"({dropped / n_articles:.2%} of articles dropped)")
    pw = fit_paragraphs(pages)
    aw = fit_articles(pages, pw, options)
    r = evaluate(pages, pw, aw, options)
    print(f"fitted on all: F1 {r['f1']:.3f}, shingle F1 {r['shingle_f1']:.3f}, accuracy {r['accuracy']:.3f}, "
          f"articles dropped {r['articles_dropped']}, non-articles kept {r['non_articles_kept']}")
    for source, f1 in r["by_source"].items():
        print(f"  {source:22} F1 {f1:.3f}")
    if not args.dry_run:
        fmt = lambda values: "(" + ", ".join(f"{v:.4f}" for v in values) + ")"  # noqa: E731
        WEIGHTS_FILE.write_text(
            '"""Fitted weights of the default method (written by ``scripts/fit_bodytext.py``; do not edit)."""\n\n'
            "# fmt: off\n"
            f"PARAGRAPH_WEIGHTS = {fmt(pw)}\n"
            f"ARTICLE_WEIGHTS = {fmt(aw)}\n"
            "# fmt: on\n"
        )
        print(f"wrote {WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
