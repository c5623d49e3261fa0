"""Stream the HTML responses out of a web archive (WARC or ARC, gzip-compressed or not).

Records are read one at a time (``reader``; header parsing by ``warcio``, optional extra
``warc``), so memory stays flat however large the archive. Every record becomes one
``ArchiveEntry``: an HTML response to extract, a record skipped with a reason, or a damaged stretch
of the archive, after which reading resumes at the next record found.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, BinaryIO

from .reader import Damage, read_records
from .records import INSTALL_HINT, Record, WarcUnavailable, parse_errors
from .streams import GZIP_MAGIC

__all__ = [
    "ARCHIVE_SUFFIXES",
    "GZIP_MAGIC",
    "HTML_TYPES",
    "INSTALL_HINT",
    "ArchiveEntry",
    "WarcUnavailable",
    "iter_archive",
    "looks_like_archive",
]

#: media types handed to the extractor (a response without Content-Type is sniffed by ``extract``)
HTML_TYPES = frozenset(("text/html", "application/xhtml+xml", "application/xml+xhtml"))
ARCHIVE_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
_RECORD_STARTS = (b"WARC/1.", b"filedesc://")


@dataclass(frozen=True, slots=True)
class ArchiveEntry:
    """One record of an archive: ``kind`` is ``"html"`` (``body`` set), ``"skipped"`` (``reason`` says
    why) or ``"damaged"`` (``reason`` is the kind of damage, ``resumed_at`` where reading went on:
    ``None`` when nothing readable followed)."""

    kind: str
    offset: int | None
    reason: str = ""
    url: str | None = None
    date: str | None = None
    status: int | None = None
    content_type: str | None = None
    body: bytes | None = None
    detail: str = ""
    resumed_at: int | None = None


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


def iter_archive(stream: BinaryIO, *, max_body_size: int) -> Iterator[ArchiveEntry]:
    """Entries of the archive read from ``stream`` (binary; seekable or not), in file order.

    ``offset`` is where the record starts in the file, or for a gzipped archive where its gzip member
    starts. A damaged record (or stretch of bytes that is no record) is one ``"damaged"`` entry.
    """
    for item in read_records(stream, partial(_entry, max_body_size=max_body_size)):
        if isinstance(item, Damage):
            yield ArchiveEntry("damaged", item.offset, item.kind, detail=item.detail, resumed_at=item.resumed_at)
        else:
            yield item


def _entry(record: Record, max_body_size: int) -> ArchiveEntry:
    """Classify one record and read its payload (at most ``max_body_size`` bytes are kept)."""
    url = record.headers.get_header("WARC-Target-URI")
    date = record.headers.get_header("WARC-Date")
    entry = partial(ArchiveEntry, offset=record.offset, url=url, date=date)
    chunked, encoding = False, None
    if record.rec_type == "response":
        http = _http_headers(record, url)
        if http is None:
            return entry("skipped", reason="not_http")
        if http is False:
            return entry("skipped", reason="bad_http")
        try:
            status = int(http.get_statuscode())
        except (TypeError, ValueError):
            return entry("skipped", reason="bad_status")
        if not 200 <= status < 300:
            return entry("skipped", reason="status", status=status)
        content_type = http.get_header("Content-Type")
        chunked = (http.get_header("Transfer-Encoding") or "").strip().lower() == "chunked"
        encoding = http.get_header("Content-Encoding")
    elif record.rec_type == "resource":
        status, content_type = None, record.headers.get_header("Content-Type")
    else:
        return entry("skipped", reason="not_response")
    entry = partial(entry, status=status, content_type=content_type)
    if content_type and content_type.split(";", 1)[0].strip().lower() not in HTML_TYPES:
        return entry("skipped", reason="not_html")
    raw = record.block.read(max_body_size + 1)
    if len(raw) > max_body_size:
        return entry("skipped", reason="too_large")
    try:
        body = decode_payload(raw, chunked=chunked, encoding=encoding, limit=max_body_size + 1)
    except PayloadError as exc:
        return entry("skipped", reason="bad_payload", detail=str(exc))
    if len(body) > max_body_size:
        return entry("skipped", reason="too_large")
    return entry("html", body=body)


def _http_headers(record: Record, url: str | None) -> Any:
    """The HTTP header (warcio StatusAndHeaders) at the start of a response record's block: ``None``
    when it has none (not an http(s) URL, empty block), ``False`` when it cannot be parsed."""
    try:
        return record.loader.load_http_headers(record.rec_type, url or "", record.block, record.length)
    except parse_errors():
        return False


class PayloadError(ValueError):
    """An HTTP body whose chunking or Content-Encoding cannot be decoded."""


def decode_payload(data: bytes, *, chunked: bool, encoding: str | None, limit: int) -> bytes:
    """The HTTP body as the server meant it: de-chunked and decompressed (gzip, deflate), at most
    ``limit`` bytes. A body that is not what its headers say (a crawler that stored it decoded) is
    returned as it is; one that starts encoded and breaks off raises ``PayloadError``."""
    if chunked:
        data = _dechunk(data)
    for coding in reversed([c.strip().lower() for c in (encoding or "").split(",") if c.strip()]):
        if coding in ("gzip", "x-gzip") and data.startswith(GZIP_MAGIC):
            data = _inflate(data, 16 + zlib.MAX_WBITS, limit)
        elif coding == "deflate" and data:
            zlib_header = len(data) > 1 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            data = _inflate(data, zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS, limit)
    return data


def _inflate(data: bytes, wbits: int, limit: int) -> bytes:
    try:
        return zlib.decompressobj(wbits).decompress(data, limit)
    except zlib.error as exc:
        raise PayloadError(f"Content-Encoding: {exc}") from None


def _dechunk(data: bytes) -> bytes:
    """Chunked transfer coding removed; data that is not chunked after all is returned unchanged."""
    parts, at = [], 0
    while True:
        line_end = data.find(b"\r\n", at)
        try:
            size = int(data[at:line_end].split(b";", 1)[0], 16) if line_end >= 0 else -1
        except ValueError:
            size = -1
        if size < 0:
            return data if not parts else b"".join(parts)  # not chunked, or cut inside a chunk header
        if size == 0:
            return b"".join(parts)
        start = line_end + 2
        parts.append(data[start : start + size])
        at = start + size + 2
        if at > len(data):
            return b"".join(parts)
