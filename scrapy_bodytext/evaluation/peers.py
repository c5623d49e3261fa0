"""Other projects' extractors, run on the same pages as ours for comparison (extra ``peers``).

Each peer gets the page text as our decoder reads it (so that no method wins or loses by its
encoding guess) and returns plain text; readability's HTML output is rendered to text by our
renderer, so that line structure is comparable.
"""

from __future__ import annotations

from collections.abc import Callable

from ..decoding import decode

#: peer name -> the module it needs
PEER_MODULES = {"trafilatura": "trafilatura", "readability": "readability"}


def page_text(body: bytes, charset: str | None = None) -> str:
    return decode(body, encoding=charset)[0]


def trafilatura_text(markup: str, url: str | None = None) -> str:
    """trafilatura's main text, without comments (its ``include_comments=False``)."""
    import trafilatura

    return (trafilatura.extract(markup, url=url, include_comments=False) or "").strip()


def readability_text(markup: str, url: str | None = None) -> str:
    """readability-lxml's main content, rendered to text by our renderer."""
    from readability import Document

    from ..api import load_document
    from ..config import ExtractConfig
    from ..render import render_slots

    summary = Document(markup, url=url).summary(html_partial=True)
    doc = load_document(summary, ExtractConfig())
    return render_slots(doc, range(len(doc.texts))).strip()


PEERS: dict[str, Callable[[str, str | None], str]] = {
    "trafilatura": trafilatura_text,
    "readability": readability_text,
}


def run_peer(name: str, body: bytes, charset: str | None = None, url: str | None = None) -> str:
    """The text peer ``name`` extracts from a page; "" when it finds none or fails."""
    try:
        return PEERS[name](page_text(body, charset), url)
    except Exception:  # noqa: BLE001 - a peer's crash is an empty result, not the end of a comparison
        return ""
