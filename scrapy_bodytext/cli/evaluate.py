"""``scrapy-bodytext evaluate``: every selected extractor over a labelled corpus, one fresh process each."""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path

from .. import extractors
from ..evaluation.corpus import CorpusError, iter_corpus
from ..evaluation.report import (
    available_extractors,
    count_pages,
    format_evaluation,
    machine_description,
    our_method,
    run_isolated,
    summarize,
)
from . import FAILED, OK
from .options import UsageError, build_config, parse_options
from .progress import progress_display


def selected_extractors(requested: list[str] | None) -> tuple[list[str], list[str]]:
    """(names to run, registered names that cannot be loaded); unknown or unavailable requests are errors."""
    present, missing = available_extractors()
    if not requested:
        return present, missing
    names = list(dict.fromkeys(requested))
    for name in names:
        if name not in extractors.EXTRACTORS:
            raise UsageError(f"unknown extractor {name!r}; choose from: {', '.join(extractors.names())}")
        if name in missing:
            raise UsageError(f"extractor {name!r} is registered but not available in this installation")
    return names, [name for name in missing if name in names]


def check_corpus(folder: Path) -> None:
    """Read the whole corpus once before any run, so that a bad index line or a missing page stops the
    command at once with the line that is wrong (a ``UsageError``)."""
    try:
        with progress_display("checking the corpus") as progress:
            for number, _page in enumerate(iter_corpus(folder), 1):
                if progress is not None:
                    progress.show(f"{number} pages")
    except CorpusError as exc:
        raise UsageError(str(exc)) from None


def run_evaluate(args: argparse.Namespace) -> int:
    folder = Path(args.corpus)
    if not (folder / "index.jsonl").is_file():
        raise UsageError(f"{folder}: not a corpus folder (no index.jsonl; see docs/corpus-format.md)")
    if args.metadata:
        return run_metadata_evaluation(args, folder)
    names, missing = selected_extractors(args.extractor)
    options = parse_options(args.option, names)
    configs = {
        name: build_config(name, threshold=args.threshold, time_limit=args.time_limit, options=options)
        for name in names
    }
    check_corpus(folder)
    figures = {}
    for name in names:
        try:
            with progress_display(f"evaluate {name}") as progress:
                run = run_isolated(name, our_method(configs[name]), folder, progress)
        except CorpusError as exc:  # changed while the runs went on
            raise UsageError(str(exc)) from None
        figures[name] = summarize(run, time_limit=configs[name].time_budget)
    first = next(iter(configs.values()), None)
    if args.json:
        print(
            json.dumps(
                {
                    "corpus": str(folder),
                    "pages": count_pages(folder),
                    "threshold": first.threshold if first else args.threshold,
                    "time_limit": first.time_budget if first else args.time_limit,
                    "machine": machine_description(),
                    "extractors": figures,
                    "missing": missing,
                },
                indent=1,
            )
        )
    else:
        any_figures = next(iter(figures.values()), None)
        if any_figures:
            print(
                f"Corpus {folder}: {any_figures['pages']} pages ({any_figures['articles']} articles, "
                f"{any_figures['non_articles']} non-articles); threshold {first.threshold}; "
                f"{machine_description()['summary']}"
            )
            print()
            print(format_evaluation(figures))
        if missing:
            print(f"\nNot available in this installation: {', '.join(missing)}")
    return FAILED if any(f.get("failure") for f in figures.values()) else OK


def run_metadata_evaluation(args: argparse.Namespace, folder: Path) -> int:
    """``evaluate --metadata``: our metadata (through ``extract()``, the first ``--extractor`` or the
    default) and the peers', on the pages that carry metadata labels."""
    from ..evaluation.metadata import (
        MetadataMethod,
        format_metadata_evaluation,
        labelled,
        our_metadata_runner,
        peer_methods,
        run_metadata,
        summarize_metadata,
    )

    name = (args.extractor or [extractors.DEFAULT_EXTRACTOR])[0]
    if len(args.extractor or ()) > 1:
        raise UsageError("--metadata takes at most one --extractor")
    selected_extractors([name])
    config = build_config(
        name, threshold=args.threshold, time_limit=args.time_limit, options=parse_options(args.option, [name])
    )
    try:
        pages = labelled(iter_corpus(folder))
    except CorpusError as exc:
        print(f"scrapy-bodytext evaluate: {exc}", file=sys.stderr)
        return FAILED
    peers, missing = peer_methods()
    methods = [MetadataMethod(name, partial(our_metadata_runner, config)), *peers]
    figures = {}
    for method in methods:
        with progress_display(f"metadata {method.name}") as progress:
            figures[method.name] = summarize_metadata(run_metadata(method, pages, progress, len(pages)))
    articles = sum(1 for page in pages if page.is_article)
    if args.json:
        print(
            json.dumps(
                {
                    "corpus": str(folder),
                    "labelled_pages": len(pages),
                    "labelled_articles": articles,
                    "machine": machine_description(),
                    "methods": figures,
                    "missing": missing,
                },
                indent=1,
            )
        )
    else:
        print(
            f"Corpus {folder}: {len(pages)} pages with metadata labels ({articles} articles); "
            f"{machine_description()['summary']}"
        )
        print()
        print(format_metadata_evaluation(figures))
        if missing:
            print(f"\nNot available in this installation: {', '.join(missing)} (pip install 'scrapy-bodytext[peers]')")
    return OK
