"""Web archives written from real pages, then damaged on purpose, and the check of what a reader
gives back from them.

Archives are WARC (written with warcio) or ARC, gzipped record by record or not. A damage is bytes
flipped, a stretch cut out, garbage inserted or the tail cut off, placed at the start of a record
(gzip header, version line), in its header, its middle, its end (gzip trailer, closing newlines), on
a record boundary, or anywhere. The check: every record the damage left alone comes out exactly as
from the undamaged archive; damage is reported at most once per damaged record (exactly once for
garbage between records), with a kind that fits the archive; nothing is lost without a report.

Shared by tests/test_warc_damage.py and benchmarks/damaged_archives.py.
"""

from __future__ import annotations

import gzip
import io
import json
import random
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from scrapy_bodytext.archives.entries import ArchiveEntry, iter_archive

REPO = Path(__file__).resolve().parent.parent
CONTAINERS = ("warc.gz", "warc", "arc.gz", "arc")
HOWS = ("flip", "cut", "insert", "truncate")
WHERES = ("start", "header", "middle", "end", "boundary", "anywhere")
GZIP_KINDS = frozenset(("corrupt_gzip",))
PLAIN_KINDS = frozenset(("bad_header", "length_mismatch", "digest_mismatch"))
MAX_BODY = 10_000_000
OUTCOMES = ("html", "skipped")  # the kinds of entry a record gives; anything else reports damage


def pick_pages(
    pages: list[tuple[str, bytes]], count: int, seed: int, max_size: int = 60_000
) -> list[tuple[str, bytes]]:
    """``count`` of the pages (URL, bytes) of at most ``max_size`` bytes, picked at random (cycled
    when there are fewer)."""
    small = [page for page in pages if len(page[1]) <= max_size]
    picked = random.Random(seed).sample(small, min(count, len(small)))
    return [
        (f"{url}#{number}" if number >= len(picked) else url, body)
        for number, (url, body) in enumerate(picked[i % len(picked)] for i in range(count))
    ]


def corpus_pages(folder: Path) -> list[tuple[str, bytes]]:
    """The pages of a labelled corpus folder (index.jsonl and pages/)."""
    rows = [json.loads(line) for line in (folder / "index.jsonl").read_text(encoding="utf-8").splitlines()]
    return [
        (row["url"] or f"https://example.org/{row['id']}", gzip.decompress((folder / row["file"]).read_bytes()))
        for row in rows
    ]


def bundled_pages() -> list[tuple[str, bytes]]:
    """The pages that come with the tests and the example project."""
    paths = sorted([*(REPO / "tests" / "site").glob("*.html"), *(REPO / "example_project").rglob("*.html")])
    return [(f"https://example.org/{path.relative_to(REPO)}", path.read_bytes()) for path in paths]


@dataclass(frozen=True)
class Span:
    """Where one record lies in the written archive: ``[start, end)``."""

    start: int
    end: int


@dataclass
class Archive:
    container: str
    data: bytes
    spans: list[Span]

    @property
    def gzipped(self) -> bool:
        return self.container.endswith(".gz")


def build_archive(pages: list[tuple[str, bytes]], container: str) -> Archive:
    """One archive holding the pages: WARC with a warcinfo record, a request and a response per page
    (some gzip-encoded, some chunked) and now and then a 404 and an image; ARC with its file header
    and a response per page."""
    builder = (_ArcBuilder if container.startswith("arc") else _WarcBuilder)(container.endswith(".gz"))
    builder.build(pages)
    return Archive(container, builder.buffer.getvalue(), builder.spans)


class _WarcBuilder:
    def __init__(self, gzipped: bool):
        self.buffer = io.BytesIO()
        self.writer = WARCWriter(self.buffer, gzip=gzipped)
        self.spans: list[Span] = []

    def build(self, pages: list[tuple[str, bytes]]) -> None:
        self._write(self.writer.create_warcinfo_record("damaged.warc", {"software": "tests"}))
        for number, (url, body) in enumerate(pages):
            request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "example.org")], is_http_request=True)
            self._write(self.writer.create_warc_record(url, "request", http_headers=request))
            headers = [("Content-Type", "text/html; charset=utf-8")]
            if number % 4 == 1:
                body = gzip.compress(body, mtime=0)
                headers.append(("Content-Encoding", "gzip"))
            if number % 6 == 2:
                body = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in _parts(body, 4000)) + b"0\r\n\r\n"
                headers.append(("Transfer-Encoding", "chunked"))
            self._response(url, body, "200 OK", headers)
            if number % 5 == 3:
                self._response(
                    url + "?missing",
                    b"<html><body>Not found</body></html>",
                    "404 Not Found",
                    [("Content-Type", "text/html")],
                )
                self._response(
                    url + ".png",
                    b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
                    "200 OK",
                    [("Content-Type", "image/png")],
                )

    def _response(self, url: str, body: bytes, status: str, headers: list[tuple[str, str]]) -> None:
        http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
        self._write(
            self.writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), length=len(body), http_headers=http
            )
        )

    def _write(self, record) -> None:
        number = len(self.spans) + 1  # fixed ids and dates: the same bytes on every run
        record.rec_headers.replace_header("WARC-Record-ID", f"<urn:uuid:00000000-0000-4000-8000-{number:012d}>")
        record.rec_headers.replace_header("WARC-Date", "2026-01-02T03:04:05Z")
        start = self.buffer.tell()
        self.writer.write_record(record)
        self.spans.append(Span(start, self.buffer.tell()))


