"""What a reader's browser shows of a text node: characters that never render (soft hyphens,
zero-width spaces, word joiners, byte-order marks) left out and the text in Unicode NFC, so that
every method, the features and the metrics read the words a reader reads
(docs/methods.md#rendered-text)."""

from __future__ import annotations

import re
import unicodedata

from lxml import etree

#: never drawn: soft hyphen (shown only where a line breaks), zero-width space, word joiner, the
#: zero-width no-break space (a byte-order mark); ZWNJ and ZWJ are kept, as they shape scripts
INVISIBLE = ("\u00ad", "\u200b", "\u2060", "\ufeff")
INVISIBLE_RE = re.compile(f"[{''.join(INVISIBLE)}]")
#: characters an lxml tree refuses to be given (the parser keeps them where the page has them): the
#: two whitespace controls become spaces, the rest goes
_REFUSED_SPACES = str.maketrans("\x0b\x0c", "  ")
_REFUSED_RE = re.compile("[\x00-\x08\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def rendered(text: str) -> str:
    """``text`` as a browser draws it: invisible characters out, NFC."""
    if INVISIBLE_RE.search(text):
        text = INVISIBLE_RE.sub("", text)
    return text if text.isascii() or unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def needs_rendering(text: str) -> bool:
    """Whether ``rendered`` would change ``text`` (substring searches and the NFC quick check: cheaper
    than a regular expression over a page's text)."""
    return any(mark in text for mark in INVISIBLE) or not (text.isascii() or unicodedata.is_normalized("NFC", text))


def render_tree(body: etree._Element) -> None:
    """Rewrite every text and tail under ``body`` that needs it as rendered (``rendered``)."""
    for el in body.iter():
        text, tail = el.text, el.tail
        if text and needs_rendering(text) and isinstance(el.tag, str):
            el.text = _storable(rendered(text))
        if tail and el is not body and needs_rendering(tail):
            el.tail = _storable(rendered(tail))


def _storable(text: str) -> str:
    """``text`` without the characters lxml refuses to store."""
    return _REFUSED_RE.sub("", text.translate(_REFUSED_SPACES))
