"""The pages of a whole-site corpus, each extracted once, with their labels (cached in a pickle):
what the site-memory fit (``training.site_memory``) replays."""

from __future__ import annotations

import gzip
import hashlib
import json
import pickle
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urldefrag, urljoin

import lxml.html
from lxml import etree

from ..api import extract
from ..extractors.bodytext.model import MODEL_FILE
from ..result import ExtractionResult

#: bumped when what a cached page holds changes
CACHE_VERSION = 2


@dataclass(frozen=True, slots=True)
class SitePage:
    """One labelled page of a site and its extraction."""

    id: str
    site: str
    url: str
    is_article: bool
    page_type: str
    listing_kind: str | None
    gold_text: str | None
    result: ExtractionResult
    page_links: tuple[str, ...] = ()  # every link of the page, absolute: what a crawl follows


def page_links(body: bytes, url: str) -> tuple[str, ...]:
    """The absolute URLs (fragment dropped) every ``<a href>`` of the page points at, in page order."""
    try:
        root = lxml.html.document_fromstring(body)
    except (etree.ParserError, ValueError):
        return ()
    found: dict[str, None] = {}
    for anchor in root.iter("a"):
        href = (anchor.get("href") or "").strip()
        if href and not href.startswith(("#", "javascript:", "mailto:")):
            try:
                found[urldefrag(urljoin(url, href))[0]] = None
            except ValueError:
                continue
    return tuple(found)


def _fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    digest.update(str(CACHE_VERSION).encode())
    digest.update((folder / "index.jsonl").read_bytes())
    digest.update(MODEL_FILE.read_bytes())
    for module in sorted(Path(__file__).resolve().parent.parent.joinpath("page").glob("*.py")):
        digest.update(module.read_bytes())
    return digest.hexdigest()


def load_site_pages(folder: str | Path, cache: str | Path | None = None, progress=None) -> list[SitePage]:
    """Every page of the corpus at ``folder`` in index order, extracted with the shipped model (read
    from ``cache`` when it was made from the same corpus, model and front end)."""
    folder = Path(folder)
    fingerprint = _fingerprint(folder)
    if cache and Path(cache).is_file():
        with open(cache, "rb") as stream:
            stored = pickle.load(stream)
        if stored.get("fingerprint") == fingerprint:
            return stored["pages"]
    pages = []
    with open(folder / "index.jsonl", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    for number, row in enumerate(rows, 1):
        body = gzip.decompress((folder / row["file"]).read_bytes())
        pages.append(
            SitePage(
                id=row["id"],
                site=row["site"],
                url=row["url"],
                is_article=bool(row["is_article"]),
                page_type=row["page_type"],
                listing_kind=row.get("listing_kind"),
                gold_text=row.get("gold_text"),
                result=extract(body, url=row["url"]),
                page_links=page_links(body, row["url"]),
            )
        )
        if progress and number % 200 == 0:
            progress(f"{number}/{len(rows)} pages extracted")
    if cache:
        with open(cache, "wb") as stream:
            pickle.dump({"fingerprint": fingerprint, "pages": pages}, stream, protocol=pickle.HIGHEST_PROTOCOL)
    return pages
