"""Shared fixtures (the labelled dev corpus, when ../shared/corpus is beside the checkout), and the
grouping that keeps the tests sharing expensive work in one worker of a parallel run (pytest-xdist)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scrapy_bodytext.evaluation.corpus import LabelledPage, load_corpus

REPO = Path(__file__).resolve().parent.parent
CORPUS_DIR = Path(os.environ.get("BODYTEXT_CORPUS", REPO.parent / "shared" / "corpus" / "dev"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# the crawls, commands and example project a test starts in a process of its own import this checkout's
# package, not whatever copy is installed (an editable install of another checkout, an older wheel)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))


def require_corpus() -> None:
    """Skip with a clear reason where the corpus is absent; in CI its absence is a failure."""
    if (CORPUS_DIR / "index.jsonl").is_file():
        return
    message = f"labelled corpus not found at {CORPUS_DIR} (set BODYTEXT_CORPUS to its dev/ folder)"
    if IN_CI:
        pytest.fail(message + "; CI must run the corpus tests")
    pytest.skip(message)


@pytest.fixture(scope="session")
def corpus() -> list[LabelledPage]:
    require_corpus()
    return load_corpus(CORPUS_DIR)


# ----------------------------------------------------------------------------- parallel runs (pytest-xdist)
#: module-scoped fixtures that run a crawl, a build or a cluster: the tests of a module that use one run
#: in one worker process (``--dist loadgroup``), so that the fixture runs once, as it does without xdist
SHARED_FIXTURES = frozenset(
    {"addon_crawl", "crawl", "judged_alone", "distribution", "fresh_env", "archives", "local_ray"}
)
#: modules whose tests share an extractor's run over the whole dev corpus (``corpus_figures.figures_of``):
#: the tests of one extractor run in one worker process
FIGURE_TESTS = {"test_quality_gates.py": None, "test_bodytext.py": "bodytext"}
#: the longest work, started first so that no worker is left with it at the end (most of a minute or more)
LONG_FIRST = (
    "test_packaging.py",
    "figures-bodytext",
    "figures-bte",
    "test_time_budget.py",
    "figures-",
    "test_sites_crawl.py",
    "test_redis.py",
    "test_compiled.py",
    "test_frontend.py",
    "test_workers.py",
    "test_example_project.py",
    "test_crawl.py",
)


#: seconds a test over the whole dev corpus may take (the default is 300 s): one such test is a minute of
#: CPU time, which a two-core machine busy with other work may stretch past five minutes
CORPUS_TIMEOUT = 1200


def _group(item: pytest.Item) -> str | None:
    module = item.path.name
    if module in FIGURE_TESTS:
        name = FIGURE_TESTS[module]
        if name is None:
            name = getattr(item, "callspec", None) and item.callspec.params.get("name")
        if name and "corpus" in item.fixturenames:
            return f"figures-{name}"
    if SHARED_FIXTURES.intersection(item.fixturenames):
        return module
    return None


def _rank(item: pytest.Item) -> int:
    where = f"{item.path.name} {_group(item) or ''}"
    return next((rank for rank, mark in enumerate(LONG_FIRST) if mark in where), len(LONG_FIRST))


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Groups the tests that share an expensive fixture (``xdist_group``), gives the tests over the dev
    corpus a longer timeout, and puts the longest work first; the order within a module is kept."""
    for item in items:
        group = _group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if item.get_closest_marker("corpus") is not None and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(CORPUS_TIMEOUT))
    items.sort(key=_rank)
