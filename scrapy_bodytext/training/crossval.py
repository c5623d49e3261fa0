"""The validation harness: out-of-fold figures of the default method beside the peers, and the fit.

    python -m scrapy_bodytext.training CORPUS [--folds source|site] [--write]

Every number of the default method that is fitted or chosen is fitted or chosen here, on
out-of-fold (OOF) scores only: the paragraph models (first pass, then the second pass on OOF
first-pass scores), the paragraph cut, the article model (on OOF paragraph scores), its class
weight and its calibration map. The figures printed are OOF: each page is scored by models fitted
without its fold (its source, or its group of sites) and without any page of its own site.
trafilatura (without comments) and readability-lxml are run on the same pages in the same run.
With ``--write`` the models are then fitted on every page and written to the extractor's
``model.json`` with the corpus fingerprint, the date, the settings and the OOF summary.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import pickle
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..config import DEFAULT_THRESHOLD
from ..evaluation.metrics import (
    ShingleMatch,
    brier_score,
    reliability_table,
    roc_auc,
    shingle_match,
    shingle_prf,
    token_f1,
)
from ..extractors.bodytext import Guard, select
from ..extractors.bodytext import page as page_level
from ..extractors.bodytext.comments import without_comments
from ..extractors.bodytext.model import MODEL_FILE, Model, page_type, write_model
from ..extractors.bodytext.whole_page import GROUPS, outside_evidence
from ..extractors.probability import Platt
from .article_model import (
    MODELS,
    TYPES,
    ArticleSettings,
    article_matrix,
    cross_calibrated,
    fit_article,
    fit_calibration,
    out_of_fold_scores,
)
from .dataset import PageData, code_fingerprint, corpus_fingerprint, load_dataset, paragraph_fingerprint
from .fingerprint import feature_fingerprint
from .folds import MODES, SMALL_SOURCE, assign_folds
from .page_types import listing_kinds, page_types
from .paragraph_models import (
    ParagraphSettings,
    ParagraphTable,
    context_matrix,
    fit_first,
    fit_second,
    out_of_fold,
    per_page,
)
from .peers import peer_texts
from .policy import print_policy
from .tradeoff import tradeoff_table

#: paragraph cuts tried; the one with the best OOF shingle F1 (mean over sources) is kept
CUTS = (0.4, 0.45, 0.5, 0.55)
#: recall guards tried (share of the selection its core holds, cut inside the core, prose ratio
#: under which the page's prose core is kept too, the same for the title anchor's region); the first
#: is off
GUARDS = (
    Guard(),
    Guard(0.8, 0.2),
    Guard(0.8, 0.1),
    Guard(0.8, 0.05),
    Guard(0.8, 0.1, 0.5),
    Guard(0.8, 0.05, 0.5),
    Guard(0.8, 0.1, 0.5, 0.5),
    Guard(0.8, 0.05, 0.5, 0.5),
)
#: an article whose main text holds less than this share of the gold's shingles lost its text
RECALL_FAILURE = 0.5
#: class weights of articles tried for the page-type judge
ARTICLE_WEIGHTS = (2.0, 4.0, 8.0)
#: decision rules tried: the article probability from which a page is typed an article (the highest
#: that loses at most ``MAX_ARTICLES_DROPPED`` of the articles, with and without URLs, is taken)
THRESHOLDS = tuple(round(0.05 * step, 2) for step in range(10, 0, -1)) + (0.04, 0.03, 0.02, 0.01, 0.005, 0.002, 0.001)
MAX_ARTICLES_DROPPED = 0.01
#: settings whose mean shingle F1 lies within this of the best tie; the one with more recall is kept
TIE = 0.002


def page_groups(pages: Sequence[PageData], types: Sequence[str], kinds: dict[str, str]) -> list[str]:
    """A group per page for the judgement table: its source, and for a non-article its page type
    (with the listing kind where the corpus names it: ``listing/pagination``)."""
    return [
        data.source
        if kind == "article"
        else f"{data.source}: {kind}" + (f"/{kinds[data.id]}" if data.id in kinds else "")
        for data, kind in zip(pages, types)
    ]


def fold_names(pages: Sequence[PageData], mode: str) -> list[str]:
    """Folds of ``assign_folds``, with sources under ``SMALL_SOURCE`` pages merged into one fold."""
    sizes: dict[str, int] = defaultdict(int)
    for data in pages:
        sizes[data.source] += 1
    folds = assign_folds(pages, mode)
    return [
        f"small sources{name[len(data.source) :]}" if sizes[data.source] < SMALL_SOURCE else name
        for data, name in zip(pages, folds)
    ]


@dataclass
class TextFigures:
    pages: int = 0
    token_f1: list[float] = field(default_factory=list)
    shingles: list[ShingleMatch] = field(default_factory=list)

    def add(self, text: str, gold: str) -> None:
        self.pages += 1
        self.token_f1.append(token_f1(text, gold))
        self.shingles.append(shingle_match(text, gold))

    def row(self) -> tuple[float, float, float, float]:
        p, r, f = shingle_prf(self.shingles)
        return statistics.fmean(self.token_f1) if self.token_f1 else math.nan, p, r, f

    def recall_failures(self) -> int:
        """Articles whose text holds less than ``RECALL_FAILURE`` of the gold's shingles."""
        return sum(1 for m in self.shingles if m.tp < RECALL_FAILURE * (m.tp + m.fn))


def macro_f1(figures: dict[str, TextFigures]) -> float:
    """Shingle F1 averaged over the sources with at least ``SMALL_SOURCE`` articles: a choice that
    helps one large source at the cost of the others is not taken."""
    return macro_figures(figures)[1]


def macro_figures(figures: dict[str, TextFigures]) -> tuple[float, float]:
    """Shingle recall and F1, each averaged over the sources with at least ``SMALL_SOURCE`` articles
    (all articles together when no source has that many)."""
    rows = [fig.row() for source, fig in figures.items() if source != "all" and fig.pages >= SMALL_SOURCE]
    if not rows:
        rows = [figures["all"].row()]
    return statistics.fmean(row[2] for row in rows), statistics.fmean(row[3] for row in rows)


