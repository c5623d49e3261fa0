"""Run extraction methods over a labelled corpus and aggregate their figures.

A *method* is a factory returning a runner: ``runner(page) -> (text, probability, judged_article,
reason)``, with ``probability`` ``None`` for methods that give none. Our extractors, the bare-parsing
baseline and peer libraries are all methods, scored the same way by ``summarize``.

Speed is the sum of the per-page times of the runner calls (decoding and parsing included, corpus
reading excluded), in CPU time of the process (``time.process_time``: the same as wall-clock time on
an idle machine, and not inflated by other processes on a busy one); wall-clock figures are kept too. Memory is honest only in a fresh process: ``run_isolated`` runs one method in a
newly spawned interpreter that reads the corpus one page at a time and reports its own peak resident
set size (``ru_maxrss``), so figures of different methods never mix.
"""

from __future__ import annotations

import datetime
import math
import multiprocessing
import os
import platform
import resource
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from .. import extractors
from ..api import extract_with_config
from ..config import ExtractConfig
from .corpus import LabelledPage, iter_corpus
from .metrics import ShingleMatch, brier_score, reliability_table, roc_auc, shingle_match, shingle_prf, token_prf

#: what a runner returns for one page
Outcome = tuple[str, float | None, bool, str]
Runner = Callable[[LabelledPage], Outcome]
#: a picklable zero-argument callable building a runner (called in the process that runs it)
MethodFactory = Callable[[], Runner]
#: called as ``progress(done, total)`` after each page
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class PageScore:
    """How one method did on one labelled page (text scores only for article pages)."""

    id: str
    source: str
    is_article: bool
    probability: float | None
    judged_article: bool
    reason: str
    seconds: float  # CPU time
    wall_seconds: float
    token: tuple[float, float, float] | None = None
    shingles: ShingleMatch | None = None


@dataclass(slots=True)
class Run:
    """Every page score of one method, plus the memory of the process that ran it (None in-process)."""

    name: str
    scores: list[PageScore]
    peak_rss_kb: int | None = None
    base_rss_kb: int | None = None
    failure: str | None = None  # the whole run broke (e.g. the worker process died)


# --- methods -----------------------------------------------------------------------------------------


def available_extractors() -> tuple[list[str], list[str]]:
    """Registered extractor names split into (importable, missing)."""
    present, missing = [], []
    for name in extractors.names():
        try:
            extractors.load(name).Options  # noqa: B018 - a module still being written is not usable
        except Exception:  # noqa: BLE001
            missing.append(name)
        else:
            present.append(name)
    return present, missing


def _run_ours(config: ExtractConfig, page: LabelledPage) -> Outcome:
    result = extract_with_config(page.body, config, url=page.url, encoding=page.charset)
    return result.text, result.article_probability, result.is_article, result.reason.value


def build_our_runner(config: ExtractConfig) -> Runner:
    return partial(_run_ours, config)


def our_method(config: ExtractConfig) -> MethodFactory:
    """The method of one of our extractors, configured by ``config``."""
    return partial(build_our_runner, config)


# --- running -----------------------------------------------------------------------------------------


def score_page(page: LabelledPage, outcome: Outcome, seconds: float, wall_seconds: float) -> PageScore:
    text, probability, judged, reason = outcome
    token = matched = None
    if page.is_article:
        token = token_prf(text, page.gold_text)
        matched = shingle_match(text, page.gold_text)
    return PageScore(
        page.id, page.source, page.is_article, probability, bool(judged), reason, seconds, wall_seconds, token, matched
    )


def run_pages(
    pages: Iterable[LabelledPage], runner: Runner, *, progress: ProgressCallback | None = None, total: int = 0
) -> list[PageScore]:
    """Score ``runner`` on every page; an exception inside it is a page with reason ``error``."""
    scores = []
    cpu, wall = time.process_time, time.perf_counter
    for done, page in enumerate(pages, 1):
        started, wall_started = cpu(), wall()
        try:
            outcome = runner(page)
        except Exception:  # noqa: BLE001 - a crash is a figure, not the end of the run
            outcome = ("", None, False, "error")
        seconds, wall_seconds = cpu() - started, wall() - wall_started
        scores.append(score_page(page, outcome, seconds, wall_seconds))
        if progress is not None:
            progress(done, total)
    return scores


def count_pages(folder: str | Path) -> int:
    with open(Path(folder) / "index.jsonl", encoding="utf-8") as lines:
        return sum(1 for line in lines if line.strip())


def _max_rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


def _run_in_this_process(name: str, factory: MethodFactory, folder: str, progress: ProgressCallback | None) -> Run:
    runner = factory()
    base = _max_rss_kb()
    scores = run_pages(iter_corpus(folder), runner, progress=progress, total=count_pages(folder))
    return Run(name, scores, peak_rss_kb=_max_rss_kb(), base_rss_kb=base)


