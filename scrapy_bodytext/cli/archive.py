"""Extraction over a web archive: one JSON line per HTML response, one stderr line per damaged
record, a summary on stderr."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, TextIO

from ..api import extract_with_config, with_site_memory
from ..archives.entries import ArchiveEntry, WarcUnavailable, iter_archive
from ..config import ExtractConfig
from ..result import SKIP_REASONS, ExtractionResult, Reason
from . import FAILED, OK
from .progress import Progress, progress_display

if TYPE_CHECKING:
    from ..duplicates import Deduplicator, Match
    from ..sites import SiteMemory

#: extraction outcomes counted as errors rather than as skipped pages
_ERROR_REASONS = frozenset((Reason.ERROR, Reason.TIME_LIMIT))

logging.getLogger("warcio").addHandler(logging.NullHandler())  # its notes (URLs with spaces) are not ours to print

#: what ``extract_archive`` hands a page to: (body, url, content_type) in, results out in the same order
ExtractMany = Callable[[Iterable[tuple[bytes, str | None, str | None]]], Iterable[ExtractionResult]]


@dataclass
class ArchiveSummary:
    """Every record lands in exactly one of: articles, non_articles, skipped[reason], errors[reason]
    (extraction failed) and damaged[kind] (the archive's bytes could not be read as a record)."""

    records: int = 0
    html: int = 0
    articles: int = 0
    non_articles: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    damaged: Counter = field(default_factory=Counter)
    duplicates: int = 0  # articles repeating an earlier one (flagged, or left out with --duplicates drop)

    def add_result(self, result: ExtractionResult) -> None:
        self.html += 1
        if result.reason in _ERROR_REASONS:
            self.errors[result.reason.value] += 1
        elif result.reason in SKIP_REASONS:
            self.skipped[result.reason.value] += 1
        elif result.is_article:
            self.articles += 1
        else:
            self.non_articles += 1

    def lines(self) -> list[str]:
        def detail(counts: Counter) -> str:
            return f" ({', '.join(f'{k} {n}' for k, n in counts.most_common())})" if counts else ""

        return [
            f"records: {self.records}",
            f"html: {self.html}",
            f"articles: {self.articles}",
            f"non-articles: {self.non_articles}",
            f"skipped: {sum(self.skipped.values())}{detail(self.skipped)}",
            f"errors: {sum(self.errors.values())}{detail(self.errors)}",
            f"damaged: {sum(self.damaged.values())}{detail(self.damaged)}",
            *([f"duplicates: {self.duplicates}"] if self.duplicates else []),
        ]


def extract_archive(
    stream: BinaryIO,
    name: str,
    config: ExtractConfig,
    out: TextIO,
    extract_many: ExtractMany | None = None,
    duplicates: Deduplicator | None = None,
    memory: SiteMemory | None = None,
) -> int:
    """Stream the archive ``stream`` into JSON lines on ``out``; damage and the summary go to stderr.
    ``duplicates``: the run's duplicate check (a copy's line gets ``duplicate_of``, or is left out);
    ``memory``: the run's site memory (each record weighed with its site's earlier records, in order).

    ``extract_many`` runs the extractor over the HTML pages, in order (default: one after the other
    in this process; a process pool's ordered map fits). Returns ``OK``, or ``FAILED`` when a part of
    the archive was damaged (every readable record has still been extracted) or warcio is missing.
    """
    summary = ArchiveSummary()
    size = _size(stream)
    try:
        with progress_display(name) as progress:
            for entry, result in _with_results(
                iter_archive(stream, max_body_size=config.max_body_size), extract_many or _one_by_one(config)
            ):
                summary.records += 1
                if result is not None:
                    if memory is not None and entry.url:
                        result = with_site_memory(result, memory, entry.url, config.threshold)
                    summary.add_result(result)
                    match = duplicates.check(entry.url or f"{name}#{entry.offset}", result) if duplicates else None
                    summary.duplicates += match is not None
                    if match is None or not duplicates.dropping:
                        _write_row(out, entry, result, match)
                elif entry.kind == "skipped":
                    summary.skipped[entry.reason] += 1
                else:
                    summary.damaged[entry.reason] += 1
                    _report_damage(name, entry, progress)
                if progress is not None:
                    done = f", {100 * entry.offset / size:.0f}%" if size and entry.offset is not None else ""
                    progress.show(f"{summary.records} records, {summary.html} HTML{done}")
    except WarcUnavailable as exc:
        print(f"scrapy-bodytext extract: {name}: {exc}", file=sys.stderr)
        return FAILED
    except OSError as exc:  # the file or pipe failed under us: what was read is written, then say so
        out.flush()
        print(f"scrapy-bodytext extract: {name}: read error after {summary.records} records: {exc}", file=sys.stderr)
        return FAILED
    out.flush()
    print(f"== {name}", *summary.lines(), sep="\n", file=sys.stderr)
    return FAILED if summary.damaged else OK


def _write_row(out: TextIO, entry: ArchiveEntry, result: ExtractionResult, match: Match | None) -> None:
    """One JSON line: where the record is, the result, and a copy's ``duplicate_of``."""
    row = {
        "url": entry.url,
        "warc_date": entry.date,
        "offset": entry.offset,
        "status": entry.status,
        **result.as_dict(),
        **site_evidence(result),
        **(match.fields() if match is not None else {}),
    }
    out.write(json.dumps(row, ensure_ascii=False) + "\n")


def site_evidence(result: ExtractionResult) -> dict:
    """The ``site_evidence`` field of an output line, when site memory weighed the page."""
    found = result.debug.get("site_evidence")
    return {"site_evidence": found} if found is not None else {}


def _one_by_one(config: ExtractConfig) -> ExtractMany:
    def extract_many(pages: Iterable[tuple[bytes, str | None, str | None]]) -> Iterator[ExtractionResult]:
        for body, url, content_type in pages:
            yield extract_with_config(body, config, url=url, content_type=content_type)

    return extract_many


def _with_results(
    entries: Iterator[ArchiveEntry],
    extract_many: ExtractMany,
) -> Iterator[tuple[ArchiveEntry, ExtractionResult | None]]:
    """Every entry in archive order, HTML ones with their extraction result (others with None)."""
    pending: deque[ArchiveEntry] = deque()

    def pages() -> Iterator[tuple[bytes, str | None, str | None]]:
        for entry in entries:
            pending.append(entry)
            if entry.kind == "html":
                yield entry.body, entry.url, entry.content_type

    for result in extract_many(pages()):
        while (entry := pending.popleft()).kind != "html":
            yield entry, None
        yield entry, result
    yield from ((entry, None) for entry in pending)


def _report_damage(name: str, entry: ArchiveEntry, progress: Progress | None) -> None:
    """One line per damaged stretch: where, what, and where reading resumed."""
    if progress is not None:
        progress.clear()
    resumed = (
        f"reading resumed at offset {entry.resumed_at}"
        if entry.resumed_at is not None
        else "no readable record after it"
    )
    detail = f": {entry.detail}" if entry.detail else ""
    print(
        f"scrapy-bodytext extract: {name}: damaged record at offset {entry.offset} ({entry.reason}{detail}); {resumed}",
        file=sys.stderr,
    )


def _size(stream: BinaryIO) -> int | None:
    try:
        return os.fstat(stream.fileno()).st_size or None
    except (OSError, AttributeError, ValueError):
        return None
