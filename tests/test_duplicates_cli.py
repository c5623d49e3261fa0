"""The duplicate flag outside a crawl: ``scrapy-bodytext extract --duplicates`` over files and web
archives, and the datatrove step's ``duplicates`` argument, on the duplicated news site of
``duplicate_site`` (first copy in input order kept as it is, later copies flagged or left out)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from duplicate_site import site
from test_cli_inputs import write_warc

from scrapy_bodytext.cli import main

SERVED, COPIES = site()
#: the copies of two stories, in the order they are written to disk (their file names sort the same way)
PATHS = [
    path for path in dict.fromkeys(target.split("?")[0] for target in COPIES) if "/ferry" in path or "/bridge" in path
]


def slug(path: str) -> str:
    return next(story for target, (story, _) in COPIES.items() if target.split("?")[0] == path)


@pytest.fixture
def pages(tmp_path: Path) -> list[Path]:
    """Each copy as a file, numbered in crawl order, and the site's listing page (not an article)."""
    written = []
    for number, path in enumerate([*PATHS, "/index.html"]):
        file = tmp_path / "pages" / f"{number:02d}-{path.strip('/').replace('/', '-')}"
        file.parent.mkdir(exist_ok=True)
        file.write_bytes(SERVED[path][0])
        written.append(file)
    return written


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["extract", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_extract_flags_later_copies_with_the_first_ones_path(capsys, pages):
    code, out, _ = run(capsys, "--json", "--duplicates", "flag", str(pages[0].parent))
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["path"] for row in rows] == [str(page) for page in pages]
    first: dict[str, str] = {}
    for row, path in zip(rows[:-1], PATHS, strict=True):
        story = slug(path)
        if story not in first:
            first[story] = row["path"]
            assert "duplicate_of" not in row
        else:
            assert row["duplicate_of"] == first[story] and 0.5 <= row["duplicate_similarity"] <= 1.0
    assert "duplicate_of" not in rows[-1]  # the listing: not an article, never looked up
    code, out, _ = run(capsys, "--json", str(pages[0].parent))  # off by default: output unchanged
    assert all("duplicate_of" not in json.loads(line) for line in out.splitlines())


def test_extract_drops_later_copies_and_says_so(capsys, pages):
    code, out, err = run(capsys, "--duplicates", "drop", "--format", "markdown", *map(str, pages))
    assert code == 0
    kept = [line.removeprefix("==> ").removesuffix(" <==") for line in out.splitlines() if line.startswith("==> ")]
    assert kept == [str(pages[0]), str(pages[PATHS.index("/news/bridge.html")]), str(pages[-1])]
    dropped = [line for line in err.splitlines() if ": dropped, duplicate of " in line]
    assert len(dropped) == len(PATHS) - 2


def test_extract_over_archives_drops_what_an_earlier_archive_stored(capsys, tmp_path):
    day1, day2 = tmp_path / "day1.warc.gz", tmp_path / "day2.warc.gz"
    write_warc(day1, {f"https://example.org{path}": SERVED[path][0].decode() for path in PATHS[:3]})
    write_warc(day2, {f"https://example.org{path}": SERVED[path][0].decode() for path in PATHS[3:]})
    code, out, err = run(capsys, "--duplicates", "drop", str(day1), str(day2))
    assert code == 0
    urls = [json.loads(line)["url"] for line in out.splitlines()]
    assert urls == [f"https://example.org{PATHS[0]}", f"https://example.org{PATHS[PATHS.index('/news/bridge.html')]}"]
    counted = [int(line.split(": ")[1]) for line in err.splitlines() if line.startswith("duplicates: ")]
    assert counted == [2, 4]  # each archive's summary: day 1 repeats the ferry twice, day 2 the rest
    code, out, _ = run(capsys, "--duplicates", "flag", str(day1), str(day2))
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row.get("duplicate_of") is None for row in rows] == [
        PATHS.index(path) in (0, PATHS.index("/news/bridge.html")) for path in PATHS
    ]


def test_extract_refuses_a_similarity_out_of_range(capsys, pages):
    with pytest.raises(SystemExit):
        main(["extract", "--duplicates", "flag", "--duplicate-similarity", "0", str(pages[0])])
    assert "expected a number in (0, 1]" in capsys.readouterr().err


datatrove = pytest.importorskip("datatrove", reason="datatrove (extra 'datatrove') is not installed")


def documents():
    from datatrove.data import Document

    return [
        Document(text=SERVED[path][0].decode(), id=str(number), metadata={"url": f"https://example.org{path}"})
        for number, path in enumerate(PATHS)
    ]


def test_the_datatrove_step_flags_and_drops_later_copies():
    from scrapy_bodytext.integrations.datatrove import BodyTextExtractor

    flagged = list(BodyTextExtractor(duplicates="flag").run(iter(documents())))
    assert len(flagged) == len(PATHS)
    firsts = [doc for doc in flagged if "duplicate_of" not in doc.metadata]
    assert [doc.metadata["url"] for doc in firsts] == [
        f"https://example.org{PATHS[0]}",
        "https://example.org/news/bridge.html",
    ]
    for doc in flagged:
        if doc not in firsts:
            story = slug(doc.metadata["url"].removeprefix("https://example.org"))
            assert doc.metadata["duplicate_of"] == next(f.metadata["url"] for f in firsts if story in f.metadata["url"])
    step = BodyTextExtractor(duplicates="drop", output_format="markdown")
    kept = list(step.run(iter(documents())))
    assert [doc.metadata["url"] for doc in kept] == [doc.metadata["url"] for doc in firsts]
    assert step.stats["dropped_duplicate"].total == len(PATHS) - 2


@pytest.mark.parametrize(
    "arguments, message",
    [({"duplicates": "yes"}, "duplicates must be one of"), ({"duplicate_similarity": 0}, "duplicate_similarity")],
)
def test_the_datatrove_steps_duplicate_arguments_are_checked(arguments, message):
    from scrapy_bodytext.integrations.datatrove import BodyTextExtractor

    with pytest.raises(ValueError, match=message):
        BodyTextExtractor(**arguments)
