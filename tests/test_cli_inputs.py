"""The command line over many inputs, run as users run it (the console script in a subprocess): folders,
path lists, worker processes that keep the input order, the verdict on each page, the version, and
encodings."""

from __future__ import annotations

import gzip
import io
import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sample_pages import link_list_page

import scrapy_bodytext
from scrapy_bodytext import _core
from scrapy_bodytext.cli.inputs import DEFAULT_GLOBS, matches
from scrapy_bodytext.cli.parallel import INPUTS_PER_WORKER, worker_count
from scrapy_bodytext.workers.executors import usable_cpus

SITE = Path(__file__).resolve().parent / "site"
SCRIPT = Path(sys.executable).with_name("scrapy-bodytext")
PARAGRAPH = (
    "The ferry crossed the sound twice a day all winter, and the crew kept a log of every seal, "
    "storm and late passenger in a blue notebook that now lives in the town museum. "
)


#: the line a run whose pages have no URL says once (tests/test_cli_urls.py tests it)
WITHOUT_URL_WARNING = "scrapy-bodytext extract: warning: pages judged without their URL"


def stderr_lines(err: bytes) -> list[str]:
    """The lines of a run's stderr but the once-per-run warning on pages judged without their URL
    (said at most once)."""
    lines = err.decode().splitlines()
    assert sum(line.startswith(WITHOUT_URL_WARNING) for line in lines) <= 1, lines
    return [line for line in lines if not line.startswith(WITHOUT_URL_WARNING)]


def command() -> list[str]:
    """The installed console script (``python -m scrapy_bodytext`` where the script is not installed)."""
    return [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "scrapy_bodytext"]


def cli(*args: str, stdin: bytes = b"", cwd: Path | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*command(), *args], input=stdin, capture_output=True, timeout=300, check=False, cwd=cwd, **kwargs
    )


def json_rows(done: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]


