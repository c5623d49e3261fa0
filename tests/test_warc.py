"""Web archives generated here with warcio: HTML responses are extracted, everything else counted."""

from __future__ import annotations

import gzip
import io
import json
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

warcio = pytest.importorskip("warcio", reason="warcio (extra 'warc') is not installed")
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

from scrapy_bodytext.archives.entries import WarcUnavailable, iter_archive, looks_like_archive  # noqa: E402
from scrapy_bodytext.cli import main  # noqa: E402

TEXT = "Snow fell on the hills for three days and the road to the pass stayed closed until the ploughs came. "


def page(title: str) -> bytes:
    return (f"<html><body><h1>{title}</h1><p>{TEXT * 4}</p><p>{TEXT * 3}</p></body></html>").encode()


class ArchiveBuilder:
    """Writes records with warcio and remembers where each one starts."""

    def __init__(self, compressed: bool = True):
        self.buffer = io.BytesIO()
        self.writer = WARCWriter(self.buffer, gzip=compressed)
        self.starts: dict[str, int] = {}
        self.count = 0

    def response(
        self,
        url: str,
        body: bytes,
        content_type: str = "text/html; charset=utf-8",
        status: str = "200 OK",
        headers: list[tuple[str, str]] = (),
    ) -> None:
        headers = StatusAndHeaders(status, [("Content-Type", content_type), *headers], protocol="HTTP/1.1")
        self.starts[url] = self.buffer.tell()
        self._write(
            self.writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), length=len(body), http_headers=headers
            )
        )

    def record(self, url: str, kind: str) -> None:
        self.starts[url] = self.buffer.tell()
        if kind == "warcinfo":
            self._write(self.writer.create_warcinfo_record("test.warc.gz", {"software": "tests"}))
        else:
            headers = StatusAndHeaders(f"GET {url} HTTP/1.1", [("Host", "example.org")], is_http_request=True)
            self._write(self.writer.create_warc_record(url, kind, http_headers=headers))

    def _write(self, record) -> None:
        # fixed ids and dates: the same bytes on every run, so damage lands in the same place
        self.count += 1
        record.rec_headers.replace_header("WARC-Record-ID", f"<urn:uuid:00000000-0000-4000-8000-{self.count:012d}>")
        record.rec_headers.replace_header("WARC-Date", "2026-01-02T03:04:05Z")
        self.writer.write_record(record)

    def data(self) -> bytes:
        return self.buffer.getvalue()


def standard_archive(compressed: bool = True) -> ArchiveBuilder:
    """warcinfo, 3 HTML responses, a request, an image, a 404, then 2 more HTML responses."""
    archive = ArchiveBuilder(compressed)
    archive.record("info", "warcinfo")
    archive.response("https://example.org/a", page("First"))
    archive.record("https://example.org/a", "request")
    archive.response("https://example.org/b", page("Second"))
    archive.response("https://example.org/c", page("Third"))
    archive.response("https://example.org/logo.png", b"\x89PNG\r\n\x1a\n" + bytes(300), content_type="image/png")
    archive.response("https://example.org/gone", page("Gone"), status="404 Not Found")
    archive.response("https://example.org/d", page("Fourth"))
    archive.response("https://example.org/e", page("Fifth"))
    return archive


def damage(data: bytes, start: int, compressed: bool = True) -> bytes:
    """Scramble 40 bytes of the record starting at ``start``: inside its deflate stream when
    compressed, over its version line otherwise."""
    damaged = bytearray(data)
    first = start + 20 if compressed else start
    for i in range(first, first + 40):
        damaged[i] ^= 0x5A
    return bytes(damaged)


def entries(data: bytes, max_body_size: int = 10**7):
    return list(iter_archive(io.BytesIO(data), max_body_size=max_body_size))


def run_cli(capsys, *args: str) -> tuple[int, list[dict], dict[str, str]]:
    code = main(["extract", *args])
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    summary = dict(re.findall(r"^([a-z-]+): (.*)$", captured.err, re.MULTILINE))
    return code, rows, summary


@pytest.mark.parametrize("compressed", [True, False])
def test_every_record_is_classified(compressed):
    found = entries(standard_archive(compressed).data())
    kinds = [(e.kind, e.reason, e.url) for e in found]
    assert kinds == [
        ("skipped", "not_response", None),
        ("html", "", "https://example.org/a"),
        ("skipped", "not_response", "https://example.org/a"),
        ("html", "", "https://example.org/b"),
        ("html", "", "https://example.org/c"),
        ("skipped", "not_html", "https://example.org/logo.png"),
        ("skipped", "status", "https://example.org/gone"),
        ("html", "", "https://example.org/d"),
        ("html", "", "https://example.org/e"),
    ]
    assert found[1].body == page("First") and found[1].status == 200
    offsets = [e.offset for e in found]
    assert offsets == sorted(offsets) and offsets[0] == 0