def recall_first(grid: dict, tie: float = TIE) -> object:
    """The setting of ``grid`` (setting -> (recall, F1)) to keep: among the settings whose F1 is
    within ``tie`` of the best, the one with the most recall (a missing paragraph is lost data, an
    extra line is noise)."""
    best = max(f1 for _, f1 in grid.values())
    return max((key for key, (_, f1) in grid.items() if f1 >= best - tie), key=lambda key: grid[key][0])


def selected_texts(
    pages: Sequence[PageData],
    scores: list[list[float] | None],
    cut: float,
    relative_cut: float,
    guard: Guard | None = None,
    only: Sequence[int] | None = None,
    first: list[list[float] | None] | None = None,
) -> dict[int, tuple[str, list[int]]]:
    """Per page with paragraphs (of ``only``, default all): the main text the selection gives and
    the kept paragraphs (the lead read from the first-pass scores ``first`` where given)."""
    found = {}
    for k in range(len(pages)) if only is None else only:
        data = pages[k]
        if data.paras is None:
            continue
        keep = select(data.paras, scores[k], cut, relative_cut, guard, None if first is None else first[k])
        found[k] = ("\n".join(data.texts[i] for i in keep), keep)
    return found


class SelectionScorer:
    """``text_figures`` of many selections of the same pages: a page's shingle match is computed once
    per distinct set of kept paragraphs (most settings of the grid keep the same ones on most pages)."""

    def __init__(self, pages: Sequence[PageData], articles: Sequence[int]):
        self.pages = pages
        self.articles = articles  # the pages scored: articles with gold text of the corpus the models are fitted on
        self.matches: dict[tuple[int, tuple[int, ...]], ShingleMatch] = {}

    def figures(self, chosen: dict[int, tuple[str, list[int]]]) -> dict[str, TextFigures]:
        figures: dict[str, TextFigures] = defaultdict(TextFigures)
        for k in self.articles:
            data = self.pages[k]
            text, keep = chosen.get(k, ("", []))
            key = (k, tuple(keep))
            match = self.matches.get(key)
            if match is None:
                match = self.matches[key] = shingle_match(text, data.gold)
            for name in (data.source, "all"):
                figures[name].pages += 1
                figures[name].shingles.append(match)
        return figures


def text_figures(
    pages: Sequence[PageData], texts: dict[int, str], only: Sequence[int] | None = None
) -> dict[str, TextFigures]:
    """Figures on article pages with gold text (of ``only``, default all), per source and ``"all"``
    (an article without gold text is judged, not scored for its text)."""
    figures: dict[str, TextFigures] = defaultdict(TextFigures)
    for k in range(len(pages)) if only is None else only:
        data = pages[k]
        if data.is_article and data.gold:
            text = texts.get(k, "")
            figures[data.source].add(text, data.gold)
            figures["all"].add(text, data.gold)
    return figures


def judgement(
    pages: Sequence[PageData],
    probabilities: dict[int, float],
    texts: dict[int, str],
    threshold: float,
    only: Sequence[int] | None = None,
) -> dict[str, float]:
    """Article judgement at ``threshold`` of the pages ``only`` (default all; pages without
    paragraphs count as judged non-articles)."""
    labels, values = [], []
    dropped = kept = 0
    for k in range(len(pages)) if only is None else only:
        data = pages[k]
        p = probabilities.get(k, 0.0)
        judged = p >= threshold and bool(texts.get(k))
        labels.append(data.is_article)
        values.append(p)
        if data.is_article and not judged:
            dropped += 1
        if not data.is_article and judged:
            kept += 1
    articles = sum(labels)
    others = len(labels) - articles
    return {
        "articles": articles,
        "non_articles": others,
        "articles_dropped": dropped,
        "articles_dropped_share": dropped / max(articles, 1),
        "non_articles_dropped": others - kept,
        "non_articles_dropped_share": (others - kept) / max(others, 1),
        "accuracy": 1 - (dropped + kept) / max(len(labels), 1),
        "roc_auc": roc_auc(values, labels) or math.nan,
        "brier": brier_score(values, labels),
    }


@dataclass
class Scheme:
    """Everything one fold scheme gives: OOF paragraph scores, the chosen cut and article settings,
    and the figures."""

    mode: str
    folds: list[str]
    first: list
    second: list
    cut_grid: dict[float, tuple[float, float]]  # cut -> (recall, F1), at the chosen guard
    guard_grid: dict[Guard, tuple[float, float]]  # guard -> (recall, F1), at the chosen cut
    guard: Guard
    settings: ParagraphSettings
    texts: dict[int, str]
    text: dict[str, dict[str, TextFigures]]  # corpus -> source (and "all") -> figures
    rows: dict[int, dict[str, float]]
    whole: dict[int, dict[str, float]]  # every group of whole-page evidence, chosen or not (for measuring them)
    article_settings: ArticleSettings
    article: dict
    types: list[str]
    corpora: list[str]  # per page: the name of its corpus


def corpus_members(corpora: Sequence[str]) -> dict[str, list[int]]:
    """Corpus name -> its pages' indices, in the order the corpora were named (the first is the one
    the paragraph models are fitted on)."""
    members: dict[str, list[int]] = {}
    for k, name in enumerate(corpora):
        members.setdefault(name, []).append(k)
    return members


def paragraph_folds(folds: Sequence[str], corpora: Sequence[str]) -> list[str]:
    """The folds of the paragraph models: ``folds`` on the first corpus (the one they are fitted on);
    every page of another corpus in one fold of its corpus (no model is fitted on it, so each of its
    pages is scored by the models fitted on the whole first corpus)."""
    text = corpora[0]
    return [fold if name == text else f"{name} (scored only)" for fold, name in zip(folds, corpora)]


