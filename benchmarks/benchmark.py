#!/usr/bin/env python
"""Speed, memory and quality of every extractor on a labelled corpus, beside bare lxml parsing and the
peer libraries, measured in one run. Prints Markdown tables ready for the README.

    python benchmarks/benchmark.py [DIR] [--extractor NAME ...] [--no-peers] [--json FILE]

DIR defaults to ../shared/corpus/dev next to the checkout. Every method runs over the whole corpus in
its own freshly spawned process, which reads the pages one at a time, so the peak RSS reported is that
method's own (interpreter and libraries included). Times are the CPU time of that process summed over
the per-page calls (see ``scrapy_bodytext.evaluation.report``).

Methods:

* ``lxml.html`` (the baseline): decode the bytes (``scrapy_bodytext.decoding.decode``, the step every
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
import importlib.util
import json
import sys
from functools import partial
from pathlib import Path

from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.decoding import decode
from scrapy_bodytext.evaluation.report import (
    Outcome, Run, available_extractors, count_and_share, fmt, machine_description, markdown_table, our_method,
    run_isolated, source_table, summarize,
)

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "dev"
BASELINE = "lxml.html"

#: page language code -> jusText stop-word list name (languages jusText ships)
JUSTEXT_LANGUAGES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "cs": "Czech", "pl": "Polish", "ru": "Russian", "sv": "Swedish", "da": "Danish",
    "fi": "Finnish", "no": "Norwegian_Bokmal", "tr": "Turkish", "hu": "Hungarian", "ro": "Romanian",
    "id": "Indonesian", "ar": "Arabic", "ko": "Korean", "lv": "Latvian", "uk": "Ukrainian",
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
    from scrapy_bodytext.render import render_ranges

    config = ExtractConfig()

    def run(page) -> Outcome:
        summary = Document(page_text(page)).summary(html_partial=True)
        doc = load_document(summary, config)
        return peer_outcome(render_ranges(doc, [(0, len(doc.texts))]))

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


# --- report ----------------------------------------------------------------------------------------


def benchmark_table(figures: dict[str, dict], baseline: str) -> str:
    base_seconds = figures[baseline]["seconds"] if baseline in figures else None
    headers = ["method", "token F1", "shingle F1", "accuracy", "articles dropped", "non-articles kept", "Brier",
               "pages/s CPU", "× lxml time", "peak RSS MB", "errors"]
    rows = []
    for name, f in figures.items():
        if f.get("failure"):
            rows.append([name, f"run failed: {f['failure']}", *[""] * (len(headers) - 2)])
            continue
        quality = name != baseline
        ratio = f["seconds"] / base_seconds if base_seconds else None
        rows.append([
            name, fmt(f["f1_mean"] if quality else None), fmt(f["shingle_f1"] if quality else None),
            fmt(f["accuracy"] if quality else None),
            count_and_share(f["articles_dropped"], f["articles_dropped_share"]) if quality else "-",
            count_and_share(f["non_articles_kept"], f["non_articles_kept_share"]) if quality else "-",
            fmt(f["brier"]), fmt(f["pages_per_s"], 1), fmt(ratio, 2), fmt(f["peak_rss_mb"], 0), fmt(f["errors"]),
        ])
    return markdown_table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), metavar="DIR")
    parser.add_argument("--extractor", action="append", metavar="NAME", help="our extractor(s) to run (default all)")
    parser.add_argument("--no-peers", action="store_true", help="leave the peer libraries out")
    parser.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    args = parser.parse_args(argv)
    folder = Path(args.corpus)
    if not (folder / "index.jsonl").is_file():
        parser.error(f"{folder}: no index.jsonl")

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
    print(f"Corpus {folder}: {first['pages']} pages ({first['articles']} articles, {first['non_articles']} "
          f"non-articles); {machine['summary']}")
    print()
    print("Text quality on article pages (token F1 mean, 4-gram shingle F1), article judgement on all pages, "
          "CPU time (decoding and parsing included) and peak RSS, each method in its own process.")
    print()
    print(benchmark_table(figures, BASELINE))
    print()
    print("Per source (pages): token F1 mean / shingle F1 on article pages; share judged article on sources of "
          "non-articles.")
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
