"""Damaged web archives: hundreds of damages at random places (fixed seeds), and no intact record lost.

Archives of real pages are written with warcio (WARC) or by hand (ARC), gzipped per record or not,
then damaged one place at a time by ``archive_damage``: bytes flipped, a stretch cut out, garbage
inserted, the tail cut off, at the start, header, middle or end of records, on record boundaries or
anywhere. Every record the damage did not touch must come out exactly as from the undamaged archive,
damage must be reported once per damaged stretch with a kind that fits, and nothing may raise.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("warcio", reason="warcio (extra 'warc') is not installed")
from archive_damage import (  # noqa: E402
    CONTAINERS,
    Damage,
    Tally,
    build_archive,
    bundled_pages,
    entry_key,
    pick_pages,
    read_entries,
    run,
)

POINTS = 100  # damages per container on corpus pages: 400 in all
BUNDLED_POINTS = 40  # per container on the bundled pages, which run everywhere


def assert_promises_kept(tally: Tally, points: int) -> None:
    assert tally.problems == [], "\n".join(tally.problems[:20])
    assert tally.points == points
    assert tally.intact_lost == 0
    assert tally.intact_extracted == tally.intact > 0
    assert tally.damaged > points // 2 and sum(tally.reports.values()) > points // 2  # the damage did bite


@pytest.mark.corpus
@pytest.mark.parametrize("container", CONTAINERS)
def test_no_intact_record_is_lost_from_archives_of_corpus_pages(corpus, container):
    pages = pick_pages([(page.url or f"https://example.org/{page.id}", page.body) for page in corpus], 12, seed=7)
    tally = run((container,), pages, POINTS, seed=CONTAINERS.index(container))[container]
    assert_promises_kept(tally, POINTS)
    expected_kinds = (
        {"corrupt_gzip", "truncated_record"} if container.endswith(".gz") else {"bad_header", "truncated_record"}
    )
    assert expected_kinds <= set(tally.reports)


@pytest.mark.parametrize("container", CONTAINERS)
def test_no_intact_record_is_lost_from_archives_of_bundled_pages(container):
    pages = pick_pages(bundled_pages(), 16, seed=3)
    tally = run((container,), pages, BUNDLED_POINTS, seed=100 + CONTAINERS.index(container))[container]
    assert_promises_kept(tally, BUNDLED_POINTS)


@pytest.mark.parametrize("container", ["warc.gz", "warc"])
def test_a_stream_that_cannot_seek_resynchronises_too(container):
    pages = pick_pages(bundled_pages(), 16, seed=5)
    tally = run((container,), pages, BUNDLED_POINTS, seed=200, seekable=False)[container]
    assert_promises_kept(tally, BUNDLED_POINTS)


def test_each_of_several_damaged_records_is_reported_once():
    archive = build_archive(pick_pages(bundled_pages(), 16, seed=9), "warc.gz")
    originals = read_entries(archive.data)
    data = archive.data
    hit = [5, 12, 20]
    for index in reversed(hit):  # flip 20 bytes in the middle of three members
        span = archive.spans[index]
        middle = (span.start + span.end) // 2
        data = Damage("flip", "middle", middle, 20, b"\x5a" * 20).apply(data)
    found = read_entries(data)
    assert [(e.kind, e.reason, e.offset) for e in found if e.kind == "damaged"] == [
        ("damaged", "corrupt_gzip", archive.spans[index].start) for index in hit
    ]
    assert [entry_key(e) for e in found if e.kind != "damaged"] == [
        entry_key(e) for i, e in enumerate(originals) if i not in hit
    ]


def test_an_archive_gzipped_as_a_whole_keeps_what_came_before_the_damage():
    """One gzip member for all records: after damage there is no member to resume at (a known limit)."""
    archive = build_archive(pick_pages(bundled_pages(), 16, seed=9), "warc")
    whole = bytearray(gzip.compress(archive.data, mtime=0))
    middle = len(whole) // 2
    whole[middle : middle + 20] = bytes(b ^ 0x5A for b in whole[middle : middle + 20])
    found = read_entries(bytes(whole))
    assert [(e.kind, e.reason, e.resumed_at) for e in found if e.kind == "damaged"] == [
        ("damaged", "corrupt_gzip", None)
    ]
    good = [entry_key(e) for e in found if e.kind != "damaged"]
    assert len(good) > 10 and good == [entry_key(e) for e in read_entries(archive.data)][: len(good)]


def test_the_cli_reports_each_damaged_record_on_one_line_and_exits_1(tmp_path: Path):
    """50 pages, 50 bytes flipped in the middle of the largest response: one line on stderr (none from
    warcio), every other page extracted, the summary counts the damaged record."""
    pages = pick_pages(bundled_pages(), 50, seed=11, max_size=10**7)
    archive = build_archive(pages, "warc.gz")
    largest = max((span for span in archive.spans), key=lambda span: span.end - span.start)
    middle = (largest.start + largest.end) // 2
    path = tmp_path / "crawl.warc.gz"
    path.write_bytes(Damage("flip", "middle", middle, 50, bytes(range(1, 51))).apply(archive.data))
    done = subprocess.run(
        [sys.executable, "-m", "scrapy_bodytext", "extract", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    damage_lines = [line for line in lines if "damaged" in line and ":" in line.split("damaged")[0]]
    assert len(damage_lines) == 1
    assert re.fullmatch(
        rf"scrapy-bodytext extract: {re.escape(str(path))}: damaged record at offset {largest.start} "
        rf"\(corrupt_gzip: Error -3 while decompressing data: [a-z ]+\); "
        rf"reading resumed at offset {largest.end}",
        damage_lines[0],
    )
    summary = dict(re.findall(r"^([a-z-]+): (.*)$", done.stderr, re.MULTILINE))
    assert len(lines) == 1 + 1 + len(summary)  # the damage line, "== path", the summary: nothing else
    assert summary["records"] == str(len(archive.spans))
    assert summary["damaged"] == "1 (corrupt_gzip 1)"
    assert summary["html"] == str(len(done.stdout.splitlines())) == "49"


def test_damage_at_the_very_start_does_not_hide_the_rest():
    archive = build_archive(pick_pages(bundled_pages(), 8, seed=1), "warc.gz")
    for garbage in (b"\x1f\x8b\x08\x00junk", b"not an archive at all\r\n"):
        found = read_entries(garbage + archive.data)
        assert [(e.kind, e.reason, e.offset, e.resumed_at) for e in found][0] == (
            "damaged",
            "corrupt_gzip",
            0,
            len(garbage),
        )
        assert [entry_key(e) for e in found[1:]] == [entry_key(e) for e in read_entries(archive.data)]


def test_a_file_cut_inside_its_first_line_is_a_truncated_record():
    archive = build_archive(pick_pages(bundled_pages(), 2, seed=1), "warc")
    assert [(e.kind, e.reason) for e in read_entries(archive.data[:5])] == [("damaged", "truncated_record")]
    assert read_entries(b"") == []
    assert [(e.kind, e.reason) for e in read_entries(b"\x1f")] == [("damaged", "truncated_record")]
