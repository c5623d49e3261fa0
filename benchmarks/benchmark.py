#!/usr/bin/env python
"""Speed, memory and quality of every extractor on a labelled corpus, beside bare lxml parsing and the
peer libraries, measured in one run. Prints Markdown tables ready for the README.

    python benchmarks/benchmark.py [DIR] [--extractor NAME ...] [--no-peers] [--json FILE]
    python benchmarks/benchmark.py [DIR] --alternate [--extractor NAME ...] [--source NAME] [--rounds N] [--profile N]
    python benchmarks/benchmark.py [DIR] --stages [--source NAME] [--profile N]

DIR defaults to ../shared/corpus/dev next to the checkout. Every method runs over the whole corpus in
its own freshly spawned process, which reads the pages one at a time, so the peak RSS reported is that
method's own (interpreter and libraries included). Times are the CPU time of that process summed over
the per-page calls (see ``scrapy_bodytext.evaluation.report``).

``--alternate`` measures speed only, as a crawl sees it: in this one process, page by page, bare lxml,
the front end alone (decoding, parsing and the shared columns: ``load_document``, no method) and our
methods (the default one unless ``--extractor`` names others) each process the page in turn (the
order rotating from page to page), so that every method meets the same state of caches and machine.
It prints each one's CPU time per page and its ratio to bare lxml, over all rounds and as the median
of the per-round ratios. It then prints where the default method's time goes, stage by stage, as a
crawl runs a page (``extract`` with the page's URL and a site memory): the functions of each stage
are wrapped and timed in place (``StageClock``), bare lxml taking turns with it page by page for the
ratio. ``--stages`` prints that stage table alone (no alternating rounds). ``--profile N`` then
profiles the same runs and prints the N functions with the largest cumulative and own times
(cProfile; run it with ``BODYTEXT_PURE_PYTHON=1`` to see the compiled modules' functions). ``--source``
keeps only the pages of one source.

Methods:

* ``lxml.html`` (the baseline): decode the bytes (``scrapy_bodytext.page.decoding.decode``, the step every
  method here shares) and parse them with ``lxml.html``; nothing else. "× lxml" is each method's
  total time divided by this one's.
* our extractors, through ``extract_with_config`` (decoding, parsing, cleaning, extraction).
* peers, when installed (``pip install 'scrapy-bodytext[peers]'``), each given the same decoded text:
  trafilatura (``extract`` with its defaults, and with ``include_comments=False``), readability-lxml
  (``Document.summary()``, its HTML rendered to text by our renderer), jusText (the stop-word list of
  the page's labelled language, English when it has none or jusText lacks it), resiliparse
  (``extract_plain_text(main_content=True)``). A peer judges a page an article when it returns text.

This is a measurement script, not a test: run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import json
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from scrapy_bodytext._core import build
from scrapy_bodytext.api import extract_with_config, load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.evaluation.report import (
    Outcome,
    Run,
    available_extractors,
    count_and_share,
    fmt,
    machine_description,
    markdown_table,
    our_method,
    run_isolated,
    source_table,
    summarize,
)
from scrapy_bodytext.page.decoding import decode

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "dev"
BASELINE = "lxml.html"
FRONT_END = "front end"

#: page language code -> jusText stop-word list name (languages jusText ships)
JUSTEXT_LANGUAGES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "cs": "Czech",
    "pl": "Polish",
    "ru": "Russian",
    "sv": "Swedish",
    "da": "Danish",
    "fi": "Finnish",
    "no": "Norwegian_Bokmal",
    "tr": "Turkish",
    "hu": "Hungarian",
    "ro": "Romanian",
    "id": "Indonesian",
    "ar": "Arabic",
    "ko": "Korean",
    "lv": "Latvian",
    "uk": "Ukrainian",
}


def page_text(page) -> str:
    return decode(page.body, encoding=page.charset)[0]


def peer_outcome(text: str | None) -> Outcome:
    text = (text or "").strip()
    return text, None, bool(text), "ok" if text else "no_main_text"


# --- methods (module-level so the worker process can import them) ------------------------------------


def lxml_method():
    import lxml.html

    parser = lxml.html.HTMLParser(encoding="utf-8")

    def run(page) -> Outcome:
        lxml.html.document_fromstring(page_text(page).encode("utf-8"), parser=parser)
        return "", None, False, "ok"

    return run


def trafilatura_method(**options):
    import trafilatura

    return lambda page: peer_outcome(trafilatura.extract(page_text(page), **options))


def readability_method():
    from readability import Document

    from scrapy_bodytext.api import load_document
    from scrapy_bodytext.output.text import render_slots

    config = ExtractConfig()

    def run(page) -> Outcome:
        summary = Document(page_text(page)).summary(html_partial=True)
        doc = load_document(summary, config)
        return peer_outcome(render_slots(doc, range(len(doc.texts))))

    return run


def justext_method():
    import justext

    available = set(justext.get_stoplists())
    stoplists: dict[str, frozenset] = {}

    def stoplist(lang: str | None) -> frozenset:
        name = JUSTEXT_LANGUAGES.get((lang or "").split("-")[0].lower(), "English")
        name = name if name in available else "English"
        if name not in stoplists:
            stoplists[name] = justext.get_stoplist(name)
        return stoplists[name]

    def run(page) -> Outcome:
        paragraphs = justext.justext(page_text(page), stoplist(page.lang))
        return peer_outcome("\n".join(p.text for p in paragraphs if not p.is_boilerplate))

    return run


def resiliparse_method():
    from resiliparse.extract.html2text import extract_plain_text

    return lambda page: peer_outcome(extract_plain_text(page_text(page), main_content=True))


PEERS = {
    "trafilatura": ("trafilatura", partial(trafilatura_method)),
    "trafilatura (no comments)": ("trafilatura", partial(trafilatura_method, include_comments=False)),
    "readability-lxml": ("readability", readability_method),
    "jusText": ("justext", justext_method),
    "resiliparse": ("resiliparse", resiliparse_method),
}


# --- alternating, in one process --------------------------------------------------------------------


def front_end_method():
    config = ExtractConfig()

    def run(page) -> None:
        try:
            load_document(page.body, config, url=page.url, encoding=page.charset)
        except Exception:  # noqa: BLE001 - a skipped page (empty, over a limit) costs what it costs
            pass

    return run


def extractor_method(name: str):
    config = ExtractConfig(extractor=name)
    return lambda page: extract_with_config(page.body, config, url=page.url, encoding=page.charset)


def selected_pages(folder: Path, source: str | None):
    """Pages of the corpus, only those of ``source`` when one is named."""
    return (page for page in iter_corpus(folder) if source is None or page.source == source)


def alternate(folder: Path, names: list[str], rounds: int, source: str | None = None) -> dict[str, list[float]]:
    """CPU seconds of each method per round, the methods taking turns on every page."""
    runners: dict[str, Callable] = {BASELINE: lxml_method(), FRONT_END: front_end_method()}
    runners.update({name: extractor_method(name) for name in names})
    order = list(runners)
    seconds = {name: [0.0] * rounds for name in order}
    cpu = time.process_time
    for round_ in range(rounds):
        for number, page in enumerate(selected_pages(folder, source)):
            shift = number % len(order)
            for name in order[shift:] + order[:shift]:
                started = cpu()
                runners[name](page)
                seconds[name][round_] += cpu() - started
        print(f"round {round_ + 1}/{rounds} done", file=sys.stderr, flush=True)
    return seconds


def alternating_table(seconds: dict[str, list[float]], pages: int) -> str:
    base = seconds[BASELINE]
    headers = ["method", "CPU ms/page", "× lxml", "× lxml per round: median (min-max)"]
    rows = []
    for name, per_round in seconds.items():
        ratios = [s / b for s, b in zip(per_round, base)]
        rows.append(
            [
                name,
                fmt(1000 * sum(per_round) / (pages * len(per_round)), 2),
                fmt(sum(per_round) / sum(base), 2),
                f"{fmt(statistics.median(ratios), 2)} ({fmt(min(ratios), 2)}-{fmt(max(ratios), 2)})",
            ]
        )
    return markdown_table(headers, rows)


#: the default method's stages as a crawl runs a page through them (``extract`` with a site memory), each
#: the functions whose CPU time it counts: (module, attribute), or (module, class, method)
STAGES: tuple[tuple[str, str, tuple[tuple[str, ...], ...]], ...] = (
    (
        "front end",
        "decoding, parsing, cleaning and the shared columns, to the `Document` (`api.read_page`, metadata left out)",
        (("scrapy_bodytext.api", "read_page"),),
    ),
    (
        "metadata",
        "title, dates, authors, ... from the tree before it is cleaned (`metadata.read_metadata`)",
        (("scrapy_bodytext.api", "read_metadata"),),
    ),
    (
        "paragraph features",
        "the paragraphs and their feature rows, then the context rows (`units.paragraphs`, `context.context_rows`)",
        (
            ("scrapy_bodytext.extractors.bodytext.units", "paragraphs"),
            ("scrapy_bodytext.extractors.bodytext.context", "context_rows"),
        ),
    ),
    (
        "paragraph scores",
        "the first- and second-pass models and the selection (`Model.first_pass`, `Model.second_pass`, "
        "`select`, comments and captions)",
        (
            ("scrapy_bodytext.extractors.bodytext.model", "Model", "first_pass"),
            ("scrapy_bodytext.extractors.bodytext.model", "Model", "second_pass"),
            ("scrapy_bodytext.extractors.bodytext", "select"),
            ("scrapy_bodytext.extractors.bodytext", "comment_paragraphs"),
            ("scrapy_bodytext.extractors.bodytext", "article_captions"),
            ("scrapy_bodytext.extractors.bodytext", "without_comments"),
        ),
    ),
    (
        "page features",
        "the page evidence and the judge's row (`page.page_evidence`, `page.article_row`, `page.short_body_factor`)",
        (
            ("scrapy_bodytext.extractors.bodytext.page", "page_evidence"),
            ("scrapy_bodytext.extractors.bodytext.page", "article_row"),
            ("scrapy_bodytext.extractors.bodytext.page", "short_body_factor"),
        ),
    ),
    (
        "judge",
        "the page-type model and its calibration (`Model.judge`)",
        (("scrapy_bodytext.extractors.bodytext.model", "Model", "judge"),),
    ),
    (
        "site evidence",
        "the selection's template signature and links (`signature`), the site memory's verdict and furniture "
        "lines (`api.with_site_memory`: `SiteMemory.decide`, `strip_boilerplate`; pages with a URL)",
        (
            ("scrapy_bodytext.extractors.bodytext", "template_signature"),
            ("scrapy_bodytext.extractors.bodytext", "selection_links"),
            ("scrapy_bodytext.api", "with_site_memory"),
        ),
    ),
    (
        "output",
        "writing the main text and the captions (`write_selection`, `shows_text`)",
        (("scrapy_bodytext.api", "write_selection"), ("scrapy_bodytext.api", "shows_text")),
    ),
)
OTHER = "other"


class StageClock:
    """Wraps every function of ``STAGES`` so that each call adds the CPU time of the thread it took to
    its stage, less the time of the wrapped calls inside it (``read_page`` holds ``read_metadata``):
    the real code path, timed in place. ``restore`` puts the functions back."""

    def __init__(self) -> None:
        import importlib

        self.seconds = dict.fromkeys([name for name, _, _ in STAGES], 0.0)
        self._inner: list[float] = []  # per open call: the seconds of the wrapped calls inside it
        self._undo: list[tuple[object, str, object]] = []
        for stage, _, targets in STAGES:
            for target in targets:
                owner = importlib.import_module(target[0])
                if len(target) == 3:
                    owner = getattr(owner, target[1])
                name = target[-1]
                original = getattr(owner, name)
                self._undo.append((owner, name, original))
                setattr(owner, name, self._wrap(stage, original))

    def _wrap(self, stage: str, original: Callable) -> Callable:
        cpu, inner, seconds = time.thread_time, self._inner, self.seconds

        def timed(*args, **kwargs):
            inner.append(0.0)
            started = cpu()
            try:
                return original(*args, **kwargs)
            finally:
                took = cpu() - started
                seconds[stage] += took - inner.pop()
                if inner:
                    inner[-1] += took

        return timed

    def restore(self) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()


def crawl_page_method():
    """A page as the crawl's pipeline extracts it by default: ``extract`` with the page's URL and a
    site memory of this process (one for the whole run, as a crawl has)."""
    from scrapy_bodytext.api import extract
    from scrapy_bodytext.sites import SiteMemory

    memory = SiteMemory()
    return lambda page: extract(page.body, url=page.url, encoding=page.charset, memory=memory if page.url else None)


def cost_table(folder: Path, source: str | None = None) -> str:
    """Each stage's share of the default method's CPU time over the corpus, timed in place
    (``StageClock``), beside bare lxml parsing of the same pages in the same run (page by page, the
    two taking turns)."""
    bare, run = lxml_method(), crawl_page_method()
    clock = StageClock()
    cpu = time.thread_time
    whole = lxml = 0.0
    pages = 0
    try:
        for number, page in enumerate(selected_pages(folder, source)):
            pages += 1
            for step in ("lxml", "method") if number % 2 else ("method", "lxml"):
                started = cpu()
                if step == "lxml":
                    bare(page)
                    lxml += cpu() - started
                else:
                    run(page)
                    whole += cpu() - started
    finally:
        clock.restore()
    totals = {**clock.seconds, OTHER: whole - sum(clock.seconds.values())}
    per_page = lambda seconds: fmt(1000 * seconds / max(pages, 1), 2)  # noqa: E731
    ratio = lambda seconds: fmt(seconds / lxml, 2) if lxml else "-"  # noqa: E731
    described = [(name, what) for name, what, _ in STAGES] + [
        (OTHER, "the rest of `extract` (glue, result, time checks)")
    ]
    rows = [
        [name, what, per_page(totals[name]), f"{100 * totals[name] / (whole or 1.0):.1f} %", ratio(totals[name])]
        for name, what in described
    ]
    rows.append(["all", f"{pages} pages", per_page(whole), "100.0 %", ratio(whole)])
    rows.append([BASELINE, "bare parsing of the same pages, same run (decoding included)", per_page(lxml), "", "1.00"])
    return markdown_table(["stage", "what", "CPU ms/page", "share", "× lxml"], rows)


def profile(folder: Path, top: int, source: str | None = None) -> str:
    """cProfile of the default method over the corpus as ``cost_table`` runs it (front end and site
    memory included): the ``top`` functions by cumulative time, then by own time."""
    runner = crawl_page_method()
    profiler = cProfile.Profile()
    for page in selected_pages(folder, source):
        profiler.enable()
        runner(page)
        profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def run_alternating(
    folder: Path, names: list[str], rounds: int, top: int, source: str | None = None, stages_only: bool = False
) -> None:
    pages = sum(1 for _ in selected_pages(folder, source))
    chosen = f" (source {source})" if source else ""
    shown = "stages only" if stages_only else f"{rounds} round(s)"
    print(f"Corpus {folder}{chosen}: {pages} pages, {shown}; core: {build()}; {machine_description()['summary']}")
    if not stages_only:
        seconds = alternate(folder, names, rounds, source)
        print()
        print(
            "CPU time per page, the methods taking turns page by page in one process (decoding and parsing "
            "included); the front end is decoding, parsing and the shared columns without any method."
        )
        print()
        print(alternating_table(seconds, pages))
    print()
    print(
        "Where the default method's time goes, stage by stage, as a crawl runs it (extract() with the page's URL "
        "and a site memory): each stage's functions timed in place (CPU time of the thread), bare lxml parsing "
        "of the same pages taking turns with it:"
    )
    print()
    print(cost_table(folder, source))
    if top:
        print()
        print(
            f"Profile of the default method ({ExtractConfig().extractor}, as in the stage table), top {top} by "
            "cumulative time, then by own time:"
        )
        print()
        print(profile(folder, top, source))


# --- report ----------------------------------------------------------------------------------------


def benchmark_table(figures: dict[str, dict], baseline: str) -> str:
    base_seconds = figures[baseline]["seconds"] if baseline in figures else None
    headers = [
        "method",
        "token F1",
        "shingle F1",
        "accuracy",
        "articles dropped",
        "non-articles kept",
        "Brier",
        "pages/s CPU",
        "× lxml time",
        "peak RSS MB",
        "errors",
    ]
    rows = []
    for name, f in figures.items():
        if f.get("failure"):
            rows.append([name, f"run failed: {f['failure']}", *[""] * (len(headers) - 2)])
            continue
        quality = name != baseline
        ratio = f["seconds"] / base_seconds if base_seconds else None
        rows.append(
            [
                name,
                fmt(f["f1_mean"] if quality else None),
                fmt(f["shingle_f1"] if quality else None),
                fmt(f["accuracy"] if quality else None),
                count_and_share(f["articles_dropped"], f["articles_dropped_share"]) if quality else "-",
                count_and_share(f["non_articles_kept"], f["non_articles_kept_share"]) if quality else "-",
                fmt(f["brier"]),
                fmt(f["pages_per_s"], 1),
                fmt(ratio, 2),
                fmt(f["peak_rss_mb"], 0),
                fmt(f["errors"]),
            ]
        )
    return markdown_table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), metavar="DIR")
    parser.add_argument("--extractor", action="append", metavar="NAME", help="our extractor(s) to run (default all)")
    parser.add_argument("--no-peers", action="store_true", help="leave the peer libraries out")
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    parser.add_argument(
        "--alternate",
        action="store_true",
        help="speed only: bare lxml, the front end and our methods take turns page by page in one process",
    )
    parser.add_argument(
        "--source", metavar="NAME", help="with --alternate: only the pages of this source (as in index.jsonl)"
    )
    parser.add_argument("--rounds", type=int, default=1, metavar="N", help="with --alternate: passes over the corpus")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="with --alternate: also print the N functions the default method spends most time in",
    )
    parser.add_argument(
        "--stages",
        action="store_true",
        help="the stage table (and --profile) only, without the alternating rounds",
    )
    args = parser.parse_args(argv)
    folder = Path(args.corpus)
    if not (folder / "index.jsonl").is_file():
        parser.error(f"{folder}: no index.jsonl")
    if args.rounds < 1 or args.profile < 0:
        parser.error("--rounds must be at least 1 and --profile not negative")
    if args.alternate or args.stages:
        names = args.extractor or [ExtractConfig().extractor]
        run_alternating(folder, names, args.rounds, args.profile, args.source, args.stages)
        return 0

    present, missing = available_extractors()
    ours = args.extractor or present
    methods = {BASELINE: lxml_method}
    methods.update({name: our_method(ExtractConfig(extractor=name)) for name in ours})
    absent_peers = []
    if not args.no_peers:
        for name, (module, factory) in PEERS.items():
            if importlib.util.find_spec(module) is None:
                absent_peers.append(name)
            else:
                methods[name] = factory

    figures: dict[str, dict] = {}
    for name, factory in methods.items():
        print(f"running {name} ...", file=sys.stderr, flush=True)
        run: Run = run_isolated(name, factory, folder)
        figures[name] = summarize(run)

    machine = machine_description()
    first = figures[BASELINE]
    print(
        f"Corpus {folder}: {first['pages']} pages ({first['articles']} articles, {first['non_articles']} "
        f"non-articles); {machine['summary']}"
    )
    print()
    print(
        "Text quality on article pages (token F1 mean, 4-gram shingle F1), article judgement on all pages, "
        "CPU time (decoding and parsing included) and peak RSS, each method in its own process."
    )
    print()
    print(benchmark_table(figures, BASELINE))
    print()
    print(
        "Per source (pages): token F1 mean / shingle F1 on article pages; share judged article on sources of "
        "non-articles."
    )
    print()
    print(source_table({name: f for name, f in figures.items() if name != BASELINE}))
    notes = []
    if missing:
        notes.append(f"extractors not available: {', '.join(missing)}")
    if absent_peers:
        notes.append(f"peers not installed: {', '.join(absent_peers)}")
    if notes:
        print("\n" + "; ".join(notes))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine, "methods": figures}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
