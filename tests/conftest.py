"""Shared fixtures: the labelled dev corpus (when ../shared/corpus is beside the checkout)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scrapy_bodytext.evaluation.corpus import LabelledPage, load_corpus

REPO = Path(__file__).resolve().parent.parent
CORPUS_DIR = Path(os.environ.get("BODYTEXT_CORPUS", REPO.parent / "shared" / "corpus" / "dev"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


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
