"""The package tells the truth about itself: its declared dependencies are the ones it imports, its
namespace shows only the public API, and the built wheel installs and runs the quick start in a fresh
virtualenv."""

from __future__ import annotations

import ast
import configparser
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "scrapy_bodytext"
#: extras that serve the project's own tests, not a feature of the package
NOT_FEATURES = frozenset({"test"})


def normalized(name: str) -> str:
    """A distribution name in its canonical form (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(line: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
    assert match, f"cannot read the requirement {line!r}"
    return normalized(match.group(1))


@dataclass(frozen=True)
class Declared:
    base: frozenset[str]
    extras: dict[str, frozenset[str]]


def declared_dependencies(setup_cfg: Path) -> Declared:
    config = configparser.ConfigParser()
    config.read(setup_cfg, encoding="utf-8")

    def names(text: str) -> frozenset[str]:
        return frozenset(requirement_name(line) for line in text.splitlines() if line.strip())

    extras = config["options.extras_require"] if config.has_section("options.extras_require") else {}
    return Declared(
        names(config["options"].get("install_requires", "")), {extra: names(text) for extra, text in extras.items()}
    )


@dataclass(frozen=True)
class Import:
    module: str  # top-level module name
    where: str  # file:line
    guarded: bool  # inside a function or a try/except ImportError: needed only when that code runs


def _handles_import_error(node: ast.Try) -> bool:
    names = set()
    for handler in node.handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names |= {kind.id for kind in kinds if isinstance(kind, ast.Name)}
    return bool(names & {"ImportError", "ModuleNotFoundError"})


def third_party_imports(root: Path) -> Iterator[Import]:
    """Every absolute import in the ``.py`` files under ``root`` that is neither the standard library
    nor the package itself."""
    own = root.name

    def visit(node: ast.AST, path: Path, guarded: bool) -> Iterator[Import]:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom):
                modules = [node.module] if node.level == 0 and node.module else []
            else:
                modules = [alias.name for alias in node.names]
            for module in modules:
                top = module.partition(".")[0]
                if top not in sys.stdlib_module_names and top not in (own, "__future__"):
                    yield Import(top, f"{path.relative_to(root.parent)}:{node.lineno}", guarded)
            return
        inner = (
            guarded
            or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            or (isinstance(node, ast.Try) and _handles_import_error(node))
        )
        for child in ast.iter_child_nodes(node):
            yield from visit(child, path, inner)

    for path in sorted(root.rglob("*.py")):
        yield from visit(ast.parse(path.read_text("utf-8"), str(path)), path, False)


#: distributions whose import name is not their own name, for when they are not installed here
NOT_INSTALLED_NAMES = {"readability": "readability-lxml"}


def distributions_of(module: str) -> frozenset[str]:
    """The installed distributions that provide a top-level module (when none is installed: the known
    distribution of that import name, else the module's own name)."""
    found = importlib.metadata.packages_distributions().get(module) or [NOT_INSTALLED_NAMES.get(module, module)]
    return frozenset(normalized(name) for name in found)


def dependency_problems(root: Path, declared: Declared) -> list[str]:
    """What does not match: undeclared imports, extras imported unguarded, declared but never imported."""
    features = {extra: names for extra, names in declared.extras.items() if extra not in NOT_FEATURES}
    optional = frozenset().union(*features.values()) if features else frozenset()
    problems, imported = [], set()
    for found in third_party_imports(root):
        dists = distributions_of(found.module)
        imported |= dists
        if dists & declared.base:
            continue
        if not dists & optional:
            problems.append(
                f"{found.where}: imports {found.module!r}, declared neither in install_requires nor in an extra"
            )
        elif not found.guarded:
            extras = sorted(extra for extra, names in features.items() if dists & names)
            problems.append(
                f"{found.where}: imports {found.module!r} (extra {', '.join(extras)}) at module level; "
                f"a base installation cannot import this module"
            )
    for name in sorted(declared.base - imported):
        problems.append(f"install_requires declares {name!r}, which no module imports")
    return problems


def test_declared_dependencies_match_the_imports():
    declared = declared_dependencies(REPO / "setup.cfg")
    assert {"scrapy", "lxml", "itemadapter"} <= declared.base  # the file was read
    assert dependency_problems(PACKAGE, declared) == []


def test_the_dependency_check_finds_each_kind_of_mismatch(tmp_path):
    package = tmp_path / "somepkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("import os\nfrom . import sub\nfrom somepkg.sub import x\n")
    (package / "sub" / "__init__.py").write_text(
        "import lxml.html\nimport undeclared_thing\nimport warcio\n"
        "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n"
        "def later():\n    from itemadapter import ItemAdapter\n"
    )
    declared = Declared(
        frozenset({"lxml", "scrapy"}),
        {"warc": frozenset({"warcio"}), "fit": frozenset({"numpy"}), "test": frozenset({"itemadapter"})},
    )
    problems = dependency_problems(package, declared)
    assert problems == [
        "somepkg/sub/__init__.py:2: imports 'undeclared_thing', declared neither in install_requires nor in an extra",
        "somepkg/sub/__init__.py:3: imports 'warcio' (extra warc) at module level; a base installation cannot "
        "import this module",
        "somepkg/sub/__init__.py:9: imports 'itemadapter', declared neither in install_requires nor in an extra",
        "install_requires declares 'scrapy', which no module imports",
    ]


def test_the_namespace_shows_the_public_api_and_loads_scrapy_parts_lazily():
    probe = (
        "import json, sys, scrapy_bodytext as p; names = dir(p); loaded = 'scrapy' in sys.modules; "
        "from scrapy_bodytext import Addon, BodyTextPipeline; "
        "print(json.dumps({'dir': names, 'scrapy_before': loaded, 'all': p.__all__, "
        "'lazy': [Addon.__module__, BodyTextPipeline.__module__]}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    found = json.loads(done.stdout)
    assert set(found["dir"]) == {*found["all"], "__version__"}
    assert not {"Any", "TYPE_CHECKING", "annotations", "importlib", "api", "config"} & set(found["dir"])
    assert found["scrapy_before"] is False
    assert found["lazy"] == ["scrapy_bodytext.plugin.addon", "scrapy_bodytext.plugin.pipelines"]


def test_the_installed_version_is_the_package_version():
    import scrapy_bodytext

    assert importlib.metadata.version("scrapy-bodytext") == scrapy_bodytext.__version__


# --- the built distribution in a fresh virtualenv ----------------------------------------------------

SITE = REPO / "example_project" / "news_example" / "site"
ARTICLE_PAGES = [page for page in json.loads((SITE / "manifest.json").read_text("utf-8")) if page["kind"] == "article"]


#: seconds for a build (it compiles the core) and for the tests that wait on it
BUILD_SECONDS = 900


def run(command: list[str], timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


#: what a copy of a checkout that is not a git work tree leaves out: build artefacts and caches
NOT_SOURCES = shutil.ignore_patterns(
    ".git", "__pycache__", "*.pyc", "*.so", "*.pyd", "*.c", "build", "dist", "*.egg-info", ".pytest_cache"
)


def source_copy(folder: Path) -> Path:
    """The checkout's source files (those git tracks or would: not ignored; in another tree, all but build artefacts) copied
    into ``folder``: a build stages its sdist in the tree it builds, which other tests read meanwhile."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=False,
    )
    if tracked.returncode != 0 or not tracked.stdout:
        shutil.copytree(REPO, folder, ignore=NOT_SOURCES)
        return folder
    for name in tracked.stdout.decode("utf-8").split("\0"):
        if name and (REPO / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def distribution(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel ``python -m build`` makes of the checkout's sources."""
    out = tmp_path_factory.mktemp("dist")
    sources = source_copy(tmp_path_factory.mktemp("sources"))
    run([sys.executable, "-m", "build", "--outdir", str(out), str(sources)], timeout=BUILD_SECONDS)
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(out.iterdir())
    return {"sdist": sdists[0], "wheel": wheels[0]}


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory: pytest.TempPathFactory, distribution: dict[str, Path]) -> Path:
    """A new virtualenv with only the wheel (and its dependencies from the package index) installed."""
    home = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=True).create(home)
    bin_dir = home / ("Scripts" if os.name == "nt" else "bin")
    run(
        [
            str(bin_dir / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            str(distribution["wheel"]),
        ],
        env={**os.environ, "PYTHONPATH": ""},  # a checkout on the path would pass for the installed package
    )
    return bin_dir


@pytest.mark.package
@pytest.mark.timeout(BUILD_SECONDS + 300)  # the first one to run builds the distribution
def test_the_sdist_holds_the_package_and_its_metadata(distribution):
    with tarfile.open(distribution["sdist"]) as sdist:
        names = {name.partition("/")[2] for name in sdist.getnames()}
    assert {
        "setup.cfg",
        "setup.py",  # the compiled core's build
        "pyproject.toml",
        "README.md",
        "scrapy_bodytext/__init__.py",
        "scrapy_bodytext/py.typed",
        "scrapy_bodytext/cli/__init__.py",
    } <= names


@pytest.mark.package
@pytest.mark.timeout(BUILD_SECONDS + 300)  # the first one to run builds the distribution
def test_the_wheel_runs_the_command_line_and_the_python_api(fresh_env, tmp_path):
    page = SITE / ARTICLE_PAGES[0]["path"]
    env = {**os.environ, "PYTHONPATH": ""}
    where = run(
        [str(fresh_env / "python"), "-c", "import scrapy_bodytext; print(scrapy_bodytext.__file__)"],
        cwd=tmp_path,
        env=env,
    )
    assert Path(where.stdout.strip()).is_relative_to(fresh_env.parent), "not the installed copy"
    import scrapy_bodytext

    version = run([str(fresh_env / "scrapy-bodytext"), "--version"], cwd=tmp_path, env=env)
    # the wheel was built here, with a C compiler: it carries the compiled core
    assert version.stdout.strip() == f"scrapy-bodytext {scrapy_bodytext.__version__} (core: compiled)"
    extracted = run([str(fresh_env / "scrapy-bodytext"), "extract", "--json", str(page)], cwd=tmp_path, env=env)
    row = json.loads(extracted.stdout)
    assert row["is_article"] and " ".join(ARTICLE_PAGES[0]["first_paragraph"].split()) in " ".join(row["text"].split())
    snippet = (
        "import sys; from scrapy_bodytext import extract; "
        "result = extract(open(sys.argv[1], 'rb').read(), url='https://example.com/news/1'); "
        "print(result.is_article, result.reason.value, len(result.text) > 200)"
    )
    api = run([str(fresh_env / "python"), "-c", snippet, str(page)], cwd=tmp_path, env=env)
    assert api.stdout.split() == ["True", "ok", "True"]


@pytest.mark.package
@pytest.mark.timeout(BUILD_SECONDS + 300)  # the first one to run builds the distribution
def test_the_wheel_runs_the_quick_start_crawl(fresh_env, tmp_path_factory):
    """The README's quick start: the example project's crawl, with the installed package only. (The
    folder is named plainly: a file:// URL's folders are part of the path the extractor reads.)"""
    project = tmp_path_factory.mktemp("quickstart") / "example_project"
    shutil.copytree(REPO / "example_project", project, ignore=shutil.ignore_patterns("*.db", "*.jsonl", "__pycache__"))
    env = {**os.environ, "PYTHONPATH": "", "PATH": f"{fresh_env}{os.pathsep}{os.environ.get('PATH', '')}"}
    run(["scrapy", "crawl", "news", "-O", "articles.jsonl", "-s", "TELNETCONSOLE_ENABLED=False"], cwd=project, env=env)
    items = [json.loads(line) for line in (project / "articles.jsonl").read_text("utf-8").splitlines()]
    articles = [item for item in items if "/article/" in item["url"]]
    assert len(articles) == len(ARTICLE_PAGES)
    # at most the four tag pages that stand just above the threshold on their own (README's quick start)
    assert len(items) - len(articles) <= 4, [item["url"] for item in items if item not in articles]
    assert all(item["main_text"] and item["article_probability"] >= 0.5 for item in items)
