"""Command line: ``scrapy-bodytext`` (or ``python -m scrapy_bodytext``).

``extract`` prints the main text of HTML files, stdin or web archives; ``evaluate`` scores the
extractors on a labelled corpus; ``extractors`` lists the methods and their options. Nothing here
imports Scrapy, so the command starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import extractors
from ..config import DEFAULT_THRESHOLD
from .options import UsageError

#: exit statuses
OK, FAILED, USAGE = 0, 1, 2


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--threshold", type=_probability, metavar="T",
                        help=f"article probability at or above which a page is an article (default {DEFAULT_THRESHOLD})")
    parser.add_argument("--option", action="append", default=[], metavar="[EXTRACTOR.]KEY=VALUE",
                        help="an extractor option (repeatable); see 'scrapy-bodytext extractors'")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scrapy-bodytext",
        description="Main body text and article probability of web pages.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    extract = commands.add_parser(
        "extract", help="print the main text of HTML files, stdin or WARC/ARC archives",
        description="Print the main text of each input. Web archives (.warc, .warc.gz, .arc, .arc.gz, or "
                    "recognised by their first bytes) are streamed: every HTML response becomes one JSON "
                    "line, and a summary goes to stderr.",
    )
    extract.add_argument("inputs", nargs="+", metavar="FILE", help="HTML file, web archive, or - for stdin")
    extract.add_argument("--json", action="store_true",
                         help="one JSON object per input (path, url, text, article_probability, is_article, "
                              "extractor, reason, ...)")
    extract.add_argument("--extractor", default=extractors.DEFAULT_EXTRACTOR, metavar="NAME",
                         help=f"method: {', '.join(extractors.names())} (default {extractors.DEFAULT_EXTRACTOR})")
    _add_config_arguments(extract)
    extract.add_argument("--url", help="URL of the page(s), for methods that use it")
    extract.add_argument("--encoding", help="encoding of the input(s) when known (otherwise detected)")
    extract.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")

    evaluate = commands.add_parser(
        "evaluate", help="score extractors on a labelled corpus",
        description="Run each extractor over a labelled corpus (index.jsonl + pages, see the README) in a "
                    "fresh process and report text quality on article pages (token F1, 4-gram shingle "
                    "P/R/F1), article judgement (accuracy, articles dropped, non-articles kept, ROC AUC, "
                    "Brier score), pages/s and peak memory, per extractor and per source.",
    )
    evaluate.add_argument("corpus", metavar="DIR", help="corpus folder holding index.jsonl")
    evaluate.add_argument("--extractor", action="append", metavar="NAME",
                          help="extractor to evaluate (repeatable; default: every registered one)")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    evaluate.add_argument("--metadata", action="store_true",
                          help="score page metadata instead (title, authors, dates, ...) on the pages with "
                               "metadata labels, beside trafilatura and htmldate when installed")
    _add_config_arguments(evaluate)
    evaluate.add_argument("--time-limit", type=_seconds, metavar="S",
                          help="time budget per page in seconds; pages over it are reported (default 5)")

    commands.add_parser("extractors", help="list the extractors and their options",
                        description="List every registered extractor with its options and defaults.")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "extract":
            from .extract import run_extract

            return run_extract(args)
        if args.command == "evaluate":
            from .evaluate import run_evaluate

            return run_evaluate(args)
        return list_extractors()
    except UsageError as exc:
        parser.exit(USAGE, f"scrapy-bodytext {args.command}: error: {exc}\n")
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return FAILED
    except KeyboardInterrupt:
        return 130


def list_extractors() -> int:
    import dataclasses

    for name in extractors.names():
        marker = " (default)" if name == extractors.DEFAULT_EXTRACTOR else ""
        try:
            options = dataclasses.fields(extractors.load(name).Options)
        except Exception as exc:  # noqa: BLE001 - a broken module is listed, not fatal
            print(f"{name}{marker}: not available ({type(exc).__name__}: {exc})")
            continue
        print(f"{name}{marker}")
        for f in options:
            default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
            print(f"    {f.name} = {default!r}")
    return OK
