"""The build: the hot modules listed in ``scrapy_bodytext/_core.py`` are compiled with Cython into
extension modules. The build is optional: without Cython or a working C compiler the package installs
as pure Python (the same source, the same results) and one warning line says so."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent


def compiled_modules() -> list[str]:
    """``COMPILED_MODULES`` of ``scrapy_bodytext/_core.py``, read without importing the package."""
    tree = ast.parse((HERE / "scrapy_bodytext" / "_core.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "COMPILED_MODULES":
            return list(ast.literal_eval(node.value))
    raise RuntimeError("scrapy_bodytext/_core.py has no COMPILED_MODULES")


def warn(why: str) -> None:
    print(
        f"WARNING: scrapy-bodytext installs its pure-Python core ({why}); it gives the same results, slower",
        file=sys.stderr,
    )


def extensions() -> list:
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:
        warn("Cython is not installed")
        return []
    modules = [
        Extension(f"scrapy_bodytext.{name}", [str(Path("scrapy_bodytext", *name.split(".")).with_suffix(".py"))])
        for name in compiled_modules()
    ]
    # annotation_typing off: the annotations stay hints, so the compiled code computes exactly what Python does
    directives = {"language_level": 3, "annotation_typing": False, "binding": True}
    try:
        return cythonize(modules, compiler_directives=directives, quiet=True)
    except Exception as error:  # a Cython failure leaves the pure-Python core
        warn(f"Cython failed: {error}")
        return []


class OptionalBuildExt(build_ext):
    """Builds the extension modules where it can; where it cannot, the install goes on without them."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:  # the modules are independent: compile them on every CPU
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:
            warn(f"no C compiler could build the compiled core: {type(error).__name__}")


if __name__ == "__main__":  # as pip and setuptools run it; tests read compiled_modules() without building
    setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