def article(title: str) -> str:
    return (
        f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav><article>"
        f"<h1>{title}</h1><p>{PARAGRAPH * 3}</p><p>{PARAGRAPH * 2}</p></article></body></html>"
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A folder of pages at several depths, with names the default glob takes and others it leaves."""
    root = tmp_path / "pages"
    for relative, text in {
        "b.html": article("Bravo"),
        "a.htm": article("Alpha"),
        "notes.txt": "not a page",
        "sub/c.html.gz": article("Charlie"),
        "sub/D.HTML": article("Delta"),
        "sub/image.png": "\x89PNG",
        "sub/deeper/e.xhtml": article("Echo"),
    }.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(gzip.compress(data) if relative.endswith(".gz") else data)
    return root


EXPECTED_ORDER = ["a.htm", "b.html", "sub/D.HTML", "sub/c.html.gz", "sub/deeper/e.xhtml"]


def test_version():
    for cmd in (command(), [sys.executable, "-m", "scrapy_bodytext"]):
        done = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"scrapy-bodytext {scrapy_bodytext.__version__} (core: {_core.build()})\n"


def test_a_folder_is_searched_recursively_for_html_names(tree):
    done = cli("extract", "--json", str(tree))
    assert done.returncode == 0, done.stderr
    rows = json_rows(done)
    assert [row["path"] for row in rows] == [str(tree / name) for name in EXPECTED_ORDER]
    assert [row["title"] for row in rows] == ["Alpha", "Bravo", "Delta", "Charlie", "Echo"]
    assert all(row["is_article"] for row in rows)


def test_glob_chooses_the_files_taken_from_folders(tree):
    done = cli("extract", "--json", "--glob", "*.gz", "--glob", "*.xhtml", str(tree))
    assert [row["path"] for row in json_rows(done)] == [str(tree / "sub/c.html.gz"), str(tree / "sub/deeper/e.xhtml")]
    done = cli("extract", "--json", "--glob", "sub/*.html", str(tree))  # a / matches the path below the folder
    assert [row["path"] for row in json_rows(done)] == [str(tree / "sub/D.HTML")]


def test_the_default_glob_takes_usual_page_names_only():
    for name in ("a.html", "A.HTM", "x/y.shtml", "page.xhtml", "p.html.gz", "P.HTM.GZ"):
        assert matches(name, DEFAULT_GLOBS), name
    for name in ("a.txt", "a.html.bak", "image.png", "crawl.warc.gz", "html"):
        assert not matches(name, DEFAULT_GLOBS), name


def test_a_folder_without_a_matching_file_is_reported_and_the_rest_goes_on(tree, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    done = cli("extract", "--json", str(empty), str(tree / "a.htm"))
    assert done.returncode == 1
    assert [row["title"] for row in json_rows(done)] == ["Alpha"]
    assert stderr_lines(done.stderr) == [f"scrapy-bodytext extract: {empty}: no file matches {' '.join(DEFAULT_GLOBS)}"]


def test_missing_paths_get_one_clear_line_each_and_no_traceback(tree, tmp_path):
    missing = tmp_path / "nowhere" / "page.html"
    done = cli("extract", "--json", str(missing), str(tree), "--jobs", "2")
    assert done.returncode == 1
    assert stderr_lines(done.stderr) == [f"scrapy-bodytext extract: {missing}: No such file or directory"]
    assert len(json_rows(done)) == len(EXPECTED_ORDER)


def test_an_input_file_lists_paths_and_folders(tree, tmp_path):
    listing = tmp_path / "list.txt"
    listing.write_text(f"{tree / 'sub' / 'deeper'}\n\n{tree / 'b.html'}\n{tree / 'a.htm'}\n", encoding="utf-8")
    done = cli("extract", "--json", str(tree / "sub" / "D.HTML"), "--input-file", str(listing))
    assert done.returncode == 0, done.stderr
    assert [row["title"] for row in json_rows(done)] == ["Delta", "Echo", "Bravo", "Alpha"]
    piped = cli("extract", "--json", "-i", "-", stdin=listing.read_bytes())
    assert [row["title"] for row in json_rows(piped)] == ["Echo", "Bravo", "Alpha"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--input-file", "/nonexistent/list.txt"], "--input-file /nonexistent/list.txt: No such file or directory"),
        (["--input-file", "-", "-"], "standard input cannot be both the --input-file list and a page"),
        ([], "nothing to read"),
        (["--jobs", "0", "x.html"], "--jobs: expected a whole number of at least 1, got '0'"),
    ],
)
def test_input_usage_errors(args, message):
    done = cli("extract", *args)
    assert done.returncode == 2
    assert message in done.stderr.decode()
    assert b"Traceback" not in done.stderr


def test_an_empty_list_is_reported(tmp_path):
    listing = tmp_path / "empty.txt"
    listing.write_text("\n", encoding="utf-8")
    done = cli("extract", "--input-file", str(listing))
    assert done.returncode == 1
    assert done.stderr.decode() == f"scrapy-bodytext extract: {listing}: lists no input\n"


def write_warc(path: Path, pages: dict[str, str]) -> None:
    warcio = pytest.importorskip("warcio", reason="warcio (extra 'warc') is not installed")
    from warcio.statusandheaders import StatusAndHeaders

    with open(path, "wb") as stream:
        writer = warcio.warcwriter.WARCWriter(stream, gzip=True)
        for url, text in pages.items():
            body = text.encode("utf-8")
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), length=len(body), http_headers=headers
                )
            )


@pytest.fixture
def mixed(tmp_path: Path) -> list[str]:
    """Inputs of every kind, in a fixed order: pages of the test site (articles and listings), an empty
    file, a damaged gzip file, a missing file and a web archive in the middle."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    names = []
    for number, page in enumerate(sorted(SITE.glob("*.html")) * 3):
        target = folder / f"{number:02d}-{page.name}"
        shutil.copyfile(page, target)
        names.append(str(target))
    (folder / "empty.html").write_bytes(b"")
    (folder / "damaged.html.gz").write_bytes(gzip.compress(article("Damaged").encode())[:15] + b"\xff" * 40)
    archive = folder / "crawl.warc.gz"
    write_warc(archive, {f"https://example.org/{i}": article(f"Archived {i}") for i in range(3)})
    middle = len(names) // 2
    return [
        *names[:middle],
        str(folder / "empty.html"),
        str(archive),
        str(folder / "missing.html"),
        str(folder / "damaged.html.gz"),
        *names[middle:],
    ]


@pytest.mark.parametrize("mode", [["--json"], []], ids=["json", "text"])
def test_worker_processes_give_the_same_output_in_the_same_order(mixed, mode):
    runs = {jobs: cli("extract", *mode, "--jobs", jobs, *mixed) for jobs in ("1", "3")}
    one, three = runs["1"], runs["3"]
    assert one.returncode == three.returncode == 1  # the missing and the damaged file
    assert three.stdout == one.stdout
    assert three.stderr == one.stderr
    if mode:
        rows = json_rows(three)
        pages = [row["path"] for row in rows if "path" in row]
        assert pages == [
            name for name in mixed if "missing" not in name and "damaged" not in name and not name.endswith(".warc.gz")
        ]
        archived = [row["url"] for row in rows if "warc_date" in row]
        assert archived == [f"https://example.org/{i}" for i in range(3)]
        position = [row.get("path") for row in rows].index(mixed[len(mixed) // 2 - 3])
        assert rows[position + 1].get("path", "").endswith("empty.html")
        assert "warc_date" in rows[position + 2]  # the archive's records in the archive's place


def expected_verdict(row: dict) -> str:
    judged = "article" if row["is_article"] else "not an article" if row["text"] else "no main text"
    sign = ">=" if row["article_probability"] >= 0.5 else "<"
    reason = row["reason"] + (f": {row['detail']}" if row["reason"] != "ok" and row["detail"] else "")
    return f"== {row['path']}: {judged} (P(article) {row['article_probability']:.2f} {sign} 0.50, {reason})"


def test_plain_text_shows_the_verdict_of_each_page_on_stderr(tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    listing = tmp_path / "listing.html"
    listing.write_text(link_list_page(60), encoding="utf-8")
    pages = [str(SITE / "article-bakery.html"), str(listing), str(empty)]
    done = cli("extract", *pages)
    assert done.returncode == 0
    lines = stderr_lines(done.stderr)
    rows = json_rows(cli("extract", "--json", *pages))
    assert lines == [expected_verdict(row) for row in rows]
    assert [line.split(": ", 1)[1].split(" (")[0] for line in lines] == ["article", "not an article", "no main text"]
    assert lines[2] == f"== {empty}: no main text (P(article) 0.00 < 0.50, empty: empty body)"
    out = done.stdout.decode()
    assert out.index(f"==> {pages[0]} <==") < out.index(f"==> {pages[1]} <==") < out.index(f"==> {pages[2]} <==")
    quiet = cli("extract", "--quiet", *pages)
    assert stderr_lines(quiet.stderr) == [] and quiet.stdout == done.stdout
    assert stderr_lines(cli("extract", "--json", *pages).stderr) == []


def test_a_threshold_moves_the_verdict(tmp_path):
    page = tmp_path / "listing.html"
    page.write_text(link_list_page(60), encoding="utf-8")
    assert json_rows(cli("extract", "--json", str(page)))[0]["is_article"] is False
    done = cli("extract", "--threshold", "0", str(page))
    [line] = stderr_lines(done.stderr)
    assert line.startswith(f"== {page}: article (") and line.endswith(" >= 0.00, ok)")


@pytest.mark.parametrize("label", ["klingon", "base64", "rot13", ""])
def test_unknown_encodings_are_refused(label):
    done = cli("extract", "--encoding", label, str(SITE / "article-bakery.html"))
    assert done.returncode == 2
    assert f"argument --encoding: unknown text encoding {label!r}" in done.stderr.decode()
    assert done.stdout == b""


def test_a_known_encoding_is_used(tmp_path):
    page = tmp_path / "legacy.html"
    page.write_bytes(article("Caf\u00e9 cr\u00e8me").encode("cp1252"))  # no charset declared
    for label, title in (
        ("windows-1252", "Caf\u00e9 cr\u00e8me"),
        ("latin1", "Caf\u00e9 cr\u00e8me"),
        ("koi8-r", "Caf\u0418 cr\u0425me"),
    ):
        row = json_rows(cli("extract", "--json", "--encoding", label, str(page)))[0]
        assert row["title"] == title, label


def test_progress_shows_on_a_terminal_while_the_output_goes_to_a_file(tree, tmp_path):
    """stderr is a real pseudo-terminal here; the progress line counts the pages and is cleared at the end."""
    primary, secondary = pty.openpty()
    target = tmp_path / "out.jsonl"
    with subprocess.Popen(
        [*command(), "extract", "--json", "-o", str(target), "--jobs", "2", str(tree)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=secondary,
    ) as process:
        os.close(secondary)
        screen = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            screen += chunk
        assert process.wait(timeout=120) == 0
    os.close(primary)
    assert f"extract: {len(EXPECTED_ORDER)}/{len(EXPECTED_ORDER)} pages (100%)".encode() in screen
    assert screen.endswith(b"\r\x1b[K")
    assert len(target.read_text("utf-8").splitlines()) == len(EXPECTED_ORDER)


def test_worker_count_follows_the_request_and_keeps_small_runs_in_process():
    assert worker_count(None, 1) == 1
    assert worker_count(None, INPUTS_PER_WORKER - 1) == 1  # starting a worker would cost more than it saves
    assert worker_count(None, 100 * INPUTS_PER_WORKER) == max(1, usable_cpus().count)
    assert worker_count(4, 2) == 2  # never more workers than inputs
    assert worker_count(3, 1000) == 3


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                pid = int(stat.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def _readers_of(path: Path, ancestor: int) -> list[int]:
    """Processes started by ``ancestor`` that hold ``path`` open."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _descends_from(int(entry.name), ancestor):
            try:
                if any(os.readlink(fd) == str(path) for fd in (entry / "fd").iterdir()):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to find the worker process")
def test_a_worker_that_dies_costs_only_its_page(tmp_path):
    """A worker killed in the middle of a page (as the out-of-memory killer would): that page gets a row
    with reason error, every other page is extracted, in order."""
    pages = [tmp_path / f"{number}.html" for number in range(6)]
    for number, page in enumerate(pages):
        page.write_text(article(f"Page {number}"), encoding="utf-8")
    stuck = tmp_path / "stuck.html"
    os.mkfifo(stuck)  # a worker opening it waits for a writer that never comes
    names = [*map(str, pages[:3]), str(stuck), *map(str, pages[3:])]
    with subprocess.Popen(
        [*command(), "extract", "--json", "--jobs", "2", *names], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        writer = None
        for _ in range(600):  # the worker's open() returns once a writer comes: be that writer, write nothing
            try:
                writer = os.open(stuck, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:  # no reader yet
                time.sleep(0.1)
        assert writer is not None, "no worker opened the named pipe"
        try:
            readers = []
            for _ in range(100):
                readers = _readers_of(stuck, process.pid)
                if readers:
                    break
                time.sleep(0.1)
            assert len(readers) == 1, readers
            os.kill(readers[0], signal.SIGKILL)
        finally:
            os.close(writer)
        out, err = process.communicate(timeout=120)
    assert process.returncode == 0
    rows = [json.loads(line) for line in out.decode().splitlines()]
    assert [row["path"] for row in rows] == names
    assert [row["title"] for row in rows if row["path"] != str(stuck)] == [f"Page {n}" for n in range(6)]
    lost = rows[3]
    assert (lost["reason"], lost["text"], lost["is_article"]) == ("error", "", False)
    assert lost["detail"] == "extraction worker died during the job (exit code -9)"
    assert stderr_lines(err) == [
        "scrapy-bodytext extract: Extraction worker died during the job (exit code -9); starting a new one"
    ]


def test_ctrl_c_stops_the_workers_quietly(tmp_path):
    """Ctrl-C reaches the whole foreground process group: the command exits 130 with no traceback from
    the command or its workers, and leaves no process behind."""
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(400):
        shutil.copyfile(SITE / "article-bakery.html", folder / f"{number:03d}.html")
    target = tmp_path / "out.jsonl"
    process = subprocess.Popen(
        [*command(), "extract", "--json", "--jobs", "2", "-o", str(target), str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        for _ in range(1200):
            if target.exists() and target.stat().st_size > 0 or process.poll() is not None:
                break
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before it could be interrupted"
        descendants = [
            int(entry.name)
            for entry in Path("/proc").iterdir()
            if entry.name.isdigit() and _descends_from(int(entry.name), process.pid)
        ]
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert stderr_lines(err) == [] and out == b""
    left = []
    for _ in range(100):
        left = [pid for pid in descendants if pid != process.pid and _alive(pid)]
        if not left:
            break
        time.sleep(0.1)
    assert left == [], [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in left]


def _alive(pid: int) -> bool:
    """Running (a zombie, or a number reused by another process, does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text("ascii")
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"