def run_isolated(
    name: str, factory: MethodFactory, folder: str | Path, progress: ProgressCallback | None = None
) -> Run:
    """Run one method over the corpus at ``folder`` in a freshly spawned interpreter.

    A worker that dies (e.g. a crash in a C extension) gives a ``Run`` with ``failure`` set;
    errors in the corpus itself (``CorpusError``) propagate.
    """
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        future = pool.submit(_run_in_this_process, name, factory, str(folder), progress)
        try:
            return future.result()
        except BrokenProcessPool as exc:
            return Run(name, [], failure=f"worker process died: {exc}")


# --- aggregation -------------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _text_figures(scores: Sequence[PageScore]) -> dict[str, Any]:
    articles = [s for s in scores if s.is_article and s.token is not None]
    f1s = [s.token[2] for s in articles]
    shingle_p, shingle_r, shingle_f1 = shingle_prf(s.shingles for s in articles) if articles else (None,) * 3
    return {
        "f1_mean": _mean(f1s),
        "f1_median": statistics.median(f1s) if f1s else None,
        "precision_mean": _mean([s.token[0] for s in articles]),
        "recall_mean": _mean([s.token[1] for s in articles]),
        "shingle_precision": shingle_p,
        "shingle_recall": shingle_r,
        "shingle_f1": shingle_f1,
    }


def summarize(run: Run, *, time_limit: float | None = None) -> dict[str, Any]:
    """JSON-ready figures of one run: text quality on article pages (overall and per source),
    article judgement, calibration, speed, memory, crashes."""
    scores = run.scores
    articles = [s for s in scores if s.is_article]
    others = [s for s in scores if not s.is_article]
    dropped = sum(1 for s in articles if not s.judged_article)
    kept = sum(1 for s in others if s.judged_article)
    seconds = sum(s.seconds for s in scores)
    wall_seconds = sum(s.wall_seconds for s in scores)
    figures: dict[str, Any] = {
        "pages": len(scores),
        "articles": len(articles),
        "non_articles": len(others),
        **_text_figures(scores),
        "accuracy": (len(scores) - dropped - kept) / len(scores) if scores else None,
        "articles_dropped": dropped,
        "articles_dropped_share": dropped / len(articles) if articles else None,
        "non_articles_kept": kept,
        "non_articles_kept_share": kept / len(others) if others else None,
        **_probability_figures(scores),
        "seconds": seconds,
        "pages_per_s": len(scores) / seconds if seconds > 0 else None,
        "ms_per_page": 1000 * seconds / len(scores) if scores else None,
        "wall_seconds": wall_seconds,
        "wall_pages_per_s": len(scores) / wall_seconds if wall_seconds > 0 else None,
        "peak_rss_mb": run.peak_rss_kb / 1024 if run.peak_rss_kb else None,
        "base_rss_mb": run.base_rss_kb / 1024 if run.base_rss_kb else None,
        "errors": sum(1 for s in scores if s.reason == "error"),
        "over_time_limit": sum(
            1 for s in scores if s.reason == "time_limit" or (time_limit is not None and s.wall_seconds > time_limit)
        ),
        "reasons": dict(Counter(s.reason for s in scores).most_common()),
        "failure": run.failure,
    }
    by_source: dict[str, list[PageScore]] = defaultdict(list)
    for s in scores:
        by_source[s.source].append(s)
    figures["by_source"] = {
        source: {
            "pages": len(group),
            "articles": sum(1 for s in group if s.is_article),
            **{k: v for k, v in _text_figures(group).items() if k in ("f1_mean", "f1_median", "shingle_f1")},
            "judged_article_share": sum(1 for s in group if s.judged_article) / len(group),
        }
        for source, group in sorted(by_source.items())
    }
    return figures


def _probability_figures(scores: Sequence[PageScore]) -> dict[str, Any]:
    """ROC AUC, Brier score and reliability table; all None for methods that give no probability."""
    if not any(s.probability is not None for s in scores):
        return {"roc_auc": None, "brier": None, "reliability": None}
    probabilities = [s.probability or 0.0 for s in scores]
    labels = [s.is_article for s in scores]
    return {
        "roc_auc": roc_auc(probabilities, labels),
        "brier": brier_score(probabilities, labels),
        "reliability": [
            {
                "low": b.low,
                "high": b.high,
                "pages": b.pages,
                "mean_probability": b.mean_probability,
                "article_share": b.article_share,
            }
            for b in reliability_table(probabilities, labels)
        ],
    }


