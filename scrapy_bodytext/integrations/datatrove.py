"""datatrove pipeline steps (extra ``datatrove``): ``BodyTextExtractor`` turns the HTML documents of
any reader into main text with the article probability and the page's metadata, dropping the pages
that are not articles; ``ArchiveReader`` reads WARC/ARC files with the package's own archive reader,
which goes on after a damaged record where ``warcio`` stops.

Each document is extracted once by the same ``extract()`` the plugin and the command line use, in a
child process as datatrove's own extractors do, so that one page can neither stop the task nor keep
it past its time budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing
from dataclasses import replace
from functools import partial
from typing import Any

from . import missing_extra

try:
    from datatrove.data import Document, DocumentsPipeline
    from datatrove.io import DataFolderLike
    from datatrove.pipeline.base import PipelineStep
    from datatrove.pipeline.extractors.base import ExtractorSandbox
    from datatrove.pipeline.readers.base import BaseDiskReader
    from datatrove.utils.typeshelper import StatHints
except ImportError as exc:
    raise missing_extra("scrapy_bodytext.integrations.datatrove", "datatrove", exc) from exc

from ..api import extract_with_config, with_site_memory
from ..archives import iter_archive
from ..config import (
    CAPTION_CHOICES,
    DEFAULT_CAPTIONS,
    DEFAULT_MAX_BODY_SIZE,
    DEFAULT_THRESHOLD,
    DEFAULT_TIME_BUDGET,
    OUTPUT_FORMATS,
    ExtractConfig,
)
from ..duplicates import DEFAULT_SIMILARITY, MODES, Deduplicator
from ..metadata import METADATA_VALUES
from ..page.decoding import decode
from ..plugin.settings import fields_of
from ..result import ExtractionResult, Reason
from ..sites import SiteMemory

__all__ = ["ArchiveReader", "BodyTextExtractor"]

#: metadata keys every kept document gets, whatever ``fields`` says
ALWAYS = ("article_probability", "extractor")
#: the drop reason of a page judged not to be an article
NOT_AN_ARTICLE = "not_an_article"
#: the drop reason (and, flagged, the stat) of an article repeating an earlier one
DUPLICATE = "duplicate"
#: extra seconds a child process gets past ``timeout`` before it is killed (the extraction itself
#: stops at ``timeout``; this catches what hangs outside it)
KILL_GRACE = 1.0
#: the page a child process extracts first, so that its first real page does not pay for lazy imports
WARM_UP = "<html><body><article><p>A first page, so that the method's imports are loaded.</p></article></body></html>"


class BodyTextExtractor(PipelineStep):
    """Main text, article probability and metadata of each HTML document; non-articles and pages that
    cannot be extracted are dropped and counted by reason (``dropped_<reason>``).

    ``extractor``: the method (None: the default); ``threshold``: the article probability below which a
    page is not an article; ``drop_non_articles``: False keeps them, with their probability;
    ``fields``: the result values written to the document's metadata, as ``BODYTEXT_FIELDS`` takes
    them (a preset, value names, or a mapping to rename keys); ``output_format``: "text", "markdown"
    or "html"; ``timeout``: seconds of extraction per document. ``duplicates``: "flag" gives an article
    repeating an earlier one ``duplicate_of`` and ``duplicate_similarity`` metadata, "drop" drops it
    (``dropped_duplicate``), "off" (default) looks nothing up; each task keeps its own index, unless
    ``duplicate_redis_url`` names a Redis that every task shares (docs/duplicates.md). ``site_memory``:
    weigh each page with the pages of its site the task saw before (docs/site-memory.md; the
    document's ``site_evidence`` metadata says why), in this task's memory, or in the Redis at
    ``site_memory_redis_url`` that every task shares. ``captions``: "apart" (default) leaves the
    article's picture captions out of the main text (the ``captions`` value holds them), "inline"
    writes them into it where they stand.
    """

    name = "📰 BodyText"
    type = "🛢 - EXTRAC"

    def __init__(
        self,
        extractor: str | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        drop_non_articles: bool = True,
        fields: str | list[str] | Mapping[str, str | None] = "default",
        output_format: str = "text",
        timeout: float = DEFAULT_TIME_BUDGET,
        duplicates: str = "off",
        duplicate_similarity: float = DEFAULT_SIMILARITY,
        duplicate_redis_url: str | None = None,
        duplicate_redis_prefix: str = "bodytext:duplicates",
        site_memory: bool = False,
        site_memory_redis_url: str | None = None,
        site_memory_redis_prefix: str = "bodytext:sites",
        captions: str = DEFAULT_CAPTIONS,
    ):
        super().__init__()
        self.config = build_config(extractor, threshold, fields, output_format, timeout, captions)
        if duplicates not in MODES:
            raise ValueError(f"duplicates must be one of {', '.join(MODES)}, got {duplicates!r}")
        if duplicates != "off" and output_format != "text":
            self.config = self.config.replace(plain_text=True)  # copies are found on the plain text
        self.duplicates = {
            "mode": duplicates,
            "similarity": duplicate_similarity,
            "redis_url": duplicate_redis_url,
            "prefix": duplicate_redis_prefix,
        }
        similar = duplicate_similarity
        if isinstance(similar, bool) or not isinstance(similar, (int, float)) or not 0.0 < similar <= 1.0:
            raise ValueError(f"duplicate_similarity must be a number within (0, 1], got {similar!r}")
        if not isinstance(drop_non_articles, bool):
            raise ValueError(f"drop_non_articles must be True or False, got {drop_non_articles!r}")
        self.drop_non_articles = drop_non_articles
        if not isinstance(site_memory, bool):
            raise ValueError(f"site_memory must be True or False, got {site_memory!r}")
        self.site_memory = {"on": site_memory, "redis_url": site_memory_redis_url, "prefix": site_memory_redis_prefix}
        self.memory: SiteMemory | None = None  # opened by run(), in the task
        self.keys = metadata_keys(fields)
        self.timeout = float(timeout)

    def run(self, data: DocumentsPipeline, rank: int = 0, world_size: int = 1) -> DocumentsPipeline:
        """Yield the documents kept, their text replaced by the main text."""
        if data is None:
            return
        extract_one = partial(extract_in_child, config=self.config)
        settings = self.duplicates
        duplicates = Deduplicator(
            settings["mode"], settings["similarity"], redis_url=settings["redis_url"], prefix=settings["prefix"]
        )
        self.memory = open_site_memory(**self.site_memory)
        with (
            ExtractorSandbox(timeout=self.timeout + KILL_GRACE, warmup_text=(WARM_UP, None)) as sandbox,
            closing(duplicates),
        ):
            for doc in data:
                self.stat_update(StatHints.total)
                with self.track_time():
                    outcome = self._extract(sandbox, extract_one, doc)
                match = None
                if not isinstance(outcome, str):
                    url = doc.metadata.get("url")
                    match = duplicates.check(url if isinstance(url, str) else str(doc.id), outcome)
                    if match is not None and duplicates.dropping:
                        outcome = DUPLICATE
                if isinstance(outcome, str):
                    self.stat_update(StatHints.dropped, f"dropped_{outcome}")
                    continue
                if match is not None:
                    self.stat_update(DUPLICATE)
                    doc.metadata.update(match.fields())
                self._fill(doc, outcome)
                self.stat_update(StatHints.forwarded)
                self.update_doc_stats(doc)
                yield doc

    def _extract(self, sandbox: ExtractorSandbox, extract_one: Callable, doc: Document) -> ExtractionResult | str:
        """The page's result when it is kept, else the reason it is dropped."""
        url = doc.metadata.get("url")
        try:
            result = sandbox.process_document((doc.text, url if isinstance(url, str) else None), extract_one)
        except TimeoutError:
            return Reason.TIME_LIMIT.value
        except EOFError:  # the child process died (the OOM killer, a crash): it is replaced
            return "worker_lost"
        except Exception:  # noqa: BLE001 - a page never stops the task
            return Reason.ERROR.value
        if result.reason not in (Reason.OK, Reason.NO_MAIN_TEXT):
            return result.reason.value
        if self.memory is not None and isinstance(url, str):
            result = with_site_memory(result, self.memory, url, self.config.threshold)
        if self.drop_non_articles and not result.is_article:
            return NOT_AN_ARTICLE
        self.stat_update("articles" if result.is_article else "non_articles")
        return result

    def _fill(self, doc: Document, result: ExtractionResult) -> None:
        doc.text = result.text
        if "site_evidence" in result.debug:
            doc.metadata["site_evidence"] = result.debug["site_evidence"]
        for name, key in self.keys:
            value = result.value(name)
            doc.metadata[key] = list(value) if isinstance(value, tuple) else value


def open_site_memory(on: bool, redis_url: str | None, prefix: str) -> SiteMemory | None:
    """The task's site memory (None when off): in this task, or in a Redis every task shares."""
    if not on:
        return None
    if redis_url:
        from ..sites.redis_memory import RedisSiteMemory

        return RedisSiteMemory(redis_url, prefix=prefix)
    return SiteMemory()


def extract_in_child(body: str | bytes, url: str | None, config: ExtractConfig) -> ExtractionResult:
    """One extraction in the sandbox's child process (which is forked: ``config`` is not sent per page)."""
    return replace(extract_with_config(body, config, url=url), debug={})  # debug values need not be pickled


def build_config(
    extractor: Any, threshold: Any, fields: Any, output_format: Any, timeout: Any, captions: Any = DEFAULT_CAPTIONS
) -> ExtractConfig:
    """The extraction configuration of the step; every argument is checked, with a clear ``ValueError``."""
    if extractor is not None and not isinstance(extractor, str):
        raise ValueError(f"extractor must be the name of a method or None, got {extractor!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must be a number within [0, 1], got {threshold!r}")
    if output_format not in OUTPUT_FORMATS:
        raise ValueError(f"output_format must be one of {', '.join(OUTPUT_FORMATS)}, got {output_format!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0 or math.isinf(timeout):
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if captions not in CAPTION_CHOICES:
        raise ValueError(f"captions must be one of {', '.join(CAPTION_CHOICES)}, got {captions!r}")
    names = {name for name, _ in metadata_keys(fields)}
    options = {"extractor": extractor} if extractor is not None else {}
    return ExtractConfig(
        **options,
        threshold=float(threshold),
        output_format=output_format,
        time_budget=float(timeout),
        metadata=bool(names & METADATA_VALUES),
        comments="comments" in names,
        captions=captions,
    )


def metadata_keys(fields: Any) -> tuple[tuple[str, str], ...]:
    """(result value, metadata key) pairs a ``fields`` value asks for, ``article_probability`` and
    ``extractor`` always; ``main_text`` is the document's text, never a key."""
    try:
        chosen = fields_of(fields)
    except ValueError as exc:
        raise ValueError(f"fields: {exc}") from None
    pairs = {name: name for name in ALWAYS}
    pairs.update((name, key) for name, key in chosen.items() if name != "main_text")
    return tuple(pairs.items())


class ArchiveReader(BaseDiskReader):
    """WARC and ARC files (gzipped record by record, as a whole, or not) read by the package's own
    reader: every HTML response becomes a document (its text the page decoded as a browser would,
    metadata ``url``, ``date``, ``status``, ``content_type``, ``encoding``, ``offset``); a damaged
    record costs only itself (counted as ``damaged_<kind>``) and reading goes on after it; other
    records are counted as ``skipped_<reason>``. Takes the arguments of datatrove's ``WarcReader``
    but ``compression`` (the reader finds it itself)."""

    name = "🕷 Archive"
    _requires_dependencies = ["warcio"]

    def __init__(
        self, data_folder: DataFolderLike, *args: Any, max_body_size: int = DEFAULT_MAX_BODY_SIZE, **kwargs: Any
    ):
        super().__init__(data_folder, *args, **kwargs)
        if isinstance(max_body_size, bool) or not isinstance(max_body_size, int) or max_body_size < 1:
            raise ValueError(f"max_body_size must be a positive integer, got {max_body_size!r}")
        self.max_body_size = max_body_size

    def read_file(self, filepath: str) -> Iterator[Document]:
        with self.data_folder.open(filepath, "rb") as stream:
            for number, entry in enumerate(iter_archive(stream, max_body_size=self.max_body_size)):
                if entry.kind != "html":
                    self.stat_update(f"{entry.kind}_{entry.reason}")
                    continue
                with self.track_time():
                    text, encoding = decode(entry.body or b"", content_type=entry.content_type)
                    document = self.get_document_from_dict(
                        {
                            "text": text,
                            "id": f"{filepath}/{entry.offset}/{number}",
                            "url": entry.url,
                            "date": entry.date,
                            "status": entry.status,
                            "content_type": entry.content_type,
                            "encoding": encoding,
                            "offset": entry.offset,
                        },
                        filepath,
                        number,
                    )
                if document is None:  # nothing in the body (datatrove skips empty texts)
                    self.stat_update(f"skipped_{Reason.EMPTY.value}")
                    continue
                yield document
