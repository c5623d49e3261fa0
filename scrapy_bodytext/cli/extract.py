"""``scrapy-bodytext extract``: main text of HTML files (gzipped or not), folders of them and stdin, in
worker processes when there are several; web archives go to ``archive``, one after the other."""

from __future__ import annotations

import argparse
import io
import json
import logging
import multiprocessing
import os
import signal
import sys
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, BinaryIO, TextIO

from ..api import extract_with_config, with_site_memory
from ..archives.entries import GZIP_MAGIC, looks_like_archive
from ..config import ExtractConfig
from ..plugin.decision import SITE, Decision
from ..result import ExtractionResult, Reason, empty_result
from . import FAILED, OK
from .archive import site_evidence
from .inputs import DEFAULT_GLOBS, STDIN, Source, check_url, gather, read_urls
from .options import UsageError, build_config, parse_options
from .parallel import in_order, worker_count
from .progress import Progress, progress_display

if TYPE_CHECKING:
    from ..duplicates import Deduplicator
    from ..sites import SiteMemory

#: seconds a worker process may spend on one input before it is replaced (the extraction itself stops
#: at the configured time budget; this catches what hangs outside it)
WORKER_TIMEOUT = 60.0
#: said once when a page is judged without its URL: what that costs, as measured on the labelled pages
#: of whole sites (``python scripts/url_cost.py``; docs/command-line.md#pages-and-their-urls)
WITHOUT_URLS = (
    "scrapy-bodytext extract: warning: pages judged without their URL (give --base-url, --url-list or "
    "--url): a page's URL is evidence of what it is, and without it section, tag and other list pages "
    "pass for articles more often ({cost}){memory}"
)
#: the measured cost, quoted by the warning: out of fold, the training harness's run of
#: benchmarks/results/2026-11-28-judge-trees.md (the shipped judge)
URL_COST = (
    "of the 885 labelled non-articles of 11 whole sites, each site left out, the default method drops 452 "
    "(51.1 %) judged with their URLs, 60 (6.8 %) without"
)


@dataclass(frozen=True)
class FileOutcome:
    """What became of one input file: a result, a reason it could not be read, or a web archive
    (streamed by the main process)."""

    result: ExtractionResult | None = None
    problem: str | None = None
    archive: bool = False


@dataclass(frozen=True)
class PageJob:
    """Everything a worker needs to extract one input; picklable."""

    config: ExtractConfig
    url: str | None  # --url: every page's, unless its own is known
    encoding: str | None

    def __call__(self, name: str, url: str | None = None) -> FileOutcome:
        _leave_interrupts_to_the_command()
        try:
            with open_input(name) as stream:
                return self.extract_stream(stream, name, url)
        except OSError as exc:
            return FileOutcome(problem=exc.strerror or str(exc))

    def extract_stream(self, stream: BinaryIO, name: str, url: str | None = None) -> FileOutcome:
        if looks_like_archive(name, stream.peek(512)[:512]):
            return FileOutcome(archive=True)
        try:
            body = read_page(stream, self.config.max_body_size)
        except zlib.error as exc:
            return FileOutcome(problem=f"damaged gzip data ({exc})")
        result = extract_with_config(body, self.config, url=url or self.url, encoding=self.encoding)
        return FileOutcome(result=replace(result, debug={}))  # debug values need not survive pickling


def _leave_interrupts_to_the_command() -> None:
    """In a worker process, ignore Ctrl-C: the command receives it too and stops the pool, so a worker
    hit by it in the middle of a page would only add a traceback."""
    if multiprocessing.parent_process() is not None and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def open_input(name: str) -> Iterator[BinaryIO]:
    """The input's bytes, peekable; standard input for ``-`` (left open)."""
    if name == STDIN:
        with nullcontext(_peekable(sys.stdin.buffer)) as stream:
            yield stream
    else:
        with open(name, "rb") as stream:
            yield stream


def read_page(stream: BinaryIO, limit: int) -> bytes:
    """The page bytes, gunzipped when compressed; at most ``limit + 1`` bytes are kept, enough for
    ``extract`` to report a page over the size limit without holding all of it."""
    data = stream.read(limit + 1)
    if data[:2] == GZIP_MAGIC:
        data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, limit + 1)
    return data


def _peekable(stream: BinaryIO) -> BinaryIO:
    return stream if hasattr(stream, "peek") else io.BufferedReader(stream)


