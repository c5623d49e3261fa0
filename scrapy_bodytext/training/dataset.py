"""The labelled corpus turned into what fitting needs: each page's paragraphs (with the extractor's
own feature rows), their gold labels, and the page's source and site.

Building it parses every page once with the extractor's own code; the result is cached in a pickle
file keyed by the corpus and by the source code it was computed with, so a change of any feature
rebuilds it.
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..api import load_document
from ..config import ExtractConfig
from ..evaluation.corpus import LabelledPage, iter_corpus, registrable_domain
from ..extractors.bodytext import page as page_level
from ..extractors.bodytext import units, whole_page
from ..extractors.bodytext.whole_page import whole_page_evidence
from ..output.text import render_slots
from ..page.decoding import decode
from ..page.document import LimitExceeded
from .labels import paragraph_labels

_PACKAGE = Path(__file__).resolve().parent.parent
_CANONICAL_RE = re.compile(
    r"""<link[^>]+rel=["']?canonical["']?[^>]*>|<meta[^>]+property=["']og:url["'][^>]*>""", re.IGNORECASE
)
_URL_IN_TAG_RE = re.compile(r"""(?:href|content)=["'](https?://[^"'\s>]+)""", re.IGNORECASE)
_ABSOLUTE_LINK_RE = re.compile(r"""href=["']https?://([^/"'\s>:]+)""", re.IGNORECASE)


@dataclass(slots=True)
class PageData:
    """One labelled page as the fitting sees it."""

    id: str
    source: str
    site: str
    url: str | None
    is_article: bool
    gold: str
    paras: units.Paragraphs | None  # None: the page was skipped (empty, not HTML, ...)
    evidence: dict[str, float]  # page-level evidence by name (``page.PAGE_FEATURES`` + ``page.URL_FEATURES``)
    texts: list[str]  # each paragraph rendered on one line
    labels: list[float]  # share of each paragraph's tokens aligned to the gold text
    whole_page: dict[str, float] = field(default_factory=dict)  # every group of ``whole_page.GROUPS`` by name


def code_fingerprint() -> str:
    """Hash of the package's source files: features computed by other code are not reused."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        if "training" not in path.parts:
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


#: the page judge's modules: its evidence and its model file's classes, which no paragraph score reads
JUDGE_SOURCES = (
    Path("extractors", "bodytext", "page.py"),
    Path("extractors", "bodytext", "judge.py"),
    Path("extractors", "bodytext", "whole_page.py"),
    Path("extractors", "bodytext", "model.py"),
)


def paragraph_fingerprint() -> str:
    """Hash of the source the paragraph scores are computed with: the package's source files but the
    page judge's (``JUDGE_SOURCES``), and the paragraph models' own classes of the model file. A change
    to the judge or its evidence reuses the out-of-fold paragraph scores; any other change refits them."""
    from ..extractors.bodytext import model

    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        if "training" not in path.parts and path.relative_to(_PACKAGE) not in JUDGE_SOURCES:
            digest.update(path.read_bytes())
    for part in (model.Linear, model.Trees, model.SecondPass):
        digest.update(inspect.getsource(part).encode())
    return digest.hexdigest()[:16]


def corpus_fingerprint(folder: str | Path) -> str:
    """Hash of the corpus index (its pages are named there and never change in place)."""
    return hashlib.sha256((Path(folder) / "index.jsonl").read_bytes()).hexdigest()[:16]


def page_site(page: LabelledPage, text: str) -> str:
    """The page's site: the corpus's own (note or URL), else the host of its canonical or og:url
    declaration, else the host most of its absolute links point to."""
    site = page.site
    if site != page.id:
        return site
    for tag in _CANONICAL_RE.findall(text[:200_000]):
        found = _URL_IN_TAG_RE.search(tag)
        host = urlsplit(found.group(1)).hostname if found else None
        if host:
            return registrable_domain(host)
    hosts = Counter(registrable_domain(h) for h in _ABSOLUTE_LINK_RE.findall(text))
    if hosts:
        return hosts.most_common(1)[0][0]
    return page.id


def build_page(page: LabelledPage, config: ExtractConfig) -> PageData:
    text = decode(page.body, encoding=page.charset)[0]
    data = PageData(
        page.id, page.source, page_site(page, text), page.url, page.is_article, page.gold_text, None, {}, [], []
    )
    try:
        doc = load_document(page.body, config, url=page.url, encoding=page.charset)
    except LimitExceeded:
        return data
    paras = units.paragraphs(doc)
    data.paras = paras
    data.evidence = page_level.page_evidence(doc, paras)
    data.whole_page = whole_page_evidence(doc, whole_page.GROUPS)  # for measuring groups the judge leaves out
    data.texts = [render_slots(doc, range(s, e)).replace("\n", " ") for s, e in zip(paras.starts, paras.ends)]
    data.labels = paragraph_labels(data.texts, page.gold_text)
    return data


def load_dataset(folder: str | Path, cache: str | Path | None = None, *, quiet: bool = False) -> list[PageData]:
    """Every page of the corpus at ``folder``, built or read from ``cache`` when it matches."""
    key = f"{corpus_fingerprint(folder)}-{code_fingerprint()}"
    if cache is not None and Path(cache).is_file():
        stored_key, pages = pickle.loads(Path(cache).read_bytes())
        if stored_key == key:
            return pages
    config = ExtractConfig()
    started = time.perf_counter()
    pages = []
    for number, page in enumerate(iter_corpus(folder), 1):
        pages.append(build_page(page, config))
        if not quiet and not number % 200:
            print(f"  {number} pages read ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if cache is not None:
        Path(cache).write_bytes(pickle.dumps((key, pages), protocol=pickle.HIGHEST_PROTOCOL))
    return pages
