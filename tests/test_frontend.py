"""The shared front end: threads extract in parallel with the results of one thread, the Document
holds columns only, and the core's modules import each other without a circle."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import CORPUS_DIR
from sample_pages import CHINESE_PARAGRAPHS, ENGLISH_PARAGRAPHS, GERMAN_PARAGRAPHS, article_page, link_list_page

import scrapy_bodytext
from scrapy_bodytext import config as config_module
from scrapy_bodytext.api import extract_with_config, load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.evaluation.corpus import iter_corpus
from scrapy_bodytext.extractors import names
from scrapy_bodytext.page.document import (
    ELEMENT_COLUMNS,
    LAZY_ELEMENT_COLUMNS,
    LAZY_SLOT_COLUMNS,
    SLOT_COLUMNS,
    Document,
)
from scrapy_bodytext.page.language import detect_language, stopword_counts
from scrapy_bodytext.page.parse import thread_parser

THREADS = 8
SITE = Path(__file__).resolve().parent / "site"
PACKAGE = Path(scrapy_bodytext.__file__).resolve().parent
#: the folders of the extraction core (with the front door's modules at the top of the package)
CORE_FOLDERS = ("page", "output", "metadata", "extractors")
#: no page may hit the time budget here: a busy machine must not change a result
NO_TIME_LIMIT = 3600.0


def sample_bodies() -> list[tuple[str, bytes, str | None]]:
    """(name, body, url) of real dev pages (one in 100, all sources) where the corpus is present, plus
    the bundled test pages."""
    bodies = [(path.name, path.read_bytes(), None) for path in sorted(SITE.glob("*.html"))]
    bodies += [
        ("english", article_page(ENGLISH_PARAGRAPHS).encode(), None),
        ("german", article_page(GERMAN_PARAGRAPHS).encode(), None),
        ("chinese", article_page(CHINESE_PARAGRAPHS).encode(), None),
        ("links", link_list_page().encode(), None),
    ]
    if (CORPUS_DIR / "index.jsonl").is_file():
        bodies += [(page.id, page.body, page.url) for n, page in enumerate(iter_corpus(CORPUS_DIR)) if not n % 100]
    return bodies


def outcome(result) -> tuple:
    """Every field of a result, the debug figures included (except the time taken)."""
    return result, {key: value for key, value in result.debug.items() if key != "seconds"}


# ----------------------------------------------------------------------------- threads
def test_threads_extract_the_same_pages_with_the_results_of_one_thread():
    bodies = sample_bodies()
    configs = [ExtractConfig(extractor=name, time_budget=NO_TIME_LIMIT) for name in names()]
    jobs = [(body, url, config) for _, body, url in bodies for config in configs]
    expected = [outcome(extract_with_config(body, config, url=url)) for body, url, config in jobs]
    results: list[list | None] = [None] * THREADS
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(number: int) -> None:
        try:
            start.wait()
            shift = number * len(jobs) // THREADS  # each thread starts elsewhere: different pages meet
            order = list(range(shift, len(jobs))) + list(range(shift))
            found = [None] * len(jobs)
            for index in order:
                body, url, config = jobs[index]
                found[index] = outcome(extract_with_config(body, config, url=url))
            results[number] = found
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(number,)) for number in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    labels = [f"{name} with {config.extractor}" for name, _, _ in bodies for config in configs]
    assert len(labels) == len(jobs) >= 13 * len(configs)
    for found in results:
        for label, got, want in zip(labels, found, expected, strict=True):
            assert got == want, label


def test_each_thread_parses_with_its_own_parser():
    parsers: dict[int, object] = {}

    def remember(number: int) -> None:
        parsers[number] = thread_parser()
        assert thread_parser() is parsers[number]

    threads = [threading.Thread(target=remember, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(parser) for parser in parsers.values()}) == 4
    assert thread_parser() not in parsers.values()


# ----------------------------------------------------------------------------- the Document
def test_document_holds_the_columns_and_nothing_else():
    body = article_page(ENGLISH_PARAGRAPHS).replace("<head>", '<head><meta property="og:type" content="article">')
    doc = load_document(body, ExtractConfig(), url="https://www.example.com/news/a")
    page_fields = {"url", "encoding", "deadline", "claims", "memo", "_prefix", "trailing_tags"}
    assert set(vars(doc)) == set(ELEMENT_COLUMNS) | set(SLOT_COLUMNS) | page_fields
    for name in LAZY_ELEMENT_COLUMNS + LAZY_SLOT_COLUMNS:  # computed on first use ...
        getattr(doc, name)
    elements, slots = len(doc.tags), len(doc.texts)
    assert elements > 10 and slots > 10
    for name in ELEMENT_COLUMNS + LAZY_ELEMENT_COLUMNS:  # ... columns too
        assert isinstance(getattr(doc, name), list) and len(getattr(doc, name)) == elements, name
    for name in SLOT_COLUMNS + LAZY_SLOT_COLUMNS:
        assert isinstance(getattr(doc, name), list) and len(getattr(doc, name)) == slots, name
    assert set(vars(doc)) - page_fields == set(
        ELEMENT_COLUMNS + SLOT_COLUMNS + LAZY_ELEMENT_COLUMNS + LAZY_SLOT_COLUMNS
    )
    # the page's declarations keep the names the methods read, from one reader
    assert (doc.og_type, doc.title, doc.claims.og_type) == ("article", "Old station", "article")
    assert not any(hasattr(Document, name) for name in ("text_of", "descendants", "children"))


def test_columns_of_a_long_page_repeat_block_by_block_across_the_walks_chunks():
    # 3000 blocks of 5 kept elements: the walk takes its items in chunks, and nothing may depend on
    # where a chunk ends; the hidden span's subtree is left out, its tail is kept
    block = (
        '<div class="row"><p>Word <a href="/x">link</a> tail</p>'
        "<span hidden>secret <b>bold</b> more</span> after <i>it</i>.<br></div>"
    )
    count = 3000
    doc = load_document(f"<html><body>{block * count}</body></html>", ExtractConfig(max_nodes=100_000))
    assert len(doc.tags) == 1 + 5 * count and len(doc.texts) == 6 * count
    assert "secret" not in "".join(doc.texts) and "bold" not in "".join(doc.texts)
    assert doc.texts[:6] == ["Word ", "link", " tail", " after ", "it", "."]
    assert doc.tags[:6] == ["body", "div", "p", "a", "i", "br"]
    for k in range(count):  # every block has the first block's columns, shifted by its offset
        e, s = 1 + 5 * k, 6 * k
        assert doc.tags[e : e + 5] == doc.tags[1:6]
        assert doc.parents[e : e + 5] == [0, e, e + 1, e, e]
        assert doc.ends[e : e + 5] == [e + 5, e + 3, e + 3, e + 4, e + 5]
        assert doc.slot_starts[e : e + 5] == [s, s, s + 1, s + 4, s + 6]
        assert doc.slot_ends[e : e + 5] == [s + 6, s + 3, s + 2, s + 5, s + 6]
        assert doc.texts[s : s + 6] == doc.texts[:6]
        assert doc.owners[s : s + 6] == [e + 1, e + 2, e + 1, e, e + 3, e]
        assert doc.links[s : s + 6] == [False, True, False, False, False, False]
        assert doc.breaks[s : s + 6] == [2, 0, 0, 2, 0, 0]  # the row and the paragraph end lines
    assert doc.ends[0] == len(doc.tags) and doc.slot_ends[0] == len(doc.texts)


def test_methods_keep_per_page_values_in_the_memo():
    doc = load_document(article_page(GERMAN_PARAGRAPHS).encode(), ExtractConfig())
    assert detect_language(doc) == "de"
    stopword_counts(doc, "de")
    assert {key[0] for key in doc.memo} == {"scrapy_bodytext.page.language"}
    assert not set(vars(doc)) - {
        *ELEMENT_COLUMNS,
        *SLOT_COLUMNS,
        "chars",
        "url",
        "encoding",
        "deadline",
        "claims",
        "memo",
        "_prefix",
        "trailing_tags",
    }


def test_options_are_resolved_once_per_configuration(monkeypatch):
    config = ExtractConfig(extractor="pvalue", options={"pvalue": {"min_valid_chars": 300}})
    assert config.extractor_options.min_valid_chars == 300
    built = []
    real = config_module.build_options
    monkeypatch.setattr(config_module, "build_options", lambda *args: built.append(args) or real(*args))
    for _ in range(3):
        extract_with_config(article_page(ENGLISH_PARAGRAPHS), config)
    assert built == []
    assert ExtractConfig().extractor_options == ExtractConfig().options_for(ExtractConfig().extractor)


# ----------------------------------------------------------------------------- imports
def core_modules() -> list[str]:
    found = [
        f"scrapy_bodytext.{path.stem}" for path in PACKAGE.glob("*.py") if path.stem not in ("__init__", "__main__")
    ]
    for folder in CORE_FOLDERS:
        found += [
            f"scrapy_bodytext.{folder}.{path.stem}"
            for path in (PACKAGE / folder).glob("*.py")
            if path.stem != "__init__"
        ]
    return sorted(found)


def _module_path(module: str) -> Path:
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def _is_module(module: str) -> bool:
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file()


def imported_modules(module: str) -> set[str]:
    """The package's modules ``module`` imports, wherever in it (imports for type checking aside)."""
    path = _module_path(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for statement in block.body
        for node in ast.walk(statement)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _is_module(candidate) else base)
    return {name for name in found if name.startswith("scrapy_bodytext")}


def test_the_core_imports_without_a_circle():
    modules = core_modules()
    assert "scrapy_bodytext.page.parse" in modules and "scrapy_bodytext.page.document" in modules
    graph = {module: imported_modules(module) for module in modules}
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module) or imported_modules(module)):
            if state.get(target) == 1:
                circle = path[path.index(target) :] + [target] if target in path else [module, target]
                pytest.fail("import circle: " + " -> ".join(circle))
            if state.get(target) is None:
                visit(target, [*path, target])
        state[module] = 2

    for module in modules:
        if state.get(module) is None:
            visit(module, [module])


def test_each_core_module_imports_alone_without_scrapy():
    code = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.startswith(('scrapy_bodytext', 'scrapy', 'twisted'))]:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(name)\n"
        "    assert 'scrapy' not in sys.modules and 'twisted' not in sys.modules, name\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *core_modules()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
