#!/usr/bin/env bash
# Wheels of scrapy-bodytext with the compiled core for the common platforms (Linux manylinux and musllinux,
# macOS, Windows; CPython 3.11 to 3.13), as configured under [tool.cibuildwheel] in pyproject.toml. Run it on
# each platform (Linux needs docker or podman); each wheel is tested to carry the compiled core. Without
# cibuildwheel, `python -m build` makes the sdist and the wheel of this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q "cibuildwheel>=2.21"
python -m cibuildwheel --output-dir wheelhouse "$@"
python -m build --sdist --outdir wheelhouse
ls -l wheelhouse
