"""Which build of the core is in use: the hot modules compiled to extension modules when the package was
installed (Cython, see ``setup.py``), or the same modules run as pure Python where no compiler was found.
Both builds run the same source and give the same results; ``scrapy-bodytext --version`` names the one
in use. ``BODYTEXT_PURE_PYTHON=1`` in the environment makes the package import the ``.py`` modules even
where the compiled ones are installed (to compare the two builds, or to profile the Python code)."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

#: the modules compiled at install, relative to the package (``setup.py`` reads this list)
COMPILED_MODULES: tuple[str, ...] = (
    "page.document",
    "page.tokens",
    "page.language",
    "extractors.bodytext.units",
    "extractors.bodytext.context",
    "extractors.bodytext.groups",
    "extractors.bodytext.phrases",
    "extractors.bodytext.page",
    "extractors.bodytext.table",
    "extractors.bodytext.vocabulary",
    "extractors.bodytext.anchor",
    "extractors.bodytext.comments",
    "metadata.authors",
    "metadata.dates",
    "metadata.declared",
    "metadata.jsonld",
    "metadata.title",
    "metadata.visible",
    "output.text",
)
#: the environment variable that asks for the pure-Python modules
PURE_SWITCH = "BODYTEXT_PURE_PYTHON"

_PACKAGE = Path(__file__).resolve().parent
_NAMES = {f"{__package__}.{name}": name for name in COMPILED_MODULES}
_CHECKOUT = (_PACKAGE.parent / "setup.py").is_file()


class _PythonSource(importlib.abc.MetaPathFinder):
    """Finds a listed module's ``.py`` file ahead of its extension module when pure Python is asked for,
    or, in a source checkout (``setup.py`` beside the package), when the ``.py`` file was changed after
    the extension was built: an edit is never shadowed by a stale build."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        name = _NAMES.get(fullname)
        if name is None:
            return None
        source = _PACKAGE.joinpath(*name.split(".")).with_suffix(".py")
        if pure_python_requested() or _stale(source):
            return importlib.util.spec_from_file_location(fullname, source)
        return None


def _stale(source: Path, checkout: bool = _CHECKOUT) -> bool:
    """Whether ``source`` was changed after its extension module was built, in a checkout."""
    if not checkout or not source.is_file():
        return False
    built = [source.with_suffix(suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    times = [path.stat().st_mtime for path in built if path.is_file()]
    return bool(times) and source.stat().st_mtime > max(times)


def pure_python_requested() -> bool:
    """Whether ``BODYTEXT_PURE_PYTHON`` asks for the pure-Python modules (any value but empty, 0, false, no)."""
    return os.environ.get(PURE_SWITCH, "").strip().lower() not in {"", "0", "false", "no"}


def is_compiled(module: object) -> bool:
    """Whether ``module`` was loaded from an extension module."""
    return str(getattr(module, "__file__", "") or "").endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def compiled_modules() -> dict[str, bool]:
    """Each listed module (imported now) and whether it runs compiled."""
    return {name: is_compiled(importlib.import_module(f"{__package__}.{name}")) for name in COMPILED_MODULES}


def build() -> str:
    """``compiled`` when every listed module runs compiled, ``pure Python`` when none does, else how
    many of them do (in a checkout: the modules changed since ``pip install -e .`` built them run as
    Python until it is run again)."""
    compiled = sum(compiled_modules().values())
    if compiled == len(COMPILED_MODULES):
        return "compiled"
    if compiled == 0:
        return "pure Python"
    return f"partly compiled, {compiled} of {len(COMPILED_MODULES)} modules"


if not any(isinstance(finder, _PythonSource) for finder in sys.meta_path):
    sys.meta_path.insert(0, _PythonSource())
