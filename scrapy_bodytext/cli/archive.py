"""Extraction over a web archive: one JSON line per HTML response, a summary on stderr."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from ..api import extract_with_config
from ..config import ExtractConfig
from ..result import SKIP_REASONS, ExtractionResult, Reason
from ..warc import WarcUnavailable, iter_archive
from . import FAILED, OK
from .progress import progress_display

#: extraction outcomes counted as errors rather than as skipped pages
_ERROR_REASONS = frozenset((Reason.ERROR, Reason.TIME_LIMIT))


@dataclass
class ArchiveSummary:
    """Every record lands in exactly one of: articles, non_articles, skipped[reason], errors[reason]."""

    records: int = 0
    html: int = 0
    articles: int = 0
    non_articles: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)

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
        ]


def extract_archive(stream: BinaryIO, name: str, config: ExtractConfig, out: TextIO) -> int:
    """Stream the archive ``stream`` into JSON lines on ``out``; the summary goes to stderr."""
    summary = ArchiveSummary()
    size = _size(stream)
    try:
        with progress_display(name) as progress:
            for entry in iter_archive(stream, max_body_size=config.max_body_size):
                summary.records += 1
                if entry.kind == "html":
                    result = extract_with_config(entry.body, config, url=entry.url, content_type=entry.content_type)
                    summary.add_result(result)
                    row = {"url": entry.url, "warc_date": entry.date, "offset": entry.offset,
                           "status": entry.status, **result.as_dict()}
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                elif entry.kind == "skipped":
                    summary.skipped[entry.reason] += 1
                else:
                    summary.errors[entry.reason] += 1
                if progress is not None:
                    done = f", {100 * entry.offset / size:.0f}%" if size and entry.offset is not None else ""
                    progress.show(f"{summary.records} records, {summary.html} HTML{done}")
    except WarcUnavailable as exc:
        print(f"scrapy-bodytext extract: {name}: {exc}", file=sys.stderr)
        return FAILED
    out.flush()
    print(f"== {name}", *summary.lines(), sep="\n", file=sys.stderr)
    return OK


def _size(stream: BinaryIO) -> int | None:
    try:
        return os.fstat(stream.fileno()).st_size or None
    except (OSError, AttributeError, ValueError):
        return None
