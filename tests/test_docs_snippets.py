"""Every code block of the README and of ``docs/*.md`` works as written.

- ```python blocks run (in a temporary folder, with ``html_bytes`` holding an article page of the
  example site). Module-level ``UPPER_CASE`` names they define are a Scrapy settings fragment: they go
  through the plugin's settings validation, and the components and classes they name must import.
  Spider classes they define parse a page of the example site; classes with ``from_crawler`` are
  built from a crawler; item pipelines process an item. A block right after the line
  ``<!-- snippet: compile-only -->`` is only compiled.
- ```bash / ```sh blocks: every ``scrapy-bodytext`` (or ``python -m scrapy_bodytext``) command parses
  with the command's own parser and its extractor and options are valid; every ``-s NAME=VALUE`` of a
  ``scrapy crawl`` passes the settings validation; scripts run with ``python path.py`` exist; extras
  in ``pip install`` exist.
- ```json blocks: every line is a JSON value.
"""

from __future__ import annotations

import asyncio
import configparser
import inspect
import json
import re
import shlex
import sys
import types
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest
import scrapy
from scrapy.http import HtmlResponse
from scrapy.settings import Settings
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

import scrapy_bodytext
from scrapy_bodytext import extractors
from scrapy_bodytext.cli import build_parser
from scrapy_bodytext.cli.options import build_config, parse_options
from scrapy_bodytext.plugin.settings import load_settings

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SITE = REPO / "example_project" / "news_example" / "site"
ARTICLE = SITE / "article" / "eels-harwick-weir.html"
LISTING = SITE / "index.html"
COMPILE_ONLY = "<!-- snippet: compile-only -->"
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
#: settings whose value is a mapping of import paths to orders
COMPONENT_SETTINGS = ("ADDONS", "DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "ITEM_PIPELINES", "EXTENSIONS")
#: settings whose value is one import path
CLASS_SETTINGS = ("SCHEDULER", "DUPEFILTER_CLASS")
SNIPPET_MODULE = "docs_snippet"


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    code: str
    compile_only: bool

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def code_blocks(pages: list[Path] = PAGES) -> Iterator[Block]:
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
            yield Block(page, line, match.group(1).lower(), match.group(2), before == COMPILE_ONLY)


def blocks_of(*languages: str) -> list[Block]:
    return [block for block in code_blocks() if block.language in languages]


PYTHON = blocks_of("python", "py")
SHELL = blocks_of("bash", "sh", "shell", "console")
JSON = blocks_of("json")


def test_the_pages_hold_code_blocks():
    assert len(PYTHON) >= 20 and len(SHELL) >= 10 and JSON
    assert sum(block.compile_only for block in PYTHON) <= 2, "keep compile-only blocks rare"


# ------------------------------------------------------------------------------------------ python


class FakePool:
    """What ``asyncpg.create_pool`` returns, for the PostgreSQL pipeline of the docs."""

    def __init__(self) -> None:
        self.executed: list[tuple] = []
        self.closed = False

    async def execute(self, query: str, *args) -> str:
        self.executed.append((query, *args))
        return "INSERT 0 1"

    async def close(self) -> None:
        self.closed = True


def fake_asyncpg() -> types.ModuleType:
    module = types.ModuleType("asyncpg")
    module.pools = []

    async def create_pool(*args, **kwargs) -> FakePool:
        pool = FakePool()
        module.pools.append(pool)
        return pool

    module.create_pool = create_pool
    return module


def user_project_modules() -> dict[str, types.ModuleType]:
    """The modules of the reader's own project that the docs name (``news.items.ArticleItem``)."""
    news = types.ModuleType("news")
    items = types.ModuleType("news.items")
    for name in ("ArticleItem", "VideoItem"):
        setattr(items, name, type(name, (scrapy.Item,), {"__module__": "news.items", "url": scrapy.Field()}))
    news.items = items
    return {"news": news, "news.items": items}


@pytest.fixture
def snippet_world(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name, module in user_project_modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    asyncpg = fake_asyncpg()
    monkeypatch.setitem(sys.modules, "asyncpg", asyncpg)
    return asyncpg


def run_python(block: Block) -> dict:
    code = compile(block.code, block.id, "exec")
    if block.compile_only:
        return {}
    namespace = {"__name__": SNIPPET_MODULE, "html_bytes": ARTICLE.read_bytes()}
    with redirect_stdout(StringIO()):
        exec(code, namespace)  # noqa: S102 - the documentation's own code
    return namespace


def check_settings(namespace: dict) -> None:
    settings = {name: value for name, value in namespace.items() if name.isupper() and not name.startswith("_")}
    if not settings:
        return
    load_settings(Settings(settings))
    for name in COMPONENT_SETTINGS:
        for path in settings.get(name, {}):
            load_object(path)
    for name in CLASS_SETTINGS:
        if name in settings:
            load_object(settings[name])


def own_classes(namespace: dict) -> list[type]:
    return [value for value in namespace.values() if isinstance(value, type) and value.__module__ == SNIPPET_MODULE]


def call(method, spider: scrapy.Spider, *args):
    """Call a component method with the parameters it declares (``spider`` only when it asks)."""
    wanted = inspect.signature(method).parameters
    result = method(*args, spider) if "spider" in wanted else method(*args)
    return asyncio.run(result) if inspect.isawaitable(result) else result


def check_classes(namespace: dict, asyncpg: types.ModuleType) -> None:
    for cls in own_classes(namespace):
        if issubclass(cls, scrapy.Spider):
            spider = cls()
            response = HtmlResponse(url="https://example.com/", body=LISTING.read_bytes(), encoding="utf-8")
            outputs = list(spider.parse(response))
            assert outputs, f"{cls.__name__}.parse yields nothing"
            assert all(isinstance(output, (scrapy.Request, dict, scrapy.Item)) for output in outputs)
            continue
        if not hasattr(cls, "from_crawler"):
            continue
        crawler = get_crawler(settings_dict={"NEWS_DATABASE_URL": "postgresql://localhost/news"})
        component = cls.from_crawler(crawler)
        if hasattr(component, "process_item"):
            spider = scrapy.Spider(name="docs")
            item = {
                "url": "https://example.com/news/1",
                "title": "Flood",
                "article_probability": 0.9,
                "main_text": "The river rose.",
            }
            if hasattr(component, "open_spider"):
                call(component.open_spider, spider)
            assert call(component.process_item, spider, item) == item
            if hasattr(component, "close_spider"):
                call(component.close_spider, spider)
            if asyncpg.pools:
                assert asyncpg.pools[-1].executed and asyncpg.pools[-1].closed


@pytest.mark.parametrize("block", PYTHON, ids=[block.id for block in PYTHON])
def test_python_blocks_run(block, snippet_world):
    namespace = run_python(block)
    check_settings(namespace)
    check_classes(namespace, snippet_world)


def test_a_broken_python_block_fails(snippet_world):
    broken = Block(REPO / "README.md", 1, "python", 'BODYTEXT_ARTICLE_THRESHOLD = "high"\n', False)
    with pytest.raises(ValueError, match="BODYTEXT_ARTICLE_THRESHOLD"):
        check_settings(run_python(broken))
    with pytest.raises((ImportError, NameError)):
        check_settings(
            run_python(
                Block(
                    REPO / "README.md", 1, "python", 'ITEM_PIPELINES = {"scrapy_bodytext.NoSuchPipeline": 200}\n', False
                )
            )
        )


# ------------------------------------------------------------------------------------------- shell

SEPARATORS = {"|", "||", "&&", ";", "&"}
REDIRECTS = {">", ">>", "<", "2>", "2>>", "&>"}


def commands(block: Block) -> Iterator[tuple[list[str], Path]]:
    """Each simple command of a shell block with the folder it runs in (``cd`` is followed)."""
    folder = REPO
    for line in block.code.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        skip = False
        for token in [*lexer, ";"]:
            if skip:
                skip = False
            elif token in REDIRECTS:
                skip = True
            elif token in SEPARATORS:
                if words and words[0] == "cd":
                    folder = folder / words[1]
                elif words:
                    yield words, folder
                words = []
            else:
                words.append(token)


def extras() -> set[str]:
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg")
    return set(config["options.extras_require"])


def check_command(words: list[str], folder: Path) -> None:
    if words[0] == "scrapy-bodytext" or words[:3] == ["python", "-m", "scrapy_bodytext"]:
        check_cli(words)
    elif words[:2] == ["scrapy", "crawl"]:
        pairs = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "-s"]
        load_settings(Settings(dict(pair.split("=", 1) for pair in pairs)))
    elif words[0] == "python" and len(words) > 1 and words[1].endswith(".py"):
        assert (folder / words[1]).is_file(), f"{words[1]}: no such script (in {folder.relative_to(REPO)})"
    elif words[:2] == ["pip", "install"]:
        for spec in words[2:]:
            found = re.search(r"\[([\w,]+)\]$", spec)
            if found:
                assert set(found.group(1).split(",")) <= extras(), spec
            if spec.startswith("dist/"):
                assert f"-{scrapy_bodytext.__version__}-" in spec, spec


def check_cli(words: list[str]) -> None:
    args = words[1:] if words[0] == "scrapy-bodytext" else words[3:]
    out, err = StringIO(), StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            parsed = build_parser().parse_args(args)
    except SystemExit as exit:
        assert exit.code == 0, f"{shlex.join(words)}: {err.getvalue().strip()}"
        return
    if parsed.command == "extract":
        build_config(
            parsed.extractor,
            threshold=parsed.threshold,
            time_limit=None,
            options=parse_options(parsed.option, [parsed.extractor]),
            output_format=parsed.output_format,
            links=parsed.links,
        )
    elif parsed.command == "evaluate":
        names = parsed.extractor or extractors.names()
        assert set(names) <= set(extractors.names()), names
        parse_options(parsed.option, names)


@pytest.mark.parametrize("block", SHELL, ids=[block.id for block in SHELL])
def test_shell_commands_are_valid(block):
    for words, folder in commands(block):
        check_command(words, folder)


@pytest.mark.parametrize(
    "line",
    [
        "scrapy-bodytext extract --no-such-option page.html",
        "scrapy-bodytext extract --extractor nosuch page.html",
        "scrapy-bodytext extract --extractor ttr --option method=nosuch page.html",
        "scrapy-bodytext nosuch",
        "scrapy crawl news -s BODYTEXT_ARTICLE_THRESHOLD=high",
        "python scripts/no_such_script.py",
        'pip install ".[nosuchextra]"',
    ],
)
def test_a_broken_command_fails(line):
    block = Block(REPO / "README.md", 1, "bash", line + "\n", False)
    with pytest.raises((AssertionError, ValueError)):
        for words, folder in commands(block):
            check_command(words, folder)


def test_commands_follow_cd_and_split_pipelines():
    block = Block(
        REPO / "README.md",
        1,
        "bash",
        "pip install . && cd example_project && python sitegen/build.py  # rebuild\n"
        "curl -s https://example.org/ | scrapy-bodytext extract --url https://example.org/ - > out.txt\n",
        False,
    )
    found = [(words, folder.relative_to(REPO)) for words, folder in commands(block)]
    assert found == [
        (["pip", "install", "."], Path(".")),
        (["python", "sitegen/build.py"], Path("example_project")),
        (["curl", "-s", "https://example.org/"], Path("example_project")),
        (["scrapy-bodytext", "extract", "--url", "https://example.org/", "-"], Path("example_project")),
    ]


# -------------------------------------------------------------------------------------------- json


@pytest.mark.parametrize("block", JSON, ids=[block.id for block in JSON])
def test_json_blocks_parse(block):
    for line in block.code.splitlines():
        if line.strip():
            json.loads(line)
