"""Command line: ``scrapy-bodytext`` (or ``python -m scrapy_bodytext``).

``extract`` prints the main text of HTML files, stdin or web archives; ``evaluate`` scores the
extractors on a labelled corpus; ``extractors`` lists the methods and their options; ``sites`` prints
what a site memory shared through Redis learned. Nothing here imports Scrapy, so the command starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import __version__, _core, extractors
from ..config import CAPTION_CHOICES, DEFAULT_CAPTIONS, DEFAULT_OUTPUT_FORMAT, DEFAULT_THRESHOLD, OUTPUT_FORMATS
from .inputs import DEFAULT_GLOBS
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


def _similarity(text: str) -> float:
    value = _probability(text)
    if value == 0.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


EXTRACT_EXAMPLES = """examples:
  scrapy-bodytext extract page.html
  scrapy-bodytext extract --format markdown --links --url https://example.org/a.html a.html
  scrapy-bodytext extract --json -o texts.jsonl pages/          # a folder, searched recursively
  scrapy-bodytext extract --base-url https://example.org/ --site-memory on --json site/  # a saved copy of a site
  scrapy-bodytext extract --url-list urls.tsv --json pages/     # PATH<TAB>URL lines: each page's own URL
  find . -name '*.htm' | scrapy-bodytext extract --json -i -    # paths from stdin
  curl -s https://example.org/ | scrapy-bodytext extract --url https://example.org/ -
  scrapy-bodytext extract crawl.warc.gz -o texts.jsonl
  scrapy-bodytext extract --duplicates drop --json -o texts.jsonl day1.warc.gz day2.warc.gz
"""


SITES_EXAMPLES = """examples:
  scrapy-bodytext sites --redis-url redis://localhost:6379/0
  scrapy-bodytext sites --redis-url redis://localhost:6379/0 --site https://www.example.com/ --json