class ExtractRun:
    """One ``extract`` command: writes each input's outcome in input order, counts failures."""

    def __init__(
        self,
        args: argparse.Namespace,
        config: ExtractConfig,
        out: TextIO,
        sources: list[Source],
        duplicates: Deduplicator | None = None,
        memory: SiteMemory | None = None,
    ):
        self.args = args
        self.duplicates = duplicates
        self.memory = memory
        self.config = config
        self.out = out
        self.job = PageJob(config, args.url, args.encoding)
        self.sources = sources
        self.several = len(sources) > 1 or args.input_file is not None or any(map(os.path.isdir, args.inputs))
        self.status = OK
        self.progress: Progress | None = None
        self.warned = False  # the warning on pages judged without their URL was given

    def run(self) -> int:
        files = sum(1 for source in self.sources if source.problem is None and source.name != STDIN)
        workers = worker_count(self.args.jobs, files)
        shows_progress = len(self.sources) > 1 and (self.args.output or not sys.stdout.isatty())
        with ExitStack() as stack:
            self.progress = stack.enter_context(progress_display("extract", enabled=shows_progress))
            start = self._starter(stack, workers)
            for done, (source, future) in enumerate(in_order(self.sources, start, workers), 1):
                self.handle(source, future)
                if self.progress is not None:
                    self.progress(done, len(self.sources))
        return self.status

    def _starter(self, stack: ExitStack, workers: int) -> Callable[[Source], Future | None]:
        """What begins an input's work ahead of its turn: nothing in this process, a worker's job otherwise."""
        if workers <= 1:
            return lambda source: None
        from ..workers.executors import ProcessExecutor

        pool = ProcessExecutor(workers, timeout=max(WORKER_TIMEOUT, 4 * self.config.time_budget))
        stack.callback(pool.shutdown)
        stack.enter_context(_pool_messages_on_stderr())

        def start(source: Source) -> Future | None:
            if source.problem is not None or source.name == STDIN:
                return None
            return pool.submit(self.job, source.name, source.url)

        return start

    def handle(self, source: Source, future: Future | None) -> None:
        if source.problem is not None:
            self.fail(source.name, source.problem)
            return
        outcome = self.job(source.name, source.url) if future is None else self._collect(future)
        if outcome.archive:
            self.extract_archive(source.name)
        elif outcome.problem is not None:
            self.fail(source.name, outcome.problem)
        else:
            self.write_page(source.name, outcome.result, source.url or self.args.url)

    def _collect(self, future: Future) -> FileOutcome:
        """A worker's outcome; a worker that died or hung gives an empty result saying so."""
        from ..workers.executors import WorkerLost

        try:
            return future.result()
        except WorkerLost as exc:
            detail = f"extraction worker {exc}"
            return FileOutcome(
                result=empty_result(
                    self.config.extractor, Reason(exc.reason), detail, output_format=self.config.output_format
                )
            )
        except Exception as exc:  # noqa: BLE001 - reported for this input, the run goes on
            return FileOutcome(problem=f"{type(exc).__name__}: {exc}")

    def extract_archive(self, name: str) -> None:
        from .archive import extract_archive

        self.clear_progress()
        try:
            with open_input(name) as stream:
                self.status = max(
                    self.status,
                    extract_archive(
                        stream, name, self.config, self.out, duplicates=self.duplicates, memory=self.memory
                    ),
                )
        except OSError as exc:
            self.fail(name, exc.strerror or str(exc))

    def write_page(self, name: str, result: ExtractionResult, url: str | None = None) -> None:
        """Writes a page's outcome; ``url``: the one it was saved from (None: unknown, then its
        canonical URL keys it in the site memory)."""
        if url is None and result.reason is Reason.OK:
            self.warn_without_url()
        if self.memory is not None and (url or result.canonical_url):
            result = with_site_memory(result, self.memory, url or result.canonical_url, self.config.threshold)
        match = self.duplicates.check(url or name, result) if self.duplicates is not None else None
        if match is not None and self.duplicates.dropping:
            if not self.args.quiet:
                self.note(f"== {name}: dropped, {duplicate_note(match)}")
            return
        if self.args.json:
            row = {"path": name, "url": url, **result.as_dict(), **site_evidence(result)}
            if match is not None:
                row.update(match.fields())
            self.out.write(json.dumps(row, ensure_ascii=False) + "\n")
            return
        if not self.args.quiet:
            flagged = f", {duplicate_note(match)}" if match is not None else ""
            self.note(f"== {name}: {verdict(result, self.config.threshold)}{flagged}")
        if self.several:
            self.out.write(f"==> {name} <==\n")
        if result.text:
            self.out.write(result.text + "\n")
        if result.comments:
            self.out.write(f"{COMMENTS_MARK}\n{result.comments}\n")

    def warn_without_url(self) -> None:
        """Says once in a run that pages are judged without their URL, and what it costs."""
        if self.warned:
            return
        self.warned = True
        memory = (
            "; --site-memory weighs such a page only by its canonical URL, if it states one"
            if self.memory is not None
            else ""
        )
        self.note(WITHOUT_URLS.format(cost=URL_COST, memory=memory))

    def fail(self, name: str, problem: str) -> None:
        self.status = FAILED
        self.note(f"scrapy-bodytext extract: {name}: {problem}")

    def note(self, line: str) -> None:
        """A line on stderr, in its place among the outputs (stdout is flushed first), never mixed into
        the progress line."""
        self.clear_progress()
        if self.out is sys.stdout:
            self.out.flush()
        print(line, file=sys.stderr, flush=True)

    def clear_progress(self) -> None:
        if self.progress is not None:
            self.progress.clear()


