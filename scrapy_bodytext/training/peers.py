"""The peers' main text of every article page of a corpus, for the harness (optionally cached)."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ..evaluation.corpus import iter_corpus
from ..evaluation.peers import PEERS, run_peer
from .dataset import PageData, corpus_fingerprint

#: peer name -> the distribution whose version keys the cache
_DISTRIBUTIONS = {"trafilatura": "trafilatura", "readability": "readability-lxml"}


def _versions() -> dict[str, str]:
    found = {}
    for name, distribution in _DISTRIBUTIONS.items():
        try:
            found[name] = version(distribution)
        except PackageNotFoundError:
            pass
    return found


def peer_texts(
    pages: Sequence[PageData], corpus: str, cache: str | None, log: Callable[[str], None]
) -> dict[str, dict[int, str]]:
    """peer name -> page index -> text, for the article pages; peers not installed are left out."""
    versions = _versions()
    key = (corpus_fingerprint(corpus), tuple(sorted(versions.items())))
    if cache and Path(cache).is_file():
        stored_key, found = pickle.loads(Path(cache).read_bytes())
        if stored_key == key:
            log(f"peers' texts read from {cache}")
            return found
    names = [name for name in PEERS if name in versions]
    if len(names) < len(PEERS):
        log(f"peers not installed (pip install 'scrapy-bodytext[peers]'): {sorted(set(PEERS) - set(names))}")
    index = {data.id: k for k, data in enumerate(pages) if data.is_article}
    found: dict[str, dict[int, str]] = {name: {} for name in names}
    for done, labelled in enumerate(iter_corpus(corpus), 1):
        k = index.get(labelled.id)
        if k is not None:
            for name in names:
                found[name][k] = run_peer(name, labelled.body, labelled.charset, labelled.url)
        if not done % 200:
            log(f"peers: {done} pages")
    if cache:
        Path(cache).write_bytes(pickle.dumps((key, found)))
    return found
