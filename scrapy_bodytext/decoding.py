"""Bytes to text, once, the way a browser (and Scrapy) does it.

Order: byte-order mark, then the declared charset (HTTP header, then ``<meta>``/XML declaration) with
WHATWG label mapping (iso-8859-1 → cp1252, gb2312 → gb18030, ...), then detection for undeclared
bodies that are neither ASCII nor UTF-8. Invalid byte sequences become U+FFFD; nothing raises.
"""

from __future__ import annotations

import codecs

from w3lib.encoding import html_body_declared_encoding, html_to_unicode, read_bom, resolve_encoding

#: bytes looked at by the charset detector; enough for any real page, bounded for huge ones
DETECTION_SAMPLE = 64 * 1024


def _detect(body: bytes) -> str | None:
    """Guess the encoding of an undeclared body that is not valid UTF-8 (ASCII and UTF-8 first)."""
    for candidate in ("ascii", "utf-8"):
        try:
            body.decode(candidate)
        except UnicodeDecodeError:
            continue
        return candidate
    sample = body[:DETECTION_SAMPLE]
    try:
        sample.decode("utf-8")
        return "utf-8"  # invalid bytes only past the sample: UTF-8 with damage, not another charset
    except UnicodeDecodeError as exc:
        if exc.start >= len(sample) - 4:  # a character cut by the sample boundary
            return "utf-8"
    from charset_normalizer import from_bytes  # brought by Scrapy; imported lazily, rarely needed

    best = from_bytes(sample).best()
    return best.encoding if best is not None else None


def declared_encoding(body: bytes) -> str | None:
    """The charset a page declares in its own markup, normalised (None when it declares none)."""
    declared = html_body_declared_encoding(body)
    return resolve_encoding(declared) if declared else None


def decode(body: bytes, *, encoding: str | None = None, content_type: str | None = None) -> tuple[str, str]:
    """Return ``(text, encoding_used)``. ``encoding`` is an externally known encoding (e.g. what
    Scrapy already chose); ``content_type`` is the HTTP header value when there is one."""
    bom_encoding, _ = read_bom(body)
    if bom_encoding:
        encoding = None  # the BOM wins over anything declared, as in browsers
    elif encoding:
        resolved = resolve_encoding(encoding)
        if resolved and _codec_exists(resolved):
            return body.decode(resolved, "replace"), resolved
    header = f"text/html; charset={encoding}" if encoding else content_type
    used, text = html_to_unicode(header, body, default_encoding="utf-8", auto_detect_fun=_detect)
    return text, used


def _codec_exists(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True