def machine_description() -> dict[str, Any]:
    """Date, platform, CPU model and count: what a speed figure needs next to it."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), cpu)
    except OSError:
        pass
    described = {
        "date": datetime.date.today().isoformat(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
    }
    described["summary"] = (
        f"{described['date']}, {described['platform']}, Python {described['python']}, {described['cpu_count']} x {cpu}"
    )
    return described


# --- tables ------------------------------------------------------------------------------------------


def fmt(value: Any, digits: int = 3) -> str:
    """A figure for a table: ``-`` for missing, fixed decimals for floats."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; the first column left-aligned, the others right-aligned."""
    rows = [list(map(str, row)) for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i else (":" + "-" * (w + 1)) for i, w in enumerate(widths)) + "|"
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def count_and_share(count: int, share: float | None) -> str:
    return "-" if share is None else f"{count} ({100 * share:.1f}%)"


def evaluation_table(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per method: text quality, article judgement, calibration, speed, memory, crashes."""
    headers = [
        "extractor",
        "F1 mean",
        "F1 median",
        "shingle P",
        "shingle R",
        "shingle F1",
        "accuracy",
        "articles dropped",
        "non-articles kept",
        "ROC AUC",
        "Brier",
        "pages/s CPU",
        "peak RSS MB",
        "errors",
        "over time limit",
    ]
    rows = []
    for name, f in figures.items():
        if f.get("failure"):
            rows.append([name, f"run failed: {f['failure']}", *[""] * (len(headers) - 2)])
            continue
        rows.append(
            [
                name,
                fmt(f["f1_mean"]),
                fmt(f["f1_median"]),
                fmt(f["shingle_precision"]),
                fmt(f["shingle_recall"]),
                fmt(f["shingle_f1"]),
                fmt(f["accuracy"]),
                count_and_share(f["articles_dropped"], f["articles_dropped_share"]),
                count_and_share(f["non_articles_kept"], f["non_articles_kept_share"]),
                fmt(f["roc_auc"]),
                fmt(f["brier"]),
                fmt(f["pages_per_s"], 1),
                fmt(f["peak_rss_mb"], 0),
                fmt(f["errors"]),
                fmt(f["over_time_limit"]),
            ]
        )
    return markdown_table(headers, rows)


def source_table(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per method, one column per source: token F1 mean / shingle F1 on article pages, or the
    share judged article on a source of non-articles."""
    sources: dict[str, tuple[int, int]] = {}
    for f in figures.values():
        for source, s in f.get("by_source", {}).items():
            sources[source] = (s["pages"], s["articles"])
    order = sorted(sources, key=lambda source: (-sources[source][1], -sources[source][0], source))
    headers = ["extractor", *(f"{source} ({sources[source][0]})" for source in order)]
    rows = []
    for name, f in figures.items():
        row = [name]
        for source in order:
            s = f.get("by_source", {}).get(source)
            if s is None:
                row.append("-")
            elif s["articles"]:
                row.append(f"{fmt(s['f1_mean'])} / {fmt(s['shingle_f1'])}")
            else:
                row.append(f"kept {100 * s['judged_article_share']:.1f}%")
        rows.append(row)
    return markdown_table(headers, rows)


def reliability_markdown(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """Bins of article probability: share of articles among the pages in each bin (and their count)."""
    names = [name for name, f in figures.items() if f.get("reliability")]
    if not names:
        return ""
    bins = figures[names[0]]["reliability"]
    rows = []
    for index, b in enumerate(bins):
        row = [f"{b['low']:.1f}-{b['high']:.1f}"]
        for name in names:
            cell = figures[name]["reliability"][index]
            row.append("-" if not cell["pages"] else f"{cell['article_share']:.2f} ({cell['pages']})")
        rows.append(row)
    return markdown_table(["probability", *names], rows)


def format_evaluation(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """The human-readable report printed by ``scrapy-bodytext evaluate``."""
    parts = [
        "Article pages: token F1 (bag of \\w+ tokens) and 4-gram shingle P/R/F1; all pages: article "
        "judgement at the threshold.",
        "",
        evaluation_table(figures),
        "",
        "Per source (pages): token F1 mean / shingle F1 on article pages; share judged article on sources of "
        "non-articles.",
        "",
        source_table(figures),
    ]
    reliability = reliability_markdown(figures)
    if reliability:
        parts += ["", "Reliability: share of articles among pages in each probability bin (pages).", "", reliability]
    unusual = {
        name: {r: n for r, n in f.get("reasons", {}).items() if r not in ("ok", "no_main_text")}
        for name, f in figures.items()
    }
    unusual = {name: reasons for name, reasons in unusual.items() if reasons}
    if unusual:
        parts += [
            "",
            "Pages not extracted, by reason: "
            + "; ".join(
                f"{name}: " + ", ".join(f"{r} {n}" for r, n in reasons.items()) for name, reasons in unusual.items()
            ),
        ]
    return "\n".join(parts)