def run_scheme(
    pages,
    table,
    mode: str,
    settings: ParagraphSettings,
    cache: str | None,
    processes: int,
    log,
    types: list[str],
    corpora: list[str],
    fixed: Scheme | None = None,
    judge: str = "linear",
) -> Scheme:
    """OOF figures under fold ``mode``; the cut and article class weight are chosen here on OOF
    scores, or taken from ``fixed`` (a scheme that chose them)."""
    folds = fold_names(pages, mode)
    log(f"{mode} folds: {len(set(folds))}")
    members = corpus_members(corpora)
    first, second = paragraph_scores(
        pages, paragraph_folds(folds, corpora), table, settings, cache and f"{cache}.{mode}.oof", processes
    )
    articles = [k for k in members[corpora[0]] if pages[k].is_article and pages[k].gold]
    grid = {}
    scorer = SelectionScorer(pages, articles)
    cuts = CUTS if fixed is None else (fixed.settings.cut,)
    for cut in cuts:
        for guard in GUARDS if fixed is None else (fixed.guard,):
            chosen = selected_texts(pages, second, cut, settings.relative_cut, guard, only=articles, first=first)
            grid[cut, guard] = macro_figures(scorer.figures(chosen))
    cut, guard = recall_first(grid)
    cut_grid = {c: grid[c, guard] for c in cuts}
    guard_grid = {g: value for (c, g), value in grid.items() if c == cut}
    settings = ParagraphSettings(**{**asdict(settings), "cut": cut})
    chosen = selected_texts(pages, second, cut, settings.relative_cut, guard, first=first)
    texts = {k: text for k, (text, _) in chosen.items()}
    kept = {k: without_comments(pages[k].paras, keep) for k, (_, keep) in chosen.items()}
    rows = {k: page_level.article_row(pages[k].paras, pages[k].evidence, keep, second[k]) for k, keep in kept.items()}
    whole = {
        k: pages[k].whole_page | outside_evidence(pages[k].paras.chars, pages[k].paras.link_chars, keep)
        for k, keep in kept.items()
    }
    weights = ARTICLE_WEIGHTS if fixed is None else (fixed.article_settings.article_weight,)
    thresholds = THRESHOLDS if fixed is None else (fixed.article_settings.threshold,)
    model = judge if fixed is None else fixed.article_settings.model
    article_settings, article = choose_article_weight(
        pages, folds, rows, texts, types, corpora, weights, thresholds, model=model
    )
    log(
        f"{mode} folds: cut {cut}, guard {guard}, article class weight {article_settings.article_weight}, "
        f"decision rule {article_settings.threshold}"
    )
    return Scheme(
        mode,
        folds,
        first,
        second,
        cut_grid,
        guard_grid,
        guard,
        settings,
        texts,
        {name: text_figures(pages, texts, ks) for name, ks in members.items()},
        rows,
        whole,
        article_settings,
        article,
        types,
        corpora,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scrapy_bodytext.training", description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus",
        nargs="+",
        help="labelled corpus folders (index.jsonl + pages); the paragraph models are fitted on the first, "
        "the page-type judge on all (a whole-site corpus's sources are its sites)",
    )
    parser.add_argument(
        "--folds",
        choices=MODES,
        default="source",
        help="the scheme everything is chosen on: source (default: leave one source out), mixed "
        "(small sources left out whole, large ones in groups of sites), site (groups of sites "
        "inside every source); the other of source and mixed is printed beside it",
    )
    parser.add_argument("--no-strict", action="store_true", help="print the chosen scheme only (no second scheme)")
    parser.add_argument("--processes", type=int, default=2, help="folds fitted at once (default 2)")
    parser.add_argument("--cache", help="pickle file keeping the parsed pages (and OOF scores) between runs")
    parser.add_argument("--peer-cache", help="pickle file keeping the peers' texts between runs")
    parser.add_argument("--no-peers", action="store_true", help="do not run trafilatura and readability")
    parser.add_argument("--write", action="store_true", help=f"fit on every page and write {MODEL_FILE.name}")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument(
        "--judge",
        choices=MODELS,
        default="linear",
        help="the page judge fitted and written: linear (default: the logistic model's own article share, as "
        "shipped) or trees (boosted trees of the article share)",
    )
    parser.add_argument(
        "--no-compare", action="store_true", help="do not fit the judge before this one beside it (for comparison)"
    )
    parser.add_argument(
        "--groups",
        action="store_true",
        help="print the judge with each group of whole-page evidence added alone (how the groups were chosen)",
    )
    parser.add_argument(
        "--ablate",
        nargs="*",
        metavar="FEATURE",
        help="print the judgement with each article feature (or each one named) left out in turn",
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    log = lambda message: print(f"[{time.perf_counter() - started:5.0f} s] {message}", file=sys.stderr)  # noqa: E731
    pages: list[PageData] = []
    types: list[str] = []
    corpora: list[str] = []
    kinds: dict[str, str] = {}
    for folder in args.corpus:
        found = load_dataset(folder, corpus_cache(args.cache, folder, args.corpus))
        pages += found
        types += page_types([data.id for data in found], folder)
        corpora += [corpus_name(folder)] * len(found)
        kinds |= listing_kinds(folder)
        log(f"{corpus_name(folder)}: {len(found)} pages")
    log("page types: " + ", ".join(f"{kind} {types.count(kind)}" for kind in TYPES))
    settings = ParagraphSettings()
    text_corpus = corpora[0]
    table = ParagraphTable.of(pages, settings, [name == text_corpus for name in corpora])
    main_scheme = run_scheme(
        pages, table, args.folds, settings, args.cache, args.processes, log, types, corpora, judge=args.judge
    )
    schemes = [main_scheme]
    if not args.no_strict:
        second = "mixed" if args.folds == "source" else "source"
        schemes.append(
            run_scheme(
                pages, table, second, settings, args.cache, args.processes, log, types, corpora, fixed=main_scheme
            )
        )
        schemes.sort(key=lambda scheme: MODES.index(scheme.mode))  # leave-one-source-out first

    peers: dict[str, dict[int, str]] = {}
    if not args.no_peers:
        offset = 0
        for folder in args.corpus:
            size = corpora.count(corpus_name(folder))
            found = peer_texts(
                pages[offset : offset + size], folder, corpus_cache(args.peer_cache, folder, args.corpus), log
            )
            for name, texts in found.items():
                peers.setdefault(name, {}).update({offset + k: text for k, text in texts.items()})
            offset += size
    members = corpus_members(corpora)
    peer_figures = {
        corpus: {name: text_figures(pages, found, ks) for name, found in peers.items()}
        for corpus, ks in members.items()
    }
    report = {
        "corpus": " ".join(map(str, args.corpus)),
        "corpus_fingerprint": " ".join(corpus_fingerprint(folder) for folder in args.corpus),
        "code_fingerprint": code_fingerprint(),
        "feature_fingerprint": feature_fingerprint(),
        "date": datetime.date.today().isoformat(),
        "folds": args.folds,
        "settings": asdict(main_scheme.settings),
        "article_settings": asdict(main_scheme.article_settings),
        "cut_grid": {str(c): [round(r, 4), round(f, 4)] for c, (r, f) in main_scheme.cut_grid.items()},
        "guard": asdict(main_scheme.guard),
        "guard_grid": {
            str(tuple(asdict(g).values())): [round(r, 4), round(f, 4)] for g, (r, f) in main_scheme.guard_grid.items()
        },
        "schemes": {
            scheme.mode: {
                "text": {corpus: text_summary(figures) for corpus, figures in scheme.text.items()},
                "judgement": scheme.article["judgement"],
                "page_types": scheme.article["page_types"],
                "reliability": scheme.article["reliability"],
            }
            for scheme in schemes
        },
        "peers": {
            corpus: {name: text_summary(figs) for name, figs in by_peer.items()}
            for corpus, by_peer in peer_figures.items()
        },
        "pages": page_results(pages, main_scheme),
    }
    print_report(pages, schemes, peer_figures, page_groups(pages, types, kinds))
    if not args.no_compare:
        print_judges(compare_judges(pages, main_scheme, log), main_scheme.mode)
    if args.groups:
        print_groups(measure_groups(pages, main_scheme, log), main_scheme.mode)
    if args.ablate is not None:
        print_ablation(pages, main_scheme, args.ablate)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
    if args.write:
        write_model(fit_all(pages, table, main_scheme, report))  # read back first: it must load with this code
        log(f"wrote {MODEL_FILE}")
    return 0


def corpus_name(folder: str | Path) -> str:
    """A corpus's name in the report: its folder's name."""
    return Path(folder).resolve().name


def corpus_cache(cache: str | None, folder: str | Path, folders: Sequence[str]) -> str | None:
    """The cache file of one corpus: ``cache`` itself when one corpus is named, else ``cache`` with
    the corpus's name before its suffix (``pages.pickle`` -> ``pages.sites.pickle``)."""
    if cache is None or len(folders) == 1:
        return cache
    path = Path(cache)
    return str(path.with_name(f"{path.stem}.{corpus_name(folder)}{path.suffix}"))


def text_summary(figures: dict[str, TextFigures]) -> dict[str, dict]:
    """Text figures per source (and ``all``) as the JSON report and the model file keep them."""
    return {
        source: dict(
            zip(("token_f1", "shingle_precision", "shingle_recall", "shingle_f1"), (round(v, 4) for v in fig.row()))
        )
        | {"pages": fig.pages, "recall_failures": fig.recall_failures()}
        for source, fig in figures.items()
    }


def page_results(pages: Sequence[PageData], scheme: Scheme) -> dict[str, dict]:
    """Per page of every corpus, out of fold, with URLs: the article probability the shipped map
    gives (0 for a page without main text), the page type judged, its source, its labelled type."""
    probability = scheme.article["probability"]["with URL"]
    without = scheme.article["probability"]["without URL"]
    predicted = scheme.article["predicted"]["with URL"]
    corpus_of = {k: name for name, ks in corpus_members(scheme.corpora).items() for k in ks}
    return {
        data.id: {
            "article_probability": round(probability.get(k, 0.0), 6) if scheme.texts.get(k) else 0.0,
            "article_probability_without_url": round(without.get(k, 0.0), 6) if scheme.texts.get(k) else 0.0,
            "corpus": corpus_of.get(k, ""),
            "page_type": predicted.get(k, "other"),
            "source": data.source,
            "labelled_type": scheme.types[k],
        }
        for k, data in enumerate(pages)
    }


def paragraph_scores(pages, folds, table, settings, cache: str | None, processes: int = 1):
    """Out-of-fold first- and second-pass scores per page (kept in ``cache`` for the same paragraph
    rows, labels and weights, the same code but the page judge's (``paragraph_fingerprint``), folds and
    settings)."""
    digest = hashlib.sha256()
    for values in (table.base, table.label, table.weight, table.page, table.index):
        digest.update(np.ascontiguousarray(values).tobytes())
    key = (len(pages), paragraph_fingerprint(), digest.hexdigest(), tuple(folds), asdict(settings))
    if cache and Path(cache).is_file():
        stored_key, values = pickle.loads(Path(cache).read_bytes())
        if stored_key == key:
            return values
    first_values = out_of_fold(
        pages, folds, table, table.base, lambda x, y, w: fit_first(x, y, w, settings), "first pass", processes
    )
    first = per_page(pages, table, first_values)
    second_x = np.hstack([table.base, context_matrix(pages, table, first)])
    second_values = out_of_fold(
        pages, folds, table, second_x, lambda x, y, w: fit_second(x, y, w, settings), "second pass", processes
    )
    values = (first, per_page(pages, table, second_values))
    if cache:
        Path(cache).write_bytes(pickle.dumps((key, values)))
    return values


def choose_article_weight(
    pages,
    folds,
    rows,
    texts,
    types,
    corpora,
    weights=ARTICLE_WEIGHTS,
    thresholds=THRESHOLDS,
    model: str = "trees",
    names: Sequence[str] = page_level.FEATURES,
) -> tuple[ArticleSettings, dict]:
    """The judge's article class weight and decision rule (OOF, cross-calibrated): per weight, the
    highest rule at which at most ``MAX_ARTICLES_DROPPED`` of the articles of every source (so of
    every site of a whole-site corpus) are dropped with and without URLs; then the weight with the
    most non-articles dropped at its rule (the worst corpus and URL case). The shipped map is the
    calibration moved so that the rule lies at the default threshold (``moved_probabilities``): the
    figures are those of the default. ``model`` and ``names``: the judge fitted and the features it weighs."""
    tried = {}
    article = TYPES.index("article")
    members = corpus_members(corpora)
    for weight in weights:
        settings = ArticleSettings(article_weight=weight, model=model)
        found = out_of_fold_scores(pages, folds, rows, types, settings, names)
        shares = dict(zip(("with URL", "without URL"), found))
        raw = {name: {k: float(v[article]) for k, v in found.items()} for name, found in shares.items()}
        reference = [*raw["with URL"].items(), *raw["without URL"].items()]
        calibrated = {name: cross_calibrated(pages, folds, scores, reference) for name, scores in raw.items()}
        for threshold in thresholds:
            if worst_source(pages, calibrated, texts, threshold) <= MAX_ARTICLES_DROPPED:
                break
        figures = {
            corpus: {name: judgement(pages, values, texts, threshold, ks) for name, values in calibrated.items()}
            for corpus, ks in members.items()
        }
        settings = ArticleSettings(article_weight=weight, threshold=threshold, model=model)
        predicted = {
            name: {
                k: page_type(TYPES, shares[name][k], calibrated[name][k], threshold) if texts.get(k) else "other"
                for k in calibrated[name]
            }
            for name in shares
        }
        tried[weight] = (
            settings,
            figures,
            calibrated,
            raw,
            predicted,
            worst_source(pages, calibrated, texts, threshold),
        )

    def quality(weight):
        figures, worst_drop = tried[weight][1], tried[weight][5]
        return worst_drop <= MAX_ARTICLES_DROPPED, -worst(figures, "non_articles_dropped_share", -1), -worst_drop

    weight = max(tried, key=quality)
    settings, figures, calibrated, raw, predicted, worst_drop = tried[weight]
    values = calibrated["with URL"]
    keys = sorted(values)
    table = reliability_table([values[k] for k in keys], [pages[k].is_article for k in keys])
    return settings, {
        "judgement": figures,
        "reliability": [asdict(b) for b in table],
        "raw": raw,
        "calibrated": calibrated,
        "probability": {name: moved_probabilities(found, settings.threshold) for name, found in calibrated.items()},
        "predicted": predicted,
        "page_types": {corpus: type_figures(types, predicted, ks) for corpus, ks in members.items()},
        "tried": {w: tried[w][1] for w in tried},
        "rules": {w: tried[w][0].threshold for w in tried},
        "worst_source": worst_drop,
    }


def worst_source(pages, calibrated: dict[str, dict[int, float]], texts, threshold: float) -> float:
    """The largest share of a source's articles dropped at ``threshold`` (a page without main text is
    dropped), with URLs or without (``calibrated``: URL case -> page -> probability)."""
    shares = [0.0]
    for values in calibrated.values():
        articles: dict[str, list[bool]] = defaultdict(list)
        for k, p in values.items():
            if pages[k].is_article:
                articles[pages[k].source].append(p < threshold or not texts.get(k))
        shares += [sum(dropped) / len(dropped) for dropped in articles.values()]
    return max(shares)


def worst(figures: dict[str, dict[str, dict]], key: str, sign: int = 1) -> float:
    """The largest (``sign`` -1: the smallest) ``key`` of the judgement figures of every corpus, with
    and without URLs."""
    return sign * max(sign * found[key] for by_url in figures.values() for found in by_url.values())


def moved_probabilities(calibrated: dict[int, float], rule: float) -> dict[int, float]:
    """The article probabilities of the shipped map: the calibrated ones moved so that ``rule``
    lies at the default threshold (the same decisions at the default as ``rule`` on the calibrated)."""
    moved = Platt().moved(rule, DEFAULT_THRESHOLD)
    return {k: float(moved(value)) for k, value in calibrated.items()}


def type_figures(types: Sequence[str], predicted: dict[str, dict[int, str]], only: Sequence[int]) -> dict:
    """Per true page type of the pages ``only``: pages, and the share typed right, with URLs and
    without; and the confusion matrix (true type -> predicted type -> pages), with URLs."""
    figures = {}
    for kind in TYPES:
        members = [k for k in only if types[k] == kind]
        if members:
            figures[kind] = {"pages": len(members)} | {
                name: sum(1 for k in members if found.get(k, "other") == kind) / len(members)
                for name, found in predicted.items()
            }
    confusion = {kind: {other: 0 for other in TYPES} for kind in TYPES if kind in figures}
    for k in only:
        confusion[types[k]][predicted["with URL"].get(k, "other")] += 1
    return {"accuracy": figures, "confusion": confusion}


def fit_all(pages, table, scheme: Scheme, report) -> Model:
    """Every model fitted on every page (second pass and article model on OOF inputs)."""
    settings, article_settings, rows = scheme.settings, scheme.article_settings, scheme.rows
    fitted = table.weight > 0  # the paragraphs of the corpus the paragraph models are fitted on
    first_model = fit_first(table.base[fitted], table.label[fitted], table.weight[fitted], settings)
    second_x = np.hstack([table.base, context_matrix(pages, table, scheme.first)])[fitted]
    second_model = fit_second(second_x, table.label[fitted], table.weight[fitted], settings)
    keys = sorted(rows)
    judge = fit_article(
        article_matrix([rows[k] for k in keys]),
        [scheme.types[k] for k in keys],
        article_settings,
        groups=[pages[k].source for k in keys],
    )
    raw = scheme.article["raw"]
    pooled = [*raw["with URL"].items(), *raw["without URL"].items()]
    calibration = fit_calibration(
        np.array([s for _, s in pooled]), np.array([pages[k].is_article for k, _ in pooled], float)
    ).moved(article_settings.threshold, DEFAULT_THRESHOLD)
    about = {
        key: report[key]
        for key in (
            "date",
            "corpus",
            "corpus_fingerprint",
            "code_fingerprint",
            "feature_fingerprint",
            "folds",
            "settings",
            "article_settings",
            "cut_grid",
        )
    }
    text_corpus = scheme.corpora[0]
    about["out_of_fold"] = {
        mode: {
            "text": figures["text"][text_corpus]["all"],
            "sources": figures["text"],
            "judgement": figures["judgement"],
        }
        for mode, figures in report["schemes"].items()
    }
    about["peers_out_of_fold"] = report["peers"]
    about["guard_grid"] = report["guard_grid"]
    return Model(
        first_model,
        second_model,
        judge.types,
        calibration,
        settings.cut,
        settings.relative_cut,
        about,
        scheme.guard,
        DEFAULT_THRESHOLD,  # the calibration is moved so that the rule chosen lies there
        judge.trees,
    )


def print_ablation(pages, scheme: Scheme, names: Sequence[str] = ()) -> None:
    """The judgement of ``scheme`` with each article feature (or each of ``names``) left out in turn
    (its column zeroed, so its weight cannot matter): a feature earns its place when leaving it out
    makes it worse."""
    print()
    print(
        f"## Article features left out one at a time, {scheme.mode} folds, class weight "
        f"{scheme.article_settings.article_weight}, the decision rule chosen again for each (at most "
        f"{MAX_ARTICLES_DROPPED:.0%} of the articles of every corpus dropped): articles dropped / non-articles dropped "
        "per corpus, with URL; without URL; ROC AUC with URL over all pages"
    )
    print()
    corpora = list(corpus_members(scheme.corpora))
    print("| left out | rule | " + " | ".join(f"{c} with URL | {c} without URL" for c in corpora) + " | ROC AUC |")
    print("|---|---|" + "---|---|" * len(corpora) + "---|")
    for name in ("(none)", *(names or page_level.FEATURES)):
        rows = {k: row | {name: 0.0} if name in row else row for k, row in scheme.rows.items()}
        chosen, figures = choose_article_weight(
            pages,
            scheme.folds,
            rows,
            scheme.texts,
            scheme.types,
            scheme.corpora,
            (scheme.article_settings.article_weight,),
            model=scheme.article_settings.model,
        )
        cells = [
            f"{f['articles_dropped_share']:.1%} / {f['non_articles_dropped_share']:.1%}"
            for by_url in figures["judgement"].values()
            for f in by_url.values()
        ]
        values = figures["calibrated"]["with URL"]
        auc = roc_auc([values[k] for k in sorted(values)], [pages[k].is_article for k in sorted(values)])
        print(f"| {name} | {chosen.threshold} | " + " | ".join(cells) + f" | {auc:.4f} |")


def base_features() -> tuple[str, ...]:
    """The judge's features before the whole-page evidence: the selection's, the page's and the URL's."""
    return tuple(name for name in page_level.FEATURES if name not in page_level.WHOLE_PAGE_FEATURES)


def compare_judges(pages, scheme: Scheme, log) -> list[tuple[str, ArticleSettings, dict]]:
    """The judges on the features before the whole-page evidence, the scheme's own left out: the
    logistic model's own article share (its class weight chosen again) and boosted trees of it (at the
    scheme's weight), on the same pages and folds as the scheme's judge, each rule chosen the same way."""
    found = []
    for label, model, names, weights in (
        ("linear, features before the whole-page evidence", "linear", base_features(), ARTICLE_WEIGHTS),
        ("trees, features before the whole-page evidence", "trees", base_features(), None),
    ):
        if model == scheme.article_settings.model and tuple(names) == page_level.FEATURES:
            continue
        chosen, figures = choose_article_weight(
            pages,
            scheme.folds,
            scheme.rows,
            scheme.texts,
            scheme.types,
            scheme.corpora,
            weights or (scheme.article_settings.article_weight,),
            model=model,
            names=names,
        )
        log(f"compared: {label}: class weight {chosen.article_weight}, rule {chosen.threshold}")
        found.append((label, chosen, figures))
    found.append((f"{scheme.article_settings.model}, page.FEATURES (written)", scheme.article_settings, scheme.article))
    return found


def measure_groups(pages, scheme: Scheme, log) -> list[tuple[str, tuple[str, ...], dict]]:
    """Boosted trees on the features before the whole-page evidence, then with each group of
    ``whole_page.GROUPS`` added alone, then with every group: a group earns its place when it raises the
    ROC AUC of both corpora (leave one source out, leave one site out) with and without URLs."""
    rows = {k: scheme.rows[k] | scheme.whole[k] for k in scheme.rows}
    base = base_features()
    found = []
    every = tuple(name for names in GROUPS.values() for name in names)
    for label, names in (
        ("(none)", base),
        *((group, (*base, *[n for n in names if n not in base])) for group, names in GROUPS.items()),
        ("(every group)", (*base, *[n for n in every if n not in base])),
    ):
        _, figures = choose_article_weight(
            pages,
            scheme.folds,
            rows,
            scheme.texts,
            scheme.types,
            scheme.corpora,
            (scheme.article_settings.article_weight,),
            model="trees",
            names=names,
        )
        log(f"whole-page group {label}: {len(names)} features")
        found.append((label, tuple(names), figures))
    return found


def print_judges(compared: list[tuple[str, ArticleSettings, dict]], mode: str) -> None:
    """The judges of ``compare_judges``, corpus by corpus, with URLs and without."""
    print()
    print(
        f"## Page judges compared, {mode} folds, on the same pages: each judge's rule chosen for at most "
        f"{MAX_ARTICLES_DROPPED:.0%} of the articles of every source and site dropped, with and without URLs"
    )
    print()
    print(
        "| judge | class weight | rule | corpus | URLs | ROC AUC | articles dropped | worst source | "
        "non-articles dropped |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for label, settings, figures in compared:
        for corpus, by_url in figures["judgement"].items():
            for name, fig in by_url.items():
                print(
                    f"| {label} | {settings.article_weight} | {settings.threshold} | {corpus} | {name} | "
                    f"{fig['roc_auc']:.3f} | {fig['articles_dropped']} of {fig['articles']} "
                    f"({fig['articles_dropped_share']:.1%}) | {figures['worst_source']:.1%} | "
                    f"{fig['non_articles_dropped']} of {fig['non_articles']} ({fig['non_articles_dropped_share']:.1%}) |"
                )


def print_groups(measured: list[tuple[str, tuple[str, ...], dict]], mode: str) -> None:
    """ROC AUC and non-articles dropped of ``measure_groups``'s judges, with the gain over the first."""
    print()
    print(
        f"## Whole-page evidence, group by group, {mode} folds: boosted trees on the features before it, with "
        "one group added; ROC AUC with URL / without URL per corpus (Δ: mean of the two against none), and "
        f"non-articles dropped at the rule chosen for at most {MAX_ARTICLES_DROPPED:.0%} of the articles of every "
        "source and site dropped (the worse of with and without URLs)"
    )
    print()
    corpora = list(measured[0][2]["judgement"])
    print(
        "| group | features | "
        + " | ".join(f"{c} ROC AUC | Δ | {c} non-articles dropped" for c in corpora)
        + " | worst source | gains on every corpus |"
    )
    print("|---|---|" + "---|---|---|" * len(corpora) + "---|---|")
    base = {c: _mean_auc(measured[0][2], c) for c in corpora}
    for label, names, figures in measured:
        cells, gains = [], []
        for c in corpora:
            by_url = figures["judgement"][c]
            gain = _mean_auc(figures, c) - base[c]
            gains.append(gain > 0)
            dropped = min(f["non_articles_dropped_share"] for f in by_url.values())
            cells += [
                " / ".join(f"{f['roc_auc']:.4f}" for f in by_url.values()),
                f"{gain:+.4f}",
                f"{dropped:.1%}",
            ]
        print(
            f"| {label} | {len(names)} | "
            + " | ".join(cells)
            + f" | {figures['worst_source']:.1%} | {'yes' if all(gains) else 'no'} |"
        )


def _mean_auc(figures: dict, corpus: str) -> float:
    return statistics.fmean(f["roc_auc"] for f in figures["judgement"][corpus].values())


SCHEME_TITLES = {
    "mixed": "small sources left out whole, large sources in groups of sites",
    "source": "each source left out whole; a whole-site corpus's sources are its sites",
    "site": "groups of sites inside every source",
}


def print_report(pages, schemes: list[Scheme], peer_figures, groups: list[str]) -> None:
    """The figures, leave-one-source-out first (the headline: it predicts pages of unseen sources),
    each corpus apart."""
    print(
        f"Out-of-fold figures on {len(pages)} pages: no page is scored by a model fitted on its fold or on any "
        f"page of its site"
    )
    for scheme in schemes:
        members = corpus_members(scheme.corpora)
        for corpus in members:
            print_text(scheme, corpus, peer_figures[corpus] if corpus in peer_figures else {})
        for corpus, ks in members.items():
            print_judgement(pages, scheme, corpus, ks, groups)
        chosen = selected_texts(
            pages, scheme.second, scheme.settings.cut, scheme.settings.relative_cut, scheme.guard, first=scheme.first
        )
        print_policy(pages, {k: keep for k, (_, keep) in chosen.items()}, scheme.mode)
        tried = scheme.article["tried"]
        if len(tried) > 1:
            print()
            print(
                "Article class weights tried (calibrated decision rule: articles dropped / non-articles dropped per "
                "corpus, with URL; without URL): "
                + "; ".join(
                    f"{w}: rule {scheme.article['rules'][w]}: "
                    + ", ".join(
                        f"{corpus} {f['with URL']['articles_dropped_share']:.1%} / "
                        f"{f['with URL']['non_articles_dropped_share']:.1%}, "
                        f"{f['without URL']['articles_dropped_share']:.1%} / "
                        f"{f['without URL']['non_articles_dropped_share']:.1%}"
                        for corpus, f in figures.items()
                    )
                    for w, figures in tried.items()
                )
            )
        print()
        print(
            f"Reliability, {scheme.mode} folds, with URLs, every corpus: share of articles among the pages given each "
            "calibrated probability (before the map is moved to the default threshold)"
        )
        print()
        print("| probability | pages | mean probability | article share | gap |")
        print("|---|---|---|---|---|")
        for b in scheme.article["reliability"]:
            if b["pages"]:
                gap = b["article_share"] - b["mean_probability"]
                print(
                    f"| {b['low']:.1f}–{b['high']:.1f} | {b['pages']} | {b['mean_probability']:.3f} | "
                    f"{b['article_share']:.3f} | {gap:+.3f} |"
                )


def print_text(scheme: Scheme, corpus: str, peer_figures: dict[str, dict[str, TextFigures]]) -> None:
    """The main text of one corpus's articles with gold text, per source, beside the peers."""
    names = list(peer_figures)
    ours = scheme.text[corpus]
    sources = sorted(s for s in ours if s != "all") + ["all"]
    print()
    print(f"## Main text, {corpus}, {scheme.mode} folds ({SCHEME_TITLES[scheme.mode]})")
    print()
    fitted = scheme.corpora[0]
    print(
        "Article pages with gold text: token F1 and 4-gram shingle precision / recall / F1; Δ = bodytext − peer "
        f"(shingle F1); lost = articles whose text holds less than {RECALL_FAILURE} of the gold's shingles"
        + ("" if corpus == fitted else f"; the paragraph models are fitted on {fitted} only (none saw {corpus})")
    )
    print()
    header = "| source | pages | bodytext F1 | P | R | shingle F1 | lost |"
    for name in names:
        header += f" {name} F1 | P | R | shingle F1 | lost | Δ |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for source in sources:
        if source not in ours:
            continue
        fig = ours[source]
        t, p, r, f = fig.row()
        line = f"| {source} | {fig.pages} | {t:.3f} | {p:.3f} | {r:.3f} | **{f:.3f}** | {fig.recall_failures()} |"
        for name in names:
            peer = peer_figures[name][source]
            pt, pp, pr, pf = peer.row()
            line += f" {pt:.3f} | {pp:.3f} | {pr:.3f} | {pf:.3f} | {peer.recall_failures()} | {f - pf:+.3f} |"
        print(line)
    if corpus == fitted and len(scheme.cut_grid) > 1:
        print()
        print(
            "Paragraph cut chosen on these figures (shingle recall / F1, mean over sources; F1 within "
            f"{TIE} of the best ties, and the most recall is kept): "
            + ", ".join(f"{c} → {r:.4f} / {f:.4f}" for c, (r, f) in scheme.cut_grid.items())
        )
    if corpus == fitted and len(scheme.guard_grid) > 1:
        print(
            "Recall guard chosen on these figures (share, cut, prose ratio, anchor ratio → shingle recall / F1, "
            "mean over sources): "
            + ", ".join(
                f"({g.share}, {g.cut}, {g.prose_ratio}, {g.anchor_ratio}) → {r:.4f} / {f:.4f}"
                for g, (r, f) in scheme.guard_grid.items()
            )
        )


def print_judgement(pages, scheme: Scheme, corpus: str, members: Sequence[int], groups: Sequence[str]) -> None:
    """The article judgement of one corpus at the default threshold: overall, per source and page
    type, per page type over the corpus, and the page types typed right."""
    print()
    print(
        f"## Article judgement, {corpus}, {scheme.mode} folds ({SCHEME_TITLES[scheme.mode]}), at the default "
        f"threshold: article probability ≥ {DEFAULT_THRESHOLD} (the calibrated rule {scheme.article_settings.threshold}, "
        f"chosen for at most {MAX_ARTICLES_DROPPED:.0%} of the articles of every source and site dropped, moved there)"
    )
    print()
    print("| URLs | articles dropped | non-articles dropped | accuracy | ROC AUC | Brier |")
    print("|---|---|---|---|---|---|")
    for name, fig in scheme.article["judgement"][corpus].items():
        print(
            f"| {name} | {fig['articles_dropped']} of {fig['articles']} ({fig['articles_dropped_share']:.1%}) | "
            f"{fig['non_articles_dropped']} of {fig['non_articles']} ({fig['non_articles_dropped_share']:.1%}) | "
            f"{fig['accuracy']:.3f} | {fig['roc_auc']:.3f} | {fig['brier']:.3f} |"
        )
    print()
    print(f"Per source and page type, {corpus}: articles dropped, non-articles dropped (with URL / without URL)")
    print()
    print("| group | articles | dropped | non-articles | dropped with URL | without URL |")
    print("|---|---|---|---|---|---|")
    probabilities = scheme.article["probability"]
    by_group: dict[str, list[int]] = defaultdict(list)
    for k in members:
        by_group[groups[k]].append(k)
        kind = groups[k].partition(": ")[2]
        if kind:
            by_group[f"(every source): {kind}"].append(k)
    for group in sorted(by_group):
        cells = []
        for is_article in (True, False):
            ks = [k for k in by_group[group] if pages[k].is_article == is_article]
            judged = [
                sum(1 for k in ks if probabilities[name].get(k, 0.0) >= DEFAULT_THRESHOLD and scheme.texts.get(k))
                for name in ("with URL", "without URL")
            ]
            dropped = [len(ks) - j for j in judged]
            if is_article:
                cells += [str(len(ks)), f"{dropped[0]} / {dropped[1]}" if ks else "–"]
            else:
                cells += [str(len(ks))] + ([f"{d} ({d / len(ks):.0%})" for d in dropped] if ks else ["–", "–"])
        print(f"| {group} | " + " | ".join(cells) + " |")
    print_page_types(scheme, corpus)
    for name in ("with URL", "without URL"):
        print()
        print(f"Trade-off, {corpus}, {scheme.mode} folds, {name}: pages below the threshold are dropped")
        print()
        values = {k: probabilities[name].get(k, 0.0) if scheme.texts.get(k) else 0.0 for k in members}
        print("\n".join(tradeoff_table(values, scheme.types, {k: pages[k].source for k in members})))


def print_page_types(scheme: Scheme, corpus: str) -> None:
    """Page-type accuracy per type (with and without URLs) and the confusion matrix (with URLs)."""
    figures = scheme.article["page_types"][corpus]
    print()
    print(f"Page types, {corpus}, {scheme.mode} folds: pages of each type typed right (with URL / without URL)")
    print()
    print("| page type | pages | typed right with URL | without URL |")
    print("|---|---|---|---|")
    for kind, fig in figures["accuracy"].items():
        print(f"| {kind} | {fig['pages']} | {fig['with URL']:.1%} | {fig['without URL']:.1%} |")
    print()
    print(
        f"Confusion between page types, {corpus}, {scheme.mode} folds, with URLs (rows: true type; columns: judged type)"
    )
    print()
    print("| true \\ judged | " + " | ".join(TYPES) + " |")
    print("|---|" + "---|" * len(TYPES))
    for kind, row in figures["confusion"].items():
        print(f"| {kind} | " + " | ".join(str(row[other]) for other in TYPES) + " |")
