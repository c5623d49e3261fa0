"""Byte access for the web-archive reader: a stream that can go back after damage, and the decoded
bytes of one stretch of an archive (plain, or one gzip member) read through a small buffer.

Reading never holds more than a chunk, a line or a kept window in memory, whatever the archive size.
"""

from __future__ import annotations

import zlib
from typing import BinaryIO

CHUNK = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"
GZIP_MEMBER = GZIP_MAGIC + b"\x08"  # with the deflate method byte, what starts a gzip member
#: longest line handed out at once; a longer "line" (damaged or binary data) comes out in pieces
MAX_LINE = 1 << 16
#: how far back a stream that cannot seek (stdin) can be re-read after damage
REPLAY_WINDOW = 32 << 20
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_DETAIL_LENGTH = 160
_NEWLINES = b"\r\n"


class Damaged(Exception):
    """The archive's bytes cannot be read as a record: ``kind`` names how (``corrupt_gzip``,
    ``truncated_record``, ``bad_header``, ``length_mismatch``, ``digest_mismatch``)."""

    def __init__(self, kind: str, detail: str = ""):
        detail = " ".join(detail.split())  # one line, however odd the damaged bytes quoted in it
        detail = detail if len(detail) <= _DETAIL_LENGTH else detail[: _DETAIL_LENGTH - 3] + "..."
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail


class Replay:
    """Reads a binary stream forward and can go back to an earlier position: by seeking when the
    stream can, otherwise from the bytes kept since ``forget_before`` (at most ``window`` of them)."""

    def __init__(self, raw: BinaryIO, window: int = REPLAY_WINDOW):
        self._raw = raw
        try:
            self.seekable = bool(raw.seekable())
        except (AttributeError, OSError, ValueError):
            self.seekable = False
        self.position = raw.tell() if self.seekable else 0
        self._kept = bytearray()
        self._kept_at = self.position
        self._window = window

    def read(self, size: int) -> bytes:
        if self.seekable:
            data = self._raw.read(size)
            self.position += len(data)
            return data
        parts = []
        offset = self.position - self._kept_at
        if offset < len(self._kept):
            part = bytes(self._kept[offset : offset + size])
            parts.append(part)
            size -= len(part)
            self.position += len(part)
        if size > 0:
            data = self._raw.read(size)
            if data:
                parts.append(data)
                self._kept += data
                self.position += len(data)
                if len(self._kept) > self._window:
                    self.forget_before(self._kept_at + len(self._kept) - self._window)
        return b"".join(parts)

    def seek(self, position: int) -> int:
        """Go to ``position``; without seeking, no earlier than the oldest kept byte. Returns where
        reading now starts."""
        if self.seekable:
            self._raw.seek(position)
            self.position = position
            return position
        end = self._kept_at + len(self._kept)
        self.position = max(min(position, end), self._kept_at)
        while self.position < position and self.read(min(CHUNK, position - self.position)):
            pass
        return self.position

    def forget_before(self, position: int) -> None:
        """Bytes before ``position`` will not be read again (frees them on a stream that cannot seek)."""
        drop = min(position - self._kept_at, len(self._kept))
        if drop > 0:
            del self._kept[:drop]
            self._kept_at += drop


class Stretch:
    """Decoded bytes of the archive from ``start``: ``read``, ``readline``, ``peek`` over a buffer that
    is refilled by ``_more`` (``b""`` once the stretch ends)."""

    #: what a record cut short by the end of this stretch is called
    short_kind = "truncated_record"

    def __init__(self, replay: Replay, start: int):
        self.replay = replay
        self.start = replay.seek(start)
        self.consumed = 0  # decoded bytes handed out
        self._buffer = b""
        self._at = 0
        self._ended = False

    def _more(self) -> bytes:
        raise NotImplementedError

    def _fill(self, size: int) -> int:
        """Buffer at least ``size`` bytes unless the stretch ends first; returns how many there are."""
        while len(self._buffer) - self._at < size and not self._ended:
            chunk = self._more()
            if not chunk:
                self._ended = True
                break
            self._buffer = self._buffer[self._at :] + chunk
            self._at = 0
        return len(self._buffer) - self._at

    def peek(self, size: int) -> bytes:
        self._fill(size)
        return self._buffer[self._at : self._at + size]

    def read(self, size: int) -> bytes:
        data = self.peek(size)
        self._at += len(data)
        self.consumed += len(data)
        return data

    def readline(self, size: int | None = None) -> bytes:
        """One line with its newline, at most ``size`` (and ``MAX_LINE``) bytes."""
        limit = min(size, MAX_LINE) if size is not None and size >= 0 else MAX_LINE
        have = self._fill(1)
        while True:
            end = self._buffer.find(b"\n", self._at, self._at + limit)
            if end >= 0:
                return self.read(end + 1 - self._at)
            if have >= limit or self._ended:
                return self.read(limit)
            have = self._fill(have + CHUNK)

    def skip_newlines(self) -> None:
        """Step over the blank lines that separate records."""
        while self._fill(1):
            rest = self._buffer[self._at :].lstrip(_NEWLINES)
            skipped = len(self._buffer) - self._at - len(rest)
            self._at += skipped
            self.consumed += skipped
            if rest:
                return

    def at_end(self) -> bool:
        return self._fill(1) == 0


class PlainStretch(Stretch):
    """An uncompressed archive from ``start`` to the end of the file."""

    def _more(self) -> bytes:
        return self.replay.read(CHUNK)

    def offset(self) -> int:
        """File offset of the next byte to be read."""
        return self.start + self.consumed


class GzipMember(Stretch):
    """One gzip member starting at ``start``. Damage raises ``Damaged``: ``corrupt_gzip`` for data
    that does not decompress or fails its checksum, ``truncated_record`` where the file ends inside
    the member. Its checksum is verified when the last decoded byte has been buffered."""

    short_kind = "length_mismatch"  # a record running past the end of its (intact) member

    def __init__(self, replay: Replay, start: int):
        super().__init__(replay, start)
        self._decompressor = zlib.decompressobj(_GZIP_WBITS)
        self.end: int | None = None  # file offset just after the member, once read to its end

    def _more(self) -> bytes:
        decompressor = self._decompressor
        while not decompressor.eof:
            data = decompressor.unconsumed_tail or self.replay.read(CHUNK)
            if not data:
                raise Damaged("truncated_record", "the file ends inside a gzip member")
            try:
                out = decompressor.decompress(data, CHUNK)
            except zlib.error as exc:
                raise Damaged("corrupt_gzip", str(exc)) from None
            if decompressor.eof:
                self.end = self.replay.position - len(decompressor.unused_data)
                self.replay.seek(self.end)
            if out:
                return out
        return b""

    def offset(self) -> int:
        """Records inside a member are located by the member's file offset."""
        return self.start

    def drain(self) -> int:
        """Read the member to its end (verifying its checksum); returns the offset after it."""
        while self._fill(1):
            self._at = len(self._buffer)
        assert self.end is not None
        return self.end
