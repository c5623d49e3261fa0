#!/usr/bin/env python
"""Throughput of archive extraction: datatrove's local executor running ``ArchiveReader`` ->
``BodyTextExtractor`` -> ``JsonlWriter`` with 1, 2, ... workers, against the plain
``scrapy-bodytext extract`` command, on the same web archives.

    python benchmarks/datatrove_throughput.py [DIR] [--pages N] [--files F] [--workers N[,N...]] [--rounds R]

DIR defaults to ../shared/corpus/dev next to the checkout; its pages (or N evenly spaced ones) are
written with warcio into F ``.warc.gz`` files (a request and a ``text/html`` response per page, the
charset where the corpus states one). Every configuration runs in a fresh process, round after round
(alternating), and the table gives medians:

* pages/s: HTML responses / wall-clock seconds of the whole run, start-up (imports, the executor's
  process pool, each task's extraction process) included; it depends on what else the machine runs
  (the load average before and after is printed);
* CPU ms/page: CPU time (user + system) of the run and of every process it started, per page; the
  executor runs with ``start_method="fork"`` here so that its pool's processes are its own children
  and their CPU time is counted (the default, forkserver, parents them to the forkserver);
* pages/s per core: 1000 / CPU ms per page, what one core busy with nothing else gives; unlike
  pages/s it hardly depends on the other jobs of the machine.

Both write the same pages: the command one JSON line per HTML response (articles or not), the
executor the articles only; the number of articles of both is printed and must match. This is a
measurement script, not a test: on a shared machine run several rounds.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from crawl_benchmark import selected_rows  # the script's own folder is on sys.path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus" / "dev"
COMMAND = "scrapy-bodytext extract"


def write_archives(corpus: Path, rows: list[dict], folder: Path, files: int) -> None:
    """The pages in ``files`` .warc.gz files, round robin."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    outputs = [open(folder / f"corpus-{number:03d}.warc.gz", "wb") for number in range(files)]  # noqa: SIM115
    try:
        writers = [WARCWriter(output, gzip=True) for output in outputs]
        for number, row in enumerate(rows):
            writer = writers[number % files]
            url = row["url"] or f"https://example.org/{row['id']}"
            body = gzip.decompress((corpus / row["file"]).read_bytes())
            content_type = "text/html" + (f"; charset={row['charset']}" if row.get("charset") else "")
            request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "example.org")], is_http_request=True)
            writer.write_record(writer.create_warc_record(url, "request", http_headers=request))
            http = StatusAndHeaders("200 OK", [("Content-Type", content_type)], protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(
                    url, "response", payload=io.BytesIO(body), length=len(body), http_headers=http
                )
            )
    finally:
        for output in outputs:
            output.close()


def run_executor(folder: str, output: str, workers: int) -> None:
    """The datatrove run itself (in its own process: ``--executor``)."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.writers import JsonlWriter

    from scrapy_bodytext.integrations.datatrove import ArchiveReader, BodyTextExtractor

    tasks = len(list(Path(folder).glob("*.warc.gz")))
    LocalPipelineExecutor(
        [ArchiveReader(folder, glob_pattern="*.warc.gz"), BodyTextExtractor(fields="metadata"), JsonlWriter(output)],
        tasks=tasks,
        workers=workers,
        logging_dir=str(Path(output) / "logs"),
        start_method="fork",
        skip_completed=False,
    ).run()


def timed(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (the command and every process it started and reaped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def command_run(folder: Path, out: Path) -> tuple[float, float, int]:
    archives = sorted(str(path) for path in folder.glob("*.warc.gz"))
    output = out / "command.jsonl"
    wall, cpu = timed([sys.executable, "-m", "scrapy_bodytext", "extract", *archives, "-o", str(output)])
    articles = sum(json.loads(line)["is_article"] for line in output.read_text(encoding="utf-8").splitlines())
    return wall, cpu, articles


def executor_run(folder: Path, out: Path, workers: int, round_number: int) -> tuple[float, float, int]:
    output = out / f"datatrove-{workers}-{round_number}"  # a fresh folder: every task runs, every round
    wall, cpu = timed([sys.executable, __file__, "--executor", str(folder), str(output), str(workers)])
    articles = sum(len(gzip.decompress(path.read_bytes()).splitlines()) for path in output.glob("*.jsonl.gz"))
    return wall, cpu, articles


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS), type=Path)
    parser.add_argument("--pages", type=int)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--executor", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.executor:
        run_executor(args.executor[0], args.executor[1], int(args.executor[2]))
        return 0
    rows = selected_rows(args.corpus, args.pages)
    counts = [int(part) for part in args.workers.split(",")]
    configurations = {
        COMMAND: (1, None),
        **{f"datatrove local executor, {n} worker{'s' if n > 1 else ''}": (n, n) for n in counts},
    }
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in configurations}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as temporary:
        folder, out = Path(temporary) / "warcs", Path(temporary) / "out"
        folder.mkdir()
        out.mkdir()
        write_archives(args.corpus, rows, folder, args.files)
        size = sum(path.stat().st_size for path in folder.iterdir())
        for round_number in range(args.rounds):
            for name, (_, workers) in configurations.items():
                run = command_run(folder, out) if workers is None else executor_run(folder, out, workers, round_number)
                runs[name].append(run)
                print(f"{name}: {run[0]:.1f} s, {run[1]:.1f} s CPU", file=sys.stderr)
    load_after = os.getloadavg()
    pages = len(rows)
    print(
        f"{pages} pages in {args.files} .warc.gz files ({size / 1e6:.1f} MB), median of {args.rounds} round(s); "
        f"{date.today()}, {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs; "
        f"load average (1, 5, 15 min) before {', '.join(f'{v:.2f}' for v in load_before)}, "
        f"after {', '.join(f'{v:.2f}' for v in load_after)}\n"
    )
    print(
        "| run | processes extracting | pages/s | CPU ms/page | pages/s per core | articles written | "
        "seconds of each round |"
    )
    print("|:--|--:|--:|--:|--:|--:|--:|")
    for name, (cores, _) in configurations.items():
        walls = [wall for wall, _, _ in runs[name]]
        cpu_ms = 1000 * statistics.median(cpu for _, cpu, _ in runs[name]) / pages
        print(
            f"| {name} | {cores} | {pages / statistics.median(walls):.1f} | {cpu_ms:.1f} | {1000 / cpu_ms:.1f} | "
            f"{runs[name][-1][2]} | {', '.join(f'{w:.1f}' for w in walls)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
