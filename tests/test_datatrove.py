"""The datatrove steps on datatrove's real executors: web archives written with warcio from the pages
that come with the tests (articles and non-articles, one record damaged) go through ``ArchiveReader``
and ``BodyTextExtractor`` into a ``JsonlWriter``, with several tasks on the local executor and on Ray.
The output must hold every article with exactly what ``extract()`` gives, no non-article, and the
damaged record must cost only itself."""

from __future__ import annotations

import gzip
import io
import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from archive_damage import build_archive, bundled_pages

from scrapy_bodytext import extract
from scrapy_bodytext.archives.entries import iter_archive

pytest.importorskip("datatrove", reason="the datatrove extra is not installed (pip install '.[datatrove]')")

from datatrove.executor import LocalPipelineExecutor  # noqa: E402
from datatrove.pipeline.readers import WarcReader  # noqa: E402
from datatrove.pipeline.writers import JsonlWriter  # noqa: E402

from scrapy_bodytext.integrations.datatrove import ArchiveReader, BodyTextExtractor  # noqa: E402

ARCHIVES = 4  # one file per task
TASKS = 4
WORKERS = 2


@dataclass(frozen=True)
class Expected:
    articles: dict[str, dict]  # url -> what extract() gives, as a dict
    non_articles: set[str]
    damaged_url: str
    html_records: int


@pytest.fixture(scope="module")
def archives(tmp_path_factory) -> tuple[Path, Expected]:
    """ARCHIVES .warc.gz files of the bundled pages; in the second one, the gzip member of one HTML
    response has bytes overwritten in its middle."""
    folder = tmp_path_factory.mktemp("warcs")
    pages = bundled_pages()
    articles, non_articles, damaged_url, html_records = {}, set(), "", 0
    for number in range(ARCHIVES):
        archive = build_archive(pages[number::ARCHIVES], "warc.gz")
        entries = [
            entry for entry in iter_archive(io.BytesIO(archive.data), max_body_size=10_000_000) if entry.kind == "html"
        ]
        data = bytearray(archive.data)
        if number == 1:
            victim = entries[len(entries) // 2]
            span = next(span for span in archive.spans if span.start == victim.offset)
            middle = (span.start + span.end) // 2
            data[middle : middle + 16] = b"\x00" * 16
            damaged_url = victim.url
        (folder / f"crawl-{number}.warc.gz").write_bytes(bytes(data))
        for entry in entries:
            html_records += 1
            if entry.url == damaged_url:
                continue
            result = extract(entry.body, url=entry.url, content_type=entry.content_type)
            if result.is_article:
                articles[entry.url] = result.as_dict()
            else:
                non_articles.add(entry.url)
    assert articles and non_articles and damaged_url
    return folder, Expected(articles, non_articles, damaged_url, html_records)


def pipeline(folder: Path, output: Path) -> list:
    return [
        ArchiveReader(str(folder), glob_pattern="*.warc.gz"),
        BodyTextExtractor(fields="metadata"),
        JsonlWriter(str(output)),
    ]


def read_output(output: Path) -> dict[str, dict]:
    documents = {}
    for path in sorted(output.glob("*.jsonl.gz")):
        for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines():
            document = json.loads(line)
            url = document["metadata"]["url"]
            assert url not in documents, f"{url} written twice"
            documents[url] = document
    return documents


def read_stats(logs: Path) -> dict[str, dict[str, int]]:
    """Totals of every step's counters, by step name (datatrove writes "<type>: <name>")."""
    return {
        step["name"].split(": ", 1)[-1]: {
            key: value.get("total", 0) if isinstance(value, dict) else value for key, value in step["stats"].items()
        }
        for step in json.loads((logs / "stats.json").read_text())
    }


def assert_output(folder: Path, output: Path, logs: Path, expected: Expected) -> None:
    documents = read_output(output)
    assert set(documents) == set(expected.articles), "every article, nothing else"
    for url, document in documents.items():
        want = expected.articles[url]
        assert document["text"] == want["text"]
        metadata = document["metadata"]
        assert metadata["article_probability"] == want["article_probability"]
        assert metadata["extractor"] == want["extractor"]
        for name in ("title", "published", "authors", "language", "canonical_url", "description"):
            assert metadata[name] == want[name], (url, name)
    stats = read_stats(logs)
    reader, extractor = stats[ArchiveReader.name], stats[BodyTextExtractor.name]
    assert reader["damaged_corrupt_gzip"] == 1
    assert extractor["total"] == expected.html_records - 1, "every HTML record but the damaged one"
    assert extractor["forwarded"] == len(expected.articles)
    assert extractor["dropped_not_an_article"] == len(expected.non_articles)
    assert extractor["dropped"] == len(expected.non_articles)


def test_local_executor_several_tasks_and_workers(archives, tmp_path):
    folder, expected = archives
    output, logs = tmp_path / "out", tmp_path / "logs"
    LocalPipelineExecutor(pipeline(folder, output), tasks=TASKS, workers=WORKERS, logging_dir=str(logs)).run()
    assert_output(folder, output, logs, expected)


def test_datatroves_own_warc_reader_loses_what_follows_a_damaged_record(archives):
    """Why ``ArchiveReader`` exists: datatrove's reader stops at the damaged gzip member (its gzip
    stream raises, which fails the task), and the records after it in that file are lost; the
    package's reader goes on."""
    folder, expected = archives
    damaged = folder / "crawl-1.warc.gz"
    theirs, raised = set(), None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warcio's own complaints about the damaged member
        try:
            for doc in WarcReader(str(folder), glob_pattern=damaged.name)():
                theirs.add(doc.metadata["url"])
        except Exception as exc:  # noqa: BLE001 - what it raises is the point
            raised = exc
    assert isinstance(raised, OSError), raised  # gzip.BadGzipFile
    ours = {doc.metadata["url"] for doc in ArchiveReader(str(folder), glob_pattern=damaged.name)()}
    html_in_file = len(ours) + 1
    assert expected.damaged_url not in ours
    assert len(theirs) < len(ours) == html_in_file - 1


def test_the_step_takes_datatroves_own_warc_reader_too(archives):
    folder, expected = archives
    step = BodyTextExtractor(fields="metadata")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # warcio's notes on the records it reads
        kept = {doc.metadata["url"]: doc for doc in step(WarcReader(str(folder), glob_pattern="crawl-0.warc.gz")())}
    # WarcReader hands over responses whatever their HTTP status (the archive's 404 pages, "?missing"),
    # which ArchiveReader skips (skipped_status)
    kept = {url: doc for url, doc in kept.items() if not url.endswith("?missing")}
    assert kept and set(kept) <= set(expected.articles)
    assert step.stats["dropped_not_an_article"].total > 0
    for url, doc in kept.items():
        assert doc.text == expected.articles[url]["text"]
        assert doc.metadata["title"] == expected.articles[url]["title"]


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"threshold": 1.5}, "threshold"),
        ({"threshold": "high"}, "threshold"),
        ({"extractor": "nope"}, "nope"),
        ({"fields": ["main_text", "headline"]}, "fields: unknown result value 'headline'"),
        ({"output_format": "pdf"}, "output_format"),
        ({"timeout": 0}, "timeout"),
        ({"drop_non_articles": "yes"}, "drop_non_articles"),
    ],
)
def test_every_argument_is_checked(arguments, message):
    with pytest.raises(ValueError, match=message):
        BodyTextExtractor(**arguments)


