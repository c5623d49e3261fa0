"""One record of a web archive (WARC, or ARC as warcio translates it): its header parsed and
checked, its block read through a digest when it declares one, and the end of the record checked.
Everything wrong raises ``Damaged`` with its kind.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .streams import CHUNK, MAX_LINE, Damaged, Stretch

INSTALL_HINT = "reading web archives needs warcio: pip install 'scrapy-bodytext[warc]'"
#: longest record header read (WARC header fields, or the HTTP header in a record's block)
MAX_HEADER = 1 << 20

WARC_LINE = rb"WARC/\d\.\d+\r?\n"
# url ip-address archive-date content-type length (ARC 1.0), e.g. "http://a.org/ 1.2.3.4 20010101000000 text/html 52"
ARC_FIELDS = rb":\S* \S+ \d{12,14}\S* \S+ \d+\r?\n"
RECORD_LINE = re.compile(WARC_LINE + rb"|[A-Za-z][\w+.-]*" + ARC_FIELDS)
_BLANK_LINE = re.compile(rb"\r?\n\r?\n")
_LINE_END = re.compile(rb"\r?\n")
_FIELD = re.compile(rb"[-!#$%&'*+.^_`|~0-9A-Za-z]+:")
#: WARC fields a record holds at most once; twice means headers of two records run together
_SINGLE_FIELDS = frozenset(
    (
        "warc-type",
        "warc-record-id",
        "warc-date",
        "warc-target-uri",
        "content-length",
        "warc-block-digest",
        "warc-payload-digest",
    )
)


class WarcUnavailable(RuntimeError):
    """warcio is not installed."""


def record_loader() -> Any:
    """warcio's record and HTTP header parser (``WarcUnavailable`` without warcio)."""
    try:
        from warcio.recordloader import ArcWarcRecordLoader
    except ImportError:
        raise WarcUnavailable(INSTALL_HINT) from None
    return ArcWarcRecordLoader(arc2warc=True)


@functools.cache
def parse_errors() -> tuple[type[Exception], ...]:
    """What warcio raises for a header it cannot parse (an ARC date that is no date: ValueError)."""
    from warcio.exceptions import ArchiveLoadFailed
    from warcio.statusandheaders import StatusAndHeadersParserException

    return ArchiveLoadFailed, StatusAndHeadersParserException, EOFError, ValueError


class Block:
    """The ``length`` bytes of a record after its header (for a WARC record, hashed for its
    ``WARC-Block-Digest`` as they are read)."""

    def __init__(self, stretch: Stretch, length: int, digest: str | None):
        self._stretch = stretch
        self.remaining = length
        self._header_budget = MAX_HEADER
        self._digest = _Digest.parse(digest) if digest else None

    def readline(self, size: int | None = None) -> bytes:
        """A line of the block; after ``MAX_HEADER`` bytes of lines it returns ``b""`` (as at the end),
        so that damaged or binary data never grows a header without bound."""
        limit = self.remaining if size is None or size < 0 else min(size, self.remaining)
        limit = min(limit, self._header_budget, MAX_LINE)
        if limit <= 0:
            return b""
        line = self._stretch.readline(limit)
        self._header_budget -= len(line)
        return self._took(line, line.endswith(b"\n") or len(line) == limit)

    def read(self, size: int = -1) -> bytes:
        size = self.remaining if size is None or size < 0 else min(size, self.remaining)
        data = self._stretch.read(size)
        return self._took(data, len(data) == size)

    def _took(self, data: bytes, complete: bool) -> bytes:
        self.remaining -= len(data)
        if self._digest is not None:
            self._digest.update(data)
        if not complete:
            kind = self._stretch.short_kind
            raise Damaged(kind, f"the record ends {self.remaining} bytes before its Content-Length says")
        return data

    def finish(self) -> bool | None:
        """Read what is left and check the digest: True when it matches, None without one."""
        while self.remaining:
            self.read(min(CHUNK, self.remaining))
        if self._digest is None:
            return None
        if not self._digest.matches():
            raise Damaged("digest_mismatch", f"the block does not match its digest {self._digest.declared}")
        return True


_DIGEST_ENCODINGS = (
    functools.partial(base64.b32decode, casefold=True),
    bytes.fromhex,
    functools.partial(base64.b64decode, validate=True),
    base64.urlsafe_b64decode,
)