"""


def _positive_integer(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _encoding(text: str) -> str:
    """A character encoding label (WHATWG, as in ``<meta charset>``, or a Python codec name)."""
    from ..page.decoding import resolve_label

    name = resolve_label(text)
    try:
        "a".encode(name or "")
    except (LookupError, UnicodeError):  # unknown, or a codec that is not a text encoding (base64, rot13)
        raise argparse.ArgumentTypeError(
            f"unknown text encoding {text!r} (give a label such as utf-8, windows-1252, iso-8859-2, shift_jis, gb18030)"
        ) from None
    return text


def _add_config_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        type=_probability,
        metavar="T",
        help=f"article probability at or above which a page is an article (default {DEFAULT_THRESHOLD})",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="[EXTRACTOR.]KEY=VALUE",
        help="an extractor option (repeatable); see 'scrapy-bodytext extractors'",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scrapy-bodytext",
        description="Main body text and article probability of web pages.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__} (core: {_core.build()})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    extract = commands.add_parser(
        "extract",
        help="print the main text of HTML files, folders of them, stdin or WARC/ARC archives",
        description=(
            "Print the main text of each input; in plain-text mode a verdict line per page goes to\n"
            "stderr (article or not, P(article), reason). Web archives (.warc, .warc.gz, .arc, .arc.gz,\n"
            "or recognised by their first bytes) are streamed: every HTML response becomes one JSON\n"
            "line, and a summary goes to stderr."
        ),
        epilog=EXTRACT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    extract.add_argument(
        "inputs",
        nargs="*",
        metavar="PATH",
        help="HTML file (gzipped or not), web archive, folder (searched recursively for the "
        "names --glob matches), or - for stdin",
    )
    extract.add_argument(
        "-i", "--input-file", metavar="LIST", help="also read the paths listed in LIST, one per line (- for stdin)"
    )
    extract.add_argument(
        "--glob",
        action="append",
        metavar="PATTERN",
        help="file names taken from folders (repeatable, case-insensitive; a pattern with a / "
        f"matches the path below the folder; default {' '.join(DEFAULT_GLOBS)})",
    )
    extract.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per input (path, url, text, article_probability, is_article, extractor, reason, ...)",
    )
    extract.add_argument(
        "--extractor",
        default=extractors.DEFAULT_EXTRACTOR,
        metavar="NAME",
        help=f"method: {', '.join(extractors.names())} (default {extractors.DEFAULT_EXTRACTOR})",
    )
    _add_config_arguments(extract)
    extract.add_argument(
        "--format",
        dest="output_format",
        choices=OUTPUT_FORMATS,
        default=DEFAULT_OUTPUT_FORMAT,
        help="how the main text is written: plain text, Markdown or the cleaned HTML of the "
        f"main content (default {DEFAULT_OUTPUT_FORMAT})",
    )
    extract.add_argument(
        "--links",
        action="store_true",
        help="also write the links, in --format markdown or html (an error with plain text); URLs made "
        "absolute against the page's URL when known",
    )
    extract.add_argument(
        "--comments",
        action="store_true",
        help="also write the reader comments the method tells apart (the default method does): "
        "after a '--- comments ---' line, or as \"comments\" with --json",
    )
    extract.add_argument(
        "--captions",
        choices=CAPTION_CHOICES,
        default=DEFAULT_CAPTIONS,
        help='where the article\'s picture captions go: apart from the main text (as "captions" with '
        "--json) or inline, in the main text where they stand (as figure captions in markdown and html; "
        f"default {DEFAULT_CAPTIONS})",
    )
    extract.add_argument(
        "--url",
        help="URL of the page (every page given, unless --base-url or --url-list gives its own): evidence of "
        "what the page is (a section or tag URL), its site for --site-memory, and the base of its links",
    )
    extract.add_argument(
        "--base-url",
        metavar="URL",
        help="URL of the folder(s) given: each file's URL is URL joined with its path below its folder "
        "(site/tag/a.html under https://example.org/ is https://example.org/tag/a.html)",
    )
    extract.add_argument(
        "--url-list",
        metavar="FILE",
        help="each page's URL from FILE: one PATH<TAB>URL line per page, PATH as the file is reached "
        "(site/tag/a.html for a file of the folder site); it comes before --base-url",
    )
    extract.add_argument(
        "--encoding",
        type=_encoding,
        metavar="ENCODING",
        help="encoding of the input(s) when known, e.g. utf-8, windows-1252, shift_jis (otherwise detected)",
    )
    extract.add_argument(
        "-j",
        "--jobs",
        type=_positive_integer,
        metavar="N",
        help="worker processes extracting pages at once (default: the usable CPUs, one per "
        "50 files at most); 1 extracts in this process; the output keeps the input order",
    )
    extract.add_argument(
        "-q", "--quiet", action="store_true", help="in plain-text mode, no verdict line per page on stderr"
    )
    extract.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    extract.add_argument(
        "--duplicates",
        choices=("flag", "drop", "off"),
        default="off",
        help="an article repeating an earlier one of the run (docs/duplicates.md): flag it (duplicate_of and "
        "duplicate_similarity with --json and in archives' lines, on the verdict line otherwise), drop it "
        "(left out of the output, said on stderr), or look nothing up (default off)",
    )
    extract.add_argument(
        "--duplicate-similarity",
        type=_similarity,
        metavar="S",
        help="similarity (0-1] at which an article is a copy (default: the plugin's BODYTEXT_DUPLICATE_SIMILARITY)",
    )
    extract.add_argument(
        "--duplicate-redis-url",
        metavar="URL",
        help="keep the index in this Redis (shared with crawls and other runs) instead of in memory",
    )
    extract.add_argument(
        "--duplicate-redis-prefix",
        default="bodytext:duplicates",
        metavar="PREFIX",
        help="prefix of the index's Redis keys (default bodytext:duplicates)",
    )

    extract.add_argument(
        "--site-memory",
        choices=("on", "off"),
        default="off",
        help="weigh each page with the pages of its site seen before it in the run (docs/site-memory.md): a "
        "page's URL is its archive record's, --url-list's, --base-url's, --url, or its canonical URL; its "
        "furniture lines are taken out of plain text, and --json lines and archives' lines get site_evidence "
        "(default off: every page alone)",
    )

    evaluate = commands.add_parser(
        "evaluate",
        help="score extractors on a labelled corpus",
        description="Run each extractor over a labelled corpus (index.jsonl + pages, see docs/corpus-format.md) in a "
        "fresh process and report text quality on article pages (token F1, 4-gram shingle "
        "P/R/F1), article judgement (accuracy, articles dropped, non-articles kept, ROC AUC, "
        "Brier score), pages/s and peak memory, per extractor and per source.",
    )
    evaluate.add_argument("corpus", metavar="DIR", help="corpus folder holding index.jsonl")
    evaluate.add_argument(
        "--extractor",
        action="append",
        metavar="NAME",
        help="extractor to evaluate (repeatable; default: every registered one)",
    )
    evaluate.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    evaluate.add_argument(
        "--metadata",
        action="store_true",
        help="score page metadata instead (title, authors, dates, ...) on the pages with "
        "metadata labels, beside trafilatura and htmldate when installed",
    )
    _add_config_arguments(evaluate)
    evaluate.add_argument(
        "--time-limit",
        type=_seconds,
        metavar="S",
        help="time budget per page in seconds; pages over it are reported (default 5)",
    )

    commands.add_parser(
        "extractors",
        help="list the extractors and their options",
        description="List every registered extractor with its options and defaults.",
    )

    sites = commands.add_parser(
        "sites",
        help="print what a site memory shared through Redis learned of each site",
        description=(
            "Print what a site memory kept in Redis (BODYTEXT_SITE_MEMORY_REDIS_URL of a crawl) learned,\n"
            "one line per site: its confident articles and non-articles, the URL shapes of its articles\n"
            "and of its listings with their counts, its templates and its furniture lines\n"
            "(docs/site-memory.md#what-the-crawl-learned)."
        ),
        epilog=SITES_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sites.add_argument(
        "--redis-url", required=True, metavar="URL", help="the Redis holding the memory (redis://host:port/db)"
    )
    sites.add_argument(
        "--prefix",
        default="bodytext:sites",
        metavar="PREFIX",
        help="prefix of the memory's keys (default bodytext:sites, as BODYTEXT_SITE_MEMORY_REDIS_PREFIX)",
    )
    sites.add_argument(
        "--site",
        metavar="SITE",
        help="only this site: its key (example.com, a registrable domain) or any URL of it (default every site)",
    )
    sites.add_argument(
        "--shapes",
        type=_positive_integer,
        default=5,
        metavar="N",
        help="URL shapes and templates shown per kind, those with the most verdicts (default 5)",
    )
    sites.add_argument(
        "--json", action="store_true", help="one JSON object (the sites' summaries, every count) instead of lines"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "extract":
            if not args.inputs and args.input_file is None:
                raise UsageError("nothing to read: give a PATH (file, folder or - for stdin) or --input-file LIST")
            from .extract import run_extract

            return run_extract(args)
        if args.command == "evaluate":
            from .evaluate import run_evaluate

            return run_evaluate(args)
        if args.command == "sites":
            from .sites import run_sites

            return run_sites(args)
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