class _ArcBuilder:
    """ARC 1.0 as the Internet Archive wrote it: ``url ip date type length`` lines, a newline after each record."""

    def __init__(self, gzipped: bool):
        self.buffer = io.BytesIO()
        self.gzipped = gzipped
        self.spans: list[Span] = []

    def build(self, pages: list[tuple[str, bytes]]) -> None:
        head = b"1 0 Tests\nURL IP-address Archive-date Content-type Archive-length\n"
        self._write("filedesc://damaged.arc", "text/plain", head)
        for url, body in pages:
            http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body) + body
            self._write(url, "text/html", http)

    def _write(self, url: str, content_type: str, block: bytes) -> None:
        record = f"{url} 192.0.2.1 20260102030405 {content_type} {len(block)}\n".encode() + block + b"\n"
        start = self.buffer.tell()
        if self.gzipped:
            compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip header with mtime 0
            record = compressor.compress(record) + compressor.flush()
        self.buffer.write(record)
        self.spans.append(Span(start, self.buffer.tell()))


def _parts(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@dataclass(frozen=True)
class Damage:
    """``how`` (flip, cut, insert, truncate) ``size`` bytes at ``offset``; ``where`` says which part
    of a record was aimed at. ``garbage``: the XOR masks of a flip, the bytes of an insert."""

    how: str
    where: str
    offset: int
    size: int = 0
    garbage: bytes = b""

    def apply(self, data: bytes) -> bytes:
        if self.how == "flip":
            flipped = bytes(a ^ b for a, b in zip(data[self.offset : self.offset + self.size], self.garbage))
            return data[: self.offset] + flipped + data[self.offset + len(flipped) :]
        if self.how == "cut":
            return data[: self.offset] + data[self.offset + self.size :]
        if self.how == "insert":
            return data[: self.offset] + self.garbage + data[self.offset :]
        return data[: self.offset]

    def effect(self, archive: Archive) -> tuple[set[int], set[int]]:
        """(damaged, removed): records whose bytes are changed in part, and records gone as a whole
        (cut out entirely, or after the cut-off tail), by index. In an uncompressed ARC file garbage
        inserted before a record joins its URL line: nothing marks where a record starts there."""
        damaged, removed = set(), set()
        low, high = self.offset, self.offset + self.size
        glued = self.how == "insert" and archive.container == "arc"
        for index, span in enumerate(archive.spans):
            if self.how == "truncate":
                if span.start >= low:
                    removed.add(index)
                elif span.end > low:
                    damaged.add(index)
            elif self.how == "insert":
                if span.start < low < span.end or (glued and span.start == low):
                    damaged.add(index)
            elif self.how == "cut" and low <= span.start and span.end <= high:
                removed.add(index)
            elif span.start < high and low < span.end:
                damaged.add(index)
        return damaged, removed

    def __str__(self) -> str:
        return f"{self.how} {self.size} bytes at {self.offset} ({self.where})"


def random_damage(rng: random.Random, archive: Archive) -> Damage:
    how, where = rng.choice(HOWS), rng.choice(WHERES)
    span = rng.choice(archive.spans)
    length = span.end - span.start
    offset = {
        "start": lambda: span.start + rng.randrange(min(10, length)),  # gzip header, version/URL line
        "header": lambda: span.start + rng.randrange(min(10, length - 1), min(400, length)),
        "middle": lambda: span.start + length // 4 + rng.randrange(max(1, length // 2)),
        "end": lambda: span.end - 1 - rng.randrange(min(8, length)),  # gzip trailer, closing newlines
        "boundary": lambda: span.start,
        "anywhere": lambda: rng.randrange(len(archive.data)),
    }[where]()
    if how == "flip":
        size = rng.choice((1, 4, 50))
        return Damage(how, where, offset, size, bytes(rng.randrange(1, 256) for _ in range(size)))
    if how == "cut":
        return Damage(how, where, offset, rng.choice((1, 16, 300, 5000, 40000)))
    if how == "insert":
        garbage = bytearray(rng.randbytes(rng.choice((1, 16, 300))))
        if rng.random() < 0.3:  # something that looks like the start of a record, to mislead a resync
            lure = rng.choice(
                (b"\x1f\x8b\x08\x00", b"\r\nWARC/1.0\r\nContent-Length: 5\r\n", b"\nhttp://x.org/ 1.2.3.4 ")
            )
            garbage[rng.randrange(len(garbage) + 1) : 0] = lure
        if not bytes(garbage).strip(b"\r\n"):
            garbage += b"x"  # blank lines between records are allowed: garbage must hold something else
        return Damage(how, where, offset, len(garbage), bytes(garbage))
    return Damage(how, where, offset)


def entry_key(entry: ArchiveEntry) -> tuple:
    """What must come out the same for an undamaged record (the offset moves with cuts and inserts)."""
    return entry.kind, entry.reason, entry.url, entry.date, entry.status, entry.content_type, entry.body


class Unseekable(io.RawIOBase):
    """Bytes that can only be read front to back, as from a pipe."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self._data.readinto(buffer)


def read_entries(data: bytes, seekable: bool = True) -> list[ArchiveEntry]:
    stream = io.BytesIO(data) if seekable else io.BufferedReader(Unseekable(data))
    return list(iter_archive(stream, max_body_size=MAX_BODY))


@dataclass
class Tally:
    """Figures over many damaged archives, and every broken promise found."""

    points: int = 0
    records: int = 0
    damaged: int = 0
    removed: int = 0
    intact: int = 0
    intact_extracted: int = 0
    reports: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    @property
    def intact_lost(self) -> int:
        return self.intact - self.intact_extracted


def check(archive: Archive, originals: list[ArchiveEntry], damage: Damage, tally: Tally, seekable: bool = True) -> None:
    """Read the damaged archive (from a stream that can seek, or one that cannot) and add what
    happened (and any broken promise) to ``tally``."""
    damaged, removed = damage.effect(archive)
    intact = [i for i in range(len(archive.spans)) if i not in damaged and i not in removed]
    try:
        found = read_entries(damage.apply(archive.data), seekable)
    except Exception as exc:  # noqa: BLE001 - raising is one of the broken promises counted
        tally.problems.append(f"{archive.container} {damage}: raised {type(exc).__name__}: {exc}")
        return
    reports = [entry.reason for entry in found if entry.kind not in OUTCOMES]
    out = Counter(entry_key(entry) for entry in found if entry.kind in OUTCOMES)
    kept = Counter(entry_key(originals[i]) for i in intact)
    extracted = sum(min(n, out[key]) for key, n in kept.items())
    tally.points += 1
    tally.records += len(archive.spans)
    tally.damaged += len(damaged)
    tally.removed += len(removed)
    tally.intact += len(intact)
    tally.intact_extracted += extracted
    tally.reports.update(reports)

    def problem(text: str) -> None:
        tally.problems.append(f"{archive.container} {damage}: {text}; reports {reports}")

    if extracted < len(intact):
        problem(f"{len(intact) - extracted} of {len(intact)} intact records lost")
    everything = Counter(entry_key(entry) for entry in originals)
    altered = sum((out - everything).values())  # entries that are no record of the archive as written
    if altered and (archive.gzipped or altered > len(damaged)):
        problem(f"{altered} altered records given out")
    unaccounted = [i for i in damaged if out[entry_key(originals[i])] == 0]
    if unaccounted and not reports and not altered:
        problem(f"{len(unaccounted)} damaged records vanished without a report")
    if len(reports) > max(1, len(damaged)):
        problem(f"{len(reports)} reports for {len(damaged)} damaged records")
    if not damaged and damage.how == "insert" and len(reports) != 1:
        problem("garbage between records must be reported once")
    if not damaged and damage.how != "insert" and reports:
        problem("nothing was damaged, yet damage was reported")
    allowed = set(GZIP_KINDS if archive.gzipped else PLAIN_KINDS)
    if damage.how == "truncate":
        allowed = {"truncated_record"}
    elif max(i for i in range(-1, len(archive.spans)) if i not in removed) in damaged:
        allowed.add("truncated_record")  # the last record left in the file
    if set(reports) - allowed:
        problem(f"kinds {sorted(set(reports) - allowed)} do not fit")


def run(
    containers: tuple[str, ...], pages: list[tuple[str, bytes]], points: int, seed: int, seekable: bool = True
) -> dict[str, Tally]:
    """``points`` random damages per container, each applied to a fresh copy of that container's
    archive, read from a stream that can seek (a file) or not (a pipe)."""
    rng = random.Random(seed)
    tallies = {}
    for container in containers:
        archive = build_archive(pages, container)
        originals = read_entries(archive.data)
        if len(originals) != len(archive.spans) or any(entry.kind not in OUTCOMES for entry in originals):
            raise AssertionError(f"the undamaged {container} archive does not read back cleanly")
        tally = tallies[container] = Tally()
        for _ in range(points):
            check(archive, originals, random_damage(rng, archive), tally, seekable)
    return tallies
