"""Stream the HTML responses out of a web archive (WARC or ARC, gzip-compressed or not).

Records are read one at a time with ``warcio`` (optional extra ``warc``), so memory stays flat however
large the archive. Every record becomes one ``ArchiveEntry``: an HTML response to extract, a record
skipped with a reason, or a record that could not be read. A damaged record never ends the iteration:
on a seekable file reading resumes at the next record boundary found after the damage.
"""

from __future__ import annotations

import dataclasses
import gzip
import itertools
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

#: media types handed to the extractor (a response without Content-Type is sniffed by ``extract``)
HTML_TYPES = frozenset(("text/html", "application/xhtml+xml", "application/xml+xhtml"))
ARCHIVE_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
GZIP_MAGIC = b"\x1f\x8b"
_GZIP_MEMBER = GZIP_MAGIC + b"\x08"  # with the deflate method byte, what starts a gzip member
_RECORD_STARTS = (b"WARC/1.", b"filedesc://")
_SCAN_CHUNK = 1 << 20

INSTALL_HINT = "reading web archives needs warcio: pip install 'scrapy-bodytext[warc]'"


class WarcUnavailable(RuntimeError):
    """warcio is not installed."""


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """One record of an archive: ``kind`` is ``"html"`` (``body`` set), ``"skipped"`` or ``"error"``
    (``reason`` says why)."""

    kind: str
    offset: int | None
    reason: str = ""
    url: str | None = None
    date: str | None = None
    status: int | None = None
    content_type: str | None = None
    body: bytes | None = None
    detail: str = ""


def looks_like_archive(name: str, head: bytes) -> bool:
    """Whether a file is a WARC/ARC archive, from its name or its first bytes."""
    if name.lower().endswith(ARCHIVE_SUFFIXES):
        return True
    if head.startswith(GZIP_MAGIC):
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 64)
        except zlib.error:
            return False
    return head.lstrip(b"\r\n").startswith(_RECORD_STARTS)


def _archive_iterator(stream: BinaryIO):
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError:
        raise WarcUnavailable(INSTALL_HINT) from None
    return ArchiveIterator(stream, arc2warc=True)


def iter_archive(stream: BinaryIO, *, max_body_size: int) -> Iterator[ArchiveEntry]:
    """Entries of the archive read from ``stream`` (binary, ideally seekable), in file order.

    Offsets are positions in the file, except for an archive gzipped as a whole (not one gzip member
    per record, as the WARC standard asks): that one is read sequentially and its offsets count
    decompressed bytes.
    """
    seekable = stream.seekable()
    start = position = stream.tell() if seekable else 0
    compressed = None
    reported: set[int] = set()  # offsets of damage already counted
    while True:
        if seekable:
            stream.seek(position)
            if compressed is None:
                compressed = stream.read(2) == GZIP_MAGIC
                stream.seek(position)
        records = _archive_iterator(stream)
        produced = 0
        last_start = position  # start of the last record given out (a damaged one may have run past others)
        try:
            for record in records:
                entry = _entry(record, max_body_size)
                try:
                    offset = records.get_record_offset()  # reads what is left of the record
                except Exception as exc:  # noqa: BLE001 - damage after the part we looked at
                    if entry.kind != "error":
                        entry = ArchiveEntry("error", None, "unreadable_record", entry.url, entry.date,
                                             detail=_describe(exc))
                    last_start = records.offset
                    reported.add(last_start)
                    yield _with_offset(entry, last_start)
                    break
                if getattr(record.raw_stream, "limit", 0) > 0:  # the file ended inside the record
                    entry = ArchiveEntry("error", None, "truncated_record", entry.url, entry.date)
                produced += 1
                last_start = offset
                yield _with_offset(entry, offset)
            else:
                if seekable and _has_data_after(stream, records.offset):
                    yield ArchiveEntry("error", records.offset, "truncated_record")  # not even its header
                return
        except Exception as exc:  # noqa: BLE001 - a damaged record is counted, never fatal
            if seekable and position == start and "non-chunked gzip" in str(exc):
                stream.seek(start)
                entries = iter_archive(_Sequential(gzip.GzipFile(fileobj=stream, mode="rb")),
                                       max_body_size=max_body_size)
                yield from itertools.islice(entries, produced, None)
                return
            if records.offset not in reported:
                reported.add(records.offset)
                yield ArchiveEntry("error", records.offset, "corrupt_record", detail=_describe(exc))
        if not seekable:
            return
        found = _next_record_start(stream, last_start + 1, compressed)
        if found is None:
            return
        position = found


class _Sequential:
    """A stream read front to back only (no seek, no tell)."""

    def __init__(self, raw: BinaryIO):
        self.read = raw.read

    @staticmethod
    def seekable() -> bool:
        return False


def _has_data_after(stream: BinaryIO, offset: int) -> bool:
    stream.seek(offset)
    return bool(stream.read(_SCAN_CHUNK).strip())


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}".strip()[:200]


def _with_offset(entry: ArchiveEntry, offset: int | None) -> ArchiveEntry:
    if offset is None or entry.offset == offset:
        return entry
    return dataclasses.replace(entry, offset=offset)


def _entry(record, max_body_size: int) -> ArchiveEntry:
    """Classify one warcio record and read its payload (at most ``max_body_size + 1`` bytes)."""
    url = record.rec_headers.get_header("WARC-Target-URI")
    date = record.rec_headers.get_header("WARC-Date")
    if record.rec_type == "response":
        if record.http_headers is None:
            return ArchiveEntry("skipped", None, "not_http", url, date)
        try:
            status = int(record.http_headers.get_statuscode())
        except (TypeError, ValueError):
            return ArchiveEntry("skipped", None, "bad_status", url, date)
        if not 200 <= status < 300:
            return ArchiveEntry("skipped", None, "status", url, date, status)
        content_type = record.http_headers.get_header("Content-Type")
    elif record.rec_type == "resource":
        status, content_type = None, record.rec_headers.get_header("Content-Type")
    else:
        return ArchiveEntry("skipped", None, "not_response", url, date)
    if content_type and content_type.split(";", 1)[0].strip().lower() not in HTML_TYPES:
        return ArchiveEntry("skipped", None, "not_html", url, date, status, content_type)
    try:
        body = record.content_stream().read(max_body_size + 1)
    except Exception as exc:  # noqa: BLE001 - truncated member, bad chunking or compression
        return ArchiveEntry("error", None, "unreadable_record", url, date, status, content_type,
                            detail=_describe(exc))
    if len(body) > max_body_size:
        return ArchiveEntry("skipped", None, "too_large", url, date, status, content_type)
    return ArchiveEntry("html", None, "", url, date, status, content_type, body)


def _next_record_start(stream: BinaryIO, start: int, compressed: bool | None) -> int | None:
    """Offset of the first plausible record boundary at or after ``start`` (None at the end)."""
    markers = (_GZIP_MEMBER,) if compressed else tuple(b"\n" + m for m in _RECORD_STARTS)
    skip = 0 if compressed else 1  # the newline before an uncompressed record belongs to the gap
    overlap = max(map(len, markers)) - 1
    stream.seek(start)
    base, carry = start, b""
    while True:
        chunk = stream.read(_SCAN_CHUNK)
        if not chunk:
            return None
        window = carry + chunk
        hits = [i for i in (window.find(m) for m in markers) if i >= 0]
        if hits:
            return base - len(carry) + min(hits) + skip
        carry = window[-overlap:]
        base += len(chunk)
