"""Walk a web archive (WARC or ARC; one gzip member per record, gzipped as a whole, or
uncompressed) record by record, and get past damage.

A record is given out only once it has been read to its end and checked (``records``; in a
gzipped archive also the checksum of its member). Any damage becomes one ``Damage``, and reading
resumes at the next place that holds a record: a gzip member whose data starts with a record
header, or a record header in plain bytes. The search starts just after the start of the damaged
record, since damage can make a record look longer than it is and cover the ones after it; in an
archive without digests, just after the last record whose length nothing confirmed.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import BinaryIO, Generic, TypeVar

from .records import (
    ARC_FIELDS,
    RECORD_LINE,
    WARC_LINE,
    Record,
    check_record_end,
    plausible_warc_header,
    read_header,
    record_loader,
)
from .streams import CHUNK, GZIP_MAGIC, GZIP_MEMBER, Damaged, GzipMember, PlainStretch, Replay, Stretch

# where a record may start after damage, even right after garbage: a gzip member, a WARC version
# line, or an ARC line whose URL has a scheme such archives hold (any other cannot be told from garbage)
_RESYNC_POINT = re.compile(
    rb"(?P<gzip>%s)|(?P<plain>%s|(?i:https?|ftp|dns|filedesc|whois)%s)"
    % (re.escape(GZIP_MEMBER), WARC_LINE, ARC_FIELDS)
)
_SCAN_WINDOW = 1 << 20
_SCAN_OVERLAP = 4096  # a candidate header line cut by a window's end is found in the next window
#: kinds of damage inside a gzip member whose own data may be sound
_RECORD_LEVEL = frozenset(("bad_header", "length_mismatch", "digest_mismatch"))

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Damage:
    """A stretch of the archive that could not be read: ``offset`` where it starts (the record, or its
    gzip member), ``resumed_at`` where reading went on (``None``: nothing readable after it)."""

    offset: int
    kind: str
    detail: str
    resumed_at: int | None


@dataclass(frozen=True, slots=True)
class _Place:
    """Where to read on: file offset, and whether a gzip member starts there."""

    offset: int
    gzipped: bool


def read_records(stream: BinaryIO, read: Callable[[Record], T]) -> Iterator[T | Damage]:
    """``read(record)`` for every sound record of the archive in ``stream``, in file order, and a
    ``Damage`` for every damaged stretch; never raises for damage. ``read`` gets the record before it
    is verified: what it returns is given out only if the record turns out whole."""
    return _Reader(stream, read).records()


class _Reader(Generic[T]):
    def __init__(self, stream: BinaryIO, read: Callable[[Record], T]):
        self.loader = record_loader()
        self.replay = Replay(stream)
        self.read = read
        self._record_start = self.replay.position  # where damage found now is reported
        self._search_from = self.replay.position  # where the search for the next record would start

    def records(self) -> Iterator[T | Damage]:
        start = self.replay.position
        head = self.replay.read(CHUNK)
        if not head:
            return
        gzipped = head.startswith(GZIP_MAGIC)
        if gzipped or RECORD_LINE.match(head.lstrip(b"\r\n")):
            place: _Place | None = _Place(start, gzipped)
        else:
            place = self._next_place(start)
            if place is None and len(head) < CHUNK and b"\n" not in head:
                yield Damage(start, "truncated_record", "the file ends inside its first record", None)
                return
            yield Damage(
                start,
                "corrupt_gzip" if place and place.gzipped else "bad_header",
                "no record header or gzip member at the start of the file",
                place.offset if place else None,
            )
        while place is not None:
            place = yield from (self._gzip_members(place.offset) if place.gzipped else self._plain(place.offset))

    def _gzip_members(self, position: int) -> Generator[T | Damage, None, _Place | None]:
        """Member after member from ``position``; returns where to go on after damage (None: the end)."""
        while True:
            self.replay.forget_before(position)
            self.replay.seek(position)
            if not self.replay.read(1):
                return None
            member = GzipMember(self.replay, position)
            try:
                yield from self._records_in(member)
                position = member.drain()
                continue
            except Damaged as damage:
                failure = damage
            if failure.kind in _RECORD_LEVEL:
                try:
                    resume = member.drain()
                except Damaged as member_damage:
                    failure = member_damage  # the member's own damage is the cause
                else:  # a sound member whose content is no good record
                    yield Damage(position, failure.kind, failure.detail, resume)
                    position = resume
                    continue
            return (yield from self._report(position, failure, gzipped=True, search_from=position + 1))

    def _plain(self, position: int) -> Generator[T | Damage, None, _Place | None]:
        """Records of an uncompressed archive from ``position``; returns where to go on after damage."""
        try:
            yield from self._records_in(PlainStretch(self.replay, position))
        except Damaged as damage:
            return (yield from self._report(self._record_start, damage, gzipped=False, search_from=self._search_from))
        return None

    def _report(
        self, offset: int, damage: Damaged, *, gzipped: bool, search_from: int
    ) -> Generator[Damage, None, _Place | None]:
        place = self._next_place(search_from, tried=offset)
        kind = damage.kind
        if place is not None and place.gzipped != gzipped:  # what looked like one kind of archive is the other
            kind = "corrupt_gzip" if place.gzipped else "bad_header"
        elif kind == "truncated_record" and place is not None:  # not the end of the file: a later record is whole
            kind = "corrupt_gzip" if gzipped else "length_mismatch"
        yield Damage(offset, kind, damage.detail, place.offset if place else None)
        return place

    def _records_in(self, stretch: Stretch) -> Iterator[T]:
        """The records of a gzip member or of an uncompressed archive, each checked before it is given out."""
        unconfirmed = None  # start of the last record given out whose length no digest confirmed
        stretch.skip_newlines()
        while not stretch.at_end():
            start = self._record_start = stretch.offset()  # type: ignore[attr-defined]
            if isinstance(stretch, PlainStretch):
                self._search_from = (start if unconfirmed is None else unconfirmed) + 1
                self.replay.forget_before(self._search_from - 1)
            record = read_header(stretch, self.loader, start)
            result = self.read(record)
            verified = record.block.finish()
            check_record_end(stretch, record.format, verified)
            unconfirmed = None if verified else start
            stretch.skip_newlines()
            stretch.at_end()  # for a gzip member: reads its trailer, so its checksum is verified first
            yield result

    def _next_place(self, position: int, tried: int | None = None) -> _Place | None:
        """The first offset at or after ``position`` (``tried`` excepted: the damaged record's start)
        where a record starts: a gzip member that decompresses to a record header, or a record header
        in plain bytes. Both are looked for, so that damage to the very first bytes cannot mislead the
        reader about the kind of archive."""
        window_start, size = position, CHUNK
        while True:
            self.replay.forget_before(window_start)
            self.replay.seek(window_start)
            window = self.replay.read(size)
            for match in _RESYNC_POINT.finditer(window):
                at, gzipped = window_start + match.start(), match.lastgroup == "gzip"
                if at < position or at == tried:
                    continue
                if self._starts_member(at) if gzipped else self._starts_plain_record(at):
                    return _Place(at, gzipped)
            if len(window) < size:
                return None
            position = window_start = window_start + len(window) - _SCAN_OVERLAP
            size = min(2 * size, _SCAN_WINDOW)

    def _starts_member(self, position: int) -> bool:
        self.replay.seek(position)
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(self.replay.read(CHUNK), 1024)
        except zlib.error:
            return False
        return bool(RECORD_LINE.match(head.lstrip(b"\r\n")))

    def _starts_plain_record(self, position: int) -> bool:
        """A record header that parses, at ``position``."""
        self.replay.seek(position)
        head = self.replay.read(CHUNK)
        if not RECORD_LINE.match(head) or (head.startswith(b"WARC/") and not plausible_warc_header(head)):
            return False
        try:
            read_header(PlainStretch(self.replay, position), self.loader, position)
        except Damaged:
            return False
        return True