@pytest.mark.parametrize("compressed", [True, False])
def test_a_damaged_record_is_counted_and_reading_resumes_after_it(compressed):
    archive = standard_archive(compressed)
    data = damage(archive.data(), archive.starts["https://example.org/c"], compressed)
    found = entries(data)
    assert [e.kind for e in found].count("damaged") == 1
    error = next(e for e in found if e.kind == "damaged")
    assert error.reason == ("corrupt_gzip" if compressed else "bad_header")
    damaged_from = archive.starts["https://example.org/c"]
    assert damaged_from <= error.offset < damaged_from + 40  # a byte scrambled into a newline is a blank line
    assert error.resumed_at == archive.starts["https://example.org/logo.png"]
    html = [e.url for e in found if e.kind == "html"]
    assert html == ["https://example.org/a", "https://example.org/b", "https://example.org/d", "https://example.org/e"]


@pytest.mark.parametrize("compressed", [True, False])
def test_an_archive_cut_inside_its_last_record_reports_it(compressed):
    archive = standard_archive(compressed)
    data = archive.data()
    last = archive.starts["https://example.org/e"]
    found = entries(data[: last + (len(data) - last) // 2])
    assert [e.url for e in found if e.kind == "html"][-1] == "https://example.org/d"
    assert [(e.kind, e.reason, e.offset) for e in found][-1] == ("damaged", "truncated_record", last)


def test_arc_files_are_read_too():
    def arc_record(url: str, body: bytes, content_type: str) -> bytes:
        return f"{url} 192.0.2.1 20200101000000 {content_type} {len(body)}\n".encode() + body + b"\n"

    head = b"1 0 Tests\nURL IP-address Archive-date Content-type Archive-length\n"
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + page("Old")
    data = arc_record("filedesc://test.arc", head, "text/plain") + arc_record(
        "http://example.org/old", http, "text/html"
    )
    assert looks_like_archive("crawl.bin", data[:512])
    html = [e for e in entries(data) if e.kind == "html"]
    assert [(e.url, e.body) for e in html] == [("http://example.org/old", page("Old"))]


def test_an_archive_gzipped_as_a_whole_is_read_sequentially():
    data = gzip.compress(gzip.decompress(standard_archive().data()))  # one gzip member for all records
    found = entries(data)
    assert [e.url for e in found if e.kind == "html"] == [f"https://example.org/{c}" for c in "abcde"]
    assert not [e for e in found if e.kind == "damaged"]


def test_bodies_over_the_size_limit_are_skipped():
    archive = ArchiveBuilder()
    archive.response("https://example.org/huge", b"<html><body><p>" + b"x " * 300_000 + b"</p></body></html>")
    archive.response("https://example.org/small", page("Small"))
    found = entries(archive.data(), max_body_size=100_000)
    assert [(e.kind, e.reason, e.url) for e in found] == [
        ("skipped", "too_large", "https://example.org/huge"),
        ("html", "", "https://example.org/small"),
    ]


def test_records_are_read_one_at_a_time():
    archive = ArchiveBuilder(compressed=False)
    for i in range(1000):
        archive.response(f"https://example.org/{i}", page(f"Page {i}"))
    data = archive.data()
    stream = io.BytesIO(data)
    records = iter_archive(stream, max_body_size=100_000)
    assert next(records).url == "https://example.org/0"
    assert stream.tell() < len(data) / 4  # the rest of the archive has not been read yet
    assert sum(1 for e in records if e.kind == "html") == 999


def test_archive_detection_by_name_and_content():
    data = standard_archive().data()
    assert looks_like_archive("crawl.warc.gz", b"")
    assert looks_like_archive("crawl", data[:512])
    assert looks_like_archive("crawl", gzip.decompress(data)[:512])
    assert not looks_like_archive("page.html", b"<html><body>WARC/1.0</body></html>")
    assert not looks_like_archive("page.html.gz", gzip.compress(b"<html></html>")[:512])


def test_cli_writes_json_lines_and_a_summary(capsys, tmp_path: Path):
    archive = standard_archive()
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(damage(archive.data(), archive.starts["https://example.org/c"]))
    code, rows, summary = run_cli(capsys, str(path))
    assert code == 1  # every readable record extracted, but the archive is damaged
    assert [row["url"] for row in rows] == [
        "https://example.org/a",
        "https://example.org/b",
        "https://example.org/d",
        "https://example.org/e",
    ]
    for row in rows:
        assert {
            "url",
            "warc_date",
            "offset",
            "status",
            "text",
            "article_probability",
            "is_article",
            "extractor",
            "reason",
        } <= set(row)
        assert "the road to the pass stayed closed" in row["text"]
    articles = sum(row["is_article"] for row in rows)
    assert summary["records"] == "9"
    assert summary["html"] == "4"
    assert summary["articles"] == str(articles)
    assert summary["non-articles"] == str(4 - articles)
    assert summary["skipped"] == "4 (not_response 2, not_html 1, status 1)"
    assert summary["errors"] == "0"
    assert summary["damaged"] == "1 (corrupt_gzip 1)"


def test_cli_sniffs_an_archive_without_suffix_and_writes_to_a_file(capsys, tmp_path: Path):
    path = tmp_path / "crawl.data"
    path.write_bytes(standard_archive(compressed=False).data())
    target = tmp_path / "out.jsonl"
    code, rows, summary = run_cli(capsys, "-o", str(target), str(path))
    assert code == 0 and rows == []
    assert len(target.read_text(encoding="utf-8").splitlines()) == 5
    assert summary["html"] == "5"


def test_cli_reads_an_archive_from_stdin():
    done = subprocess.run(
        [sys.executable, "-m", "scrapy_bodytext", "extract", "-"],
        input=standard_archive().data(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 5
    assert b"records: 9" in done.stderr


def test_without_warcio_the_message_says_what_to_install(capsys, tmp_path: Path, monkeypatch):
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(standard_archive().data())
    monkeypatch.setitem(sys.modules, "warcio.recordloader", None)
    with pytest.raises(WarcUnavailable):
        next(iter_archive(io.BytesIO(b"WARC/1.0\r\n"), max_body_size=10))
    assert main(["extract", str(path)]) == 1
    assert "pip install 'scrapy-bodytext[warc]'" in capsys.readouterr().err


def test_http_bodies_are_dechunked_and_decompressed():
    body = page("Encoded")
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:100], body[100:])) + b"0\r\n\r\n"
    archive = ArchiveBuilder()
    archive.response("https://example.org/gzip", gzip.compress(body), headers=[("Content-Encoding", "gzip")])
    archive.response(
        "https://example.org/chunked-gzip",
        b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (gzip.compress(body),)) + b"0\r\n\r\n",
        headers=[("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
    )
    archive.response("https://example.org/chunked", chunked, headers=[("Transfer-Encoding", "chunked")])
    archive.response("https://example.org/deflate", zlib.compress(body), headers=[("Content-Encoding", "deflate")])
    archive.response("https://example.org/stored-decoded", body, headers=[("Content-Encoding", "gzip")])
    broken = bytearray(gzip.compress(body))
    broken[30:60] = bytes(b ^ 0x5A for b in broken[30:60])
    archive.response("https://example.org/broken", bytes(broken), headers=[("Content-Encoding", "gzip")])
    found = {e.url.rsplit("/", 1)[1]: e for e in entries(archive.data())}
    for name in ("gzip", "chunked-gzip", "chunked", "deflate", "stored-decoded"):
        assert (found[name].kind, found[name].body) == ("html", body), name
    assert (found["broken"].kind, found["broken"].reason) == ("skipped", "bad_payload")
    assert "Content-Encoding" in found["broken"].detail


def test_pages_can_be_extracted_by_an_ordered_map_of_the_callers_choice(capsys):
    """The hook a parallel run uses: pages in, results out in the same order, rows as without it."""
    from concurrent.futures import ThreadPoolExecutor

    from scrapy_bodytext.api import extract_with_config
    from scrapy_bodytext.cli.archive import extract_archive
    from scrapy_bodytext.config import ExtractConfig

    config = ExtractConfig()
    data = standard_archive().data()
    alone, pooled = io.StringIO(), io.StringIO()
    assert extract_archive(io.BytesIO(data), "a", config, alone) == 0
    with ThreadPoolExecutor(2) as pool:

        def extract_many(pages):
            return pool.map(lambda p: extract_with_config(p[0], config, url=p[1], content_type=p[2]), pages)

        assert extract_archive(io.BytesIO(data), "a", config, pooled, extract_many=extract_many) == 0
    assert pooled.getvalue() == alone.getvalue() and len(alone.getvalue().splitlines()) == 5
    first, second = capsys.readouterr().err.split("== a\n")[1:]
    assert first == second


def test_a_read_error_midway_is_one_line_and_exit_1(capsys):
    """A disk or pipe failing under the reader: the rows read so far are written, then one line."""
    from scrapy_bodytext.cli.archive import extract_archive
    from scrapy_bodytext.config import ExtractConfig

    archive = ArchiveBuilder()
    for i in range(300):
        archive.response(f"https://example.org/{i}", page(f"Page {i}") + bytes(range(256)) * 8)  # ~2 kB each
    data = archive.data()

    class Failing(io.RawIOBase):
        def __init__(self):
            self.data = io.BytesIO(data[: len(data) // 2])

        def readable(self):
            return True

        def readinto(self, buffer):
            read = self.data.readinto(buffer)
            if not read:
                raise OSError(5, "Input/output error")
            return read

    out = io.StringIO()
    assert extract_archive(io.BufferedReader(Failing()), "crawl.warc.gz", ExtractConfig(), out) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("scrapy-bodytext extract: crawl.warc.gz: read error after ")
    assert "Input/output error" in err and out.getvalue().count("\n") > 50