#: the loggers of the process pool and the executors around it
POOL_LOGGERS = ("scrapy_bodytext.workers.executors", "scrapy_bodytext.workers.pool")


@contextmanager
def _pool_messages_on_stderr() -> Iterator[None]:
    """The pool's own messages (a worker lost and replaced) as one plain line each on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("scrapy-bodytext extract: %(message)s"))
    loggers = [logging.getLogger(name) for name in POOL_LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def verdict(result: ExtractionResult, threshold: float) -> str:
    """The judgement on a page in a few words: article or not (or no text), P(article) against the
    threshold, reason, and ``with its site`` when the site memory's evidence decided."""
    decision = Decision.of(result, threshold)
    judged = "article" if result.is_article else "not an article" if result.text else "no main text"
    reason = result.reason.value
    if result.reason is not Reason.OK and result.detail:
        reason += f": {result.detail}"
    judge = ", with its site" if decision.decided_by == SITE else ""
    return f"{judged} (P(article) {decision.comparison}, {reason}{judge})"


def duplicate_note(match) -> str:
    """How a copy is named on stderr: the first copy and the similarity."""
    return f"duplicate of {match.url} (similarity {match.similarity:.2f})"


#: the line between a page's main text and its reader comments in plain output (--comments)
COMMENTS_MARK = "--- comments ---"


def run_extract(args: argparse.Namespace) -> int:
    if args.links and args.output_format == "text":
        raise UsageError("--links writes the links in Markdown or HTML: add --format markdown or --format html")
    base_url = check_url(args.base_url, "--base-url") if args.base_url else None
    urls = read_urls(args.url_list) if args.url_list else None
    config = build_config(
        args.extractor,
        threshold=args.threshold,
        time_limit=None,
        options=parse_options(args.option, [args.extractor]),
        output_format=args.output_format,
        links=args.links,
        comments=args.comments,
        captions=args.captions,
    )
    sources = gather(args.inputs, args.input_file, args.glob or DEFAULT_GLOBS, base_url=base_url, urls=urls)
    with ExitStack() as stack:
        duplicates = None
        if args.duplicates != "off":
            try:
                duplicates = open_duplicates(args)
            except Exception as exc:  # noqa: BLE001 - an unreachable Redis, keys of another configuration
                print(f"scrapy-bodytext extract: duplicate index: {exc}", file=sys.stderr)
                return FAILED
            stack.callback(duplicates.close)
            if config.output_format != "text":
                config = config.replace(plain_text=True)  # copies are found on the plain text
        out: TextIO = sys.stdout
        if args.output:
            try:
                out = stack.enter_context(open(args.output, "w", encoding="utf-8"))
            except OSError as exc:
                print(f"scrapy-bodytext extract: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
                return FAILED
        memory = None
        if args.site_memory == "on":
            from ..sites import SiteMemory

            memory = SiteMemory()
        return ExtractRun(args, config, out, sources, duplicates, memory).run()


def open_duplicates(args: argparse.Namespace) -> Deduplicator:
    """The run's duplicate check (datasketch is loaded only when it is asked for)."""
    from ..duplicates import DEFAULT_SIMILARITY, Deduplicator

    deduplicator = Deduplicator(
        args.duplicates,
        args.duplicate_similarity or DEFAULT_SIMILARITY,
        redis_url=args.duplicate_redis_url,
        prefix=args.duplicate_redis_prefix,
    )
    reach = getattr(deduplicator.index, "reach", None)
    if reach is not None:
        reach()  # a Redis that does not answer at the start stops the run with one line
    return deduplicator
