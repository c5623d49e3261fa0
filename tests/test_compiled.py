"""One behaviour, two builds: the hot modules compiled at install (``setup.py``) and the same modules
run as pure Python (``BODYTEXT_PURE_PYTHON=1``) give the same output on every page, and the package
says which one runs."""

from __future__ import annotations

import importlib.machinery
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS_DIR, IN_CI, REPO, require_corpus

from scrapy_bodytext import _core

PURE = {**os.environ, _core.PURE_SWITCH: "1"}
COMPILED = {key: value for key, value in os.environ.items() if key != _core.PURE_SWITCH}


def python(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def require_compiled() -> None:
    """The comparison needs the compiled core; in CI (which builds it) its absence is a failure."""
    build = python("from scrapy_bodytext import _core; print(_core.build())", COMPILED)
    if build == "compiled":
        return
    message = f"the compiled core is not built here (core in use: {build}; pip install -e . builds it)"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def test_setup_compiles_exactly_the_listed_modules_and_each_has_its_source() -> None:
    setup = runpy.run_path(str(REPO / "setup.py"), run_name="setup")  # its functions, without building
    assert setup["compiled_modules"]() == list(_core.COMPILED_MODULES)
    for name in _core.COMPILED_MODULES:
        source = REPO / "scrapy_bodytext" / Path(*name.split(".")).with_suffix(".py")
        assert source.is_file() and source.stem != "__init__", name


def test_the_switch_loads_every_listed_module_from_its_python_source() -> None:
    probe = (
        "from scrapy_bodytext import _core; import scrapy_bodytext.api; "
        "print(_core.build(), all(m.endswith('.py') for m in "
        "[__import__('sys').modules['scrapy_bodytext.' + n].__file__ for n in _core.COMPILED_MODULES]))"
    )
    assert python(probe, PURE) == "pure Python True"


def test_the_version_names_the_build_in_use() -> None:
    version = [sys.executable, "-m", "scrapy_bodytext", "--version"]
    pure = subprocess.run(version, capture_output=True, text=True, env=PURE, timeout=60, check=True)
    assert pure.stdout.endswith("(core: pure Python)\n")
    build = python("from scrapy_bodytext import _core; print(_core.build())", COMPILED)
    default = subprocess.run(version, capture_output=True, text=True, env=COMPILED, timeout=60, check=True)
    assert default.stdout.endswith(f"(core: {build})\n")


def test_in_a_checkout_a_module_changed_after_its_build_runs_from_its_source(tmp_path: Path) -> None:
    source, built = tmp_path / "units.py", tmp_path / f"units{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    source.write_text("")
    assert not _core._stale(source, checkout=True)  # nothing built: the import system finds the .py anyway
    built.write_bytes(b"")
    os.utime(source, (1_000, 1_000))
    os.utime(built, (2_000, 2_000))
    assert not _core._stale(source, checkout=True)
    os.utime(source, (3_000, 3_000))
    assert _core._stale(source, checkout=True)
    assert not _core._stale(source, checkout=False)  # an installed package runs what was installed


@pytest.mark.corpus
def test_both_builds_give_the_same_output_on_a_sample_of_pages(tmp_path: Path) -> None:
    """Every 25th dev page through every method, once compiled and once pure Python: no output differs
    (``scripts/compare_outputs.py``; run it without ``--every`` for the whole corpus)."""
    require_corpus()
    require_compiled()
    script = str(REPO / "scripts" / "compare_outputs.py")
    for name, env in (("compiled", COMPILED), ("pure", PURE)):
        written = subprocess.run(
            [sys.executable, script, "write", str(tmp_path / name), str(CORPUS_DIR), "--every", "25"],
            capture_output=True,
            text=True,
            env=env,
            timeout=550,  # two runs within the corpus tests' timeout (tests/conftest.py), on a busy machine
        )
        assert written.returncode == 0, written.stderr
        assert f"core: {'pure Python' if name == 'pure' else 'compiled'}" in written.stderr
    compared = subprocess.run(
        [sys.executable, script, "compare", str(tmp_path / "compiled"), str(tmp_path / "pure")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert compared.returncode == 0, compared.stdout[-3000:]
    assert compared.stdout.splitlines()[-1].startswith("0 of ")