def test_a_page_that_breaks_the_extraction_is_dropped_and_counted(monkeypatch):
    """A page whose extraction raises, or whose child process dies, costs only itself."""
    from datatrove.data import Document

    step = BodyTextExtractor(timeout=10)  # never reached: a generous bound for each child's start on a busy machine
    html = "<html><body><article><h1>Title</h1>" + "<p>A sentence of the story, long enough to count.</p>" * 20
    docs = [
        Document(text=html + "</article></body></html>", id=str(n), metadata={"url": f"https://example.org/{n}"})
        for n in range(3)
    ]
    docs[1].text = "<html><body><p>die</p></body></html>"

    from scrapy_bodytext.integrations import datatrove as module

    real = module.extract_in_child

    def dying(body, url, config):
        if "die" in body:
            import os

            os._exit(3)
        return real(body, url, config)

    monkeypatch.setattr(module, "extract_in_child", dying)
    kept = [doc.metadata["url"] for doc in step.run(iter(docs))]
    assert kept == ["https://example.org/0", "https://example.org/2"]
    assert step.stats["dropped_worker_lost"].total == 1


@pytest.fixture(scope="module")
def local_ray():
    """A Ray cluster of this machine, started for these tests and stopped after them."""
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install '.[test]')")
    ray.init(
        num_cpus=WORKERS,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=80 * 1024 * 1024,
        configure_logging=False,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


#: datatrove 0.10.1 submits Ray actors with options Ray 2.60 deprecates (placement_group=...); raised as
#: an error, that warning kills the submitting thread and the run waits forever
RAY_DEPRECATIONS = "ignore:placement_group.*deprecated:DeprecationWarning"


@pytest.mark.filterwarnings(RAY_DEPRECATIONS)
@pytest.mark.timeout(600)  # a Ray cluster starts slowly on a busy machine
def test_ray_executor_on_a_local_ray_gives_the_same_output(archives, local_ray, tmp_path):
    from datatrove.executor.ray import RayPipelineExecutor

    folder, expected = archives
    output, logs = tmp_path / "out", tmp_path / "logs"
    RayPipelineExecutor(
        pipeline(folder, output),
        tasks=TASKS,
        workers=WORKERS,
        logging_dir=str(logs),
        cpus_per_task=1,
        mem_per_cpu_gb=0.5,
    ).run()
    assert_output(folder, output, logs, expected)


def test_a_page_past_the_time_budget_is_dropped_and_the_next_one_extracted(monkeypatch):
    """The child process of a page that outlives ``timeout`` is killed; the page is counted, the next
    page gets a new process."""
    import time

    from datatrove.data import Document

    from scrapy_bodytext.integrations import datatrove as module

    html = "<html><body><article><h1>Title</h1>" + "<p>A sentence of the story, long enough to count.</p>" * 20
    docs = [
        Document(text=html + f"<p>{word}</p></article></body></html>", id=word, metadata={})
        for word in ("first", "stuck", "last")
    ]
    real = module.extract_in_child

    def stuck(body, url, config):
        if "stuck" in body:
            time.sleep(3600)  # outside the extraction's own budget: only the kill stops it (else the test times out)
        return real(body, url, config)

    monkeypatch.setattr(module, "extract_in_child", stuck)
    # the child is killed ``timeout`` + KILL_GRACE seconds after it got the page, and a new child must be
    # ready within as long: 6 s, so that a busy machine does not time out the pages that do not hang
    step = BodyTextExtractor(timeout=5)
    kept = [doc.id for doc in step.run(iter(docs))]
    assert kept == ["first", "last"]
    assert step.stats["dropped_time_limit"].total == 1