class _Digest:
    """A ``WARC-Block-Digest`` (``algorithm:value``, value in base32, hex or base64) and its running hash."""

    def __init__(self, declared: str, hasher: Any, expected: bytes):
        self.declared = declared
        self._hasher = hasher
        self._expected = expected

    @classmethod
    def parse(cls, declared: str) -> _Digest | None:
        """The digest to check; None for an algorithm this Python does not know; ValueError for a
        value that is no digest of its algorithm (a damaged header)."""
        algorithm, _, value = declared.strip().partition(":")
        try:
            hasher = hashlib.new(algorithm.strip().lower().replace("-", ""))
        except (ValueError, TypeError):
            return None
        for decode in _DIGEST_ENCODINGS:
            try:
                expected = decode(value.strip())
            except (binascii.Error, ValueError):
                continue
            if len(expected) == hasher.digest_size:
                return cls(declared, hasher, expected)
        raise ValueError(f"WARC-Block-Digest {declared[:60]!r} is no {algorithm} digest")

    def update(self, data: bytes) -> None:
        self._hasher.update(data)

    def matches(self) -> bool:
        return self._hasher.digest() == self._expected


@dataclass(frozen=True, slots=True)
class Record:
    """One record as ``read_records`` hands it to its reader: WARC header fields (an ARC record's are
    translated by warcio), and its block, to be read from the start."""

    offset: int
    format: str  # "warc" or "arc"
    rec_type: str
    headers: Any  # warcio StatusAndHeaders
    length: int
    block: Block
    loader: Any  # the warcio parser that read the header, for the HTTP header in the block


def read_header(stretch: Stretch, loader: Any, offset: int) -> Record:
    """Parse the record header at the current position of ``stretch``: it must say how long the
    record is and what type it is, hold no field twice that may appear once, and declare a digest
    that is one."""
    fmt = "warc" if stretch.peek(5) == b"WARC/" else "arc"  # warcio gives ARC headers as WARC ones
    try:
        parsed = loader.parse_record_stream(_HeaderLines(stretch), no_record_parse=True)
    except parse_errors() as exc:
        raise _header_damage(stretch, f"unreadable record header ({type(exc).__name__}: {exc})") from None
    headers = parsed.rec_headers
    length = (headers.get_header("Content-Length") or "").strip()
    if not length.isdigit() or parsed.length is None or parsed.length < 0:
        raise _header_damage(stretch, f"record header without a valid Content-Length ({length[:40]!r})")
    if not parsed.rec_type:
        raise _header_damage(stretch, "record header without WARC-Type")
    repeated = [
        name
        for name, count in Counter(name.lower() for name, _ in headers.headers).items()
        if count > 1 and name in _SINGLE_FIELDS
    ]
    if repeated:
        raise _header_damage(stretch, f"record header with {repeated[0]} twice")
    try:
        block = Block(stretch, parsed.length, headers.get_header("WARC-Block-Digest") if fmt == "warc" else None)
    except ValueError as exc:
        raise _header_damage(stretch, str(exc)) from None
    return Record(offset, fmt, parsed.rec_type, headers, parsed.length, block, loader)


def _header_damage(stretch: Stretch, detail: str) -> Damaged:
    if stretch.at_end() and stretch.short_kind == "truncated_record":
        return Damaged("truncated_record", "the file ends inside a record header")
    return Damaged("bad_header", detail)


def plausible_warc_header(head: bytes) -> bool:
    """Whether ``head`` (bytes from a ``WARC/1.x`` line on) holds a whole header of well-formed
    fields: a quick test for a place to resume reading, before the header is parsed."""
    parts = _BLANK_LINE.split(head, 1)
    if len(parts) < 2:
        return False
    return all(_FIELD.match(line) or line[:1] in (b" ", b"\t") for line in _LINE_END.split(parts[0])[1:])


def check_record_end(stretch: Stretch, fmt: str, verified: bool | None) -> None:
    """A WARC record ends with two CRLF, an ARC record with a newline. A record cut inside that
    ending by the end of the data, or whose digest matched, is whole: what follows it is the next
    record's concern."""
    ending = b"\r\n\r\n" if fmt == "warc" else b"\n"
    tail = stretch.peek(len(ending))
    if tail == ending or (fmt == "warc" and tail.startswith(b"\n\n")):
        stretch.read(len(ending) if tail == ending else 2)
    elif len(tail) < len(ending) and not tail.strip(b"\r\n"):  # the data ends here
        stretch.read(len(tail))
    elif not verified:
        raise Damaged("length_mismatch", "no record end after Content-Length bytes")


class _HeaderLines:
    """What warcio's header parser reads from: lines, at most ``MAX_HEADER`` bytes of them in all."""

    def __init__(self, stretch: Stretch):
        self._stretch = stretch
        self._budget = MAX_HEADER

    def readline(self, size: int | None = None) -> bytes:
        if self._budget <= 0:
            raise Damaged("bad_header", f"record header longer than {MAX_HEADER} bytes")
        line = self._stretch.readline(self._budget if size is None else min(size, self._budget))
        self._budget -= len(line)
        return line

    def read(self, size: int = -1) -> bytes:
        return b""  # the block is read through Record.block
