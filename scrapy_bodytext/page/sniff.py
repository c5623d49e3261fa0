"""Cheap checks on raw bytes before decoding: is this markup or text at all?"""

from __future__ import annotations

import re

#: leading bytes of common binary formats served with a wrong Content-Type
_MAGIC = (
    b"%PDF-",
    b"\x89PNG",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"BZh",
    b"\xfd7zXZ",
    b"7z\xbc\xaf",
    b"Rar!",
    b"OggS",
    b"ID3",
    b"fLaC",
    b"RIFF",
    b"\x00\x00\x01\x00",
    b"wOFF",
    b"wOF2",
    b"\x7fELF",
    b"MZ",
    b"\xca\xfe\xba\xbe",
    b"(\xb5/\xfd",
    b"%!PS",
)
_CONTROL = bytes(range(0, 32)).replace(b"\t", b"").replace(b"\n", b"").replace(b"\r", b"").replace(b"\x0c", b"")
_SAMPLE = 4096
#: how HTML documents open (the WHATWG MIME sniffing signatures, plus XML and common first tags)
_MARKUP_START_RE = re.compile(
    rb"\s*<(?:!--|\?xml|"
    rb"(?:!doctype|html|head|body|meta|title|script|style|link|div|p|a|b|br|h1|table|font|iframe)[\s/>])",
    re.IGNORECASE,
)


def utf16_byte_order(body: bytes) -> str | None:
    """'utf-16-le'/'utf-16-be' for BOM-less UTF-16 markup, else None: its ASCII characters (markup at
    least) put NUL bytes at one parity, while text in any script puts few at the other (U+xx00
    characters such as 一), and UTF-32 and binary data put them at both."""
    sample = body[:_SAMPLE]
    if len(sample) < 8:
        return None
    even_nuls = sample[0::2].count(0)
    odd_nuls = sample[1::2].count(0)
    high, low = max(even_nuls, odd_nuls), min(even_nuls, odd_nuls)
    if high < 0.05 * (len(sample) // 2) or low > 0.25 * high:
        return None
    order = "utf-16-le" if odd_nuls > even_nuls else "utf-16-be"
    return order if "<" in sample[: len(sample) // 2 * 2].decode(order, "replace") else None


def looks_binary(body: bytes) -> bool:
    """True for bodies that are not text: known binary signatures, or many control bytes in a body
    that does not open like markup (a page padded with NUL bytes is still a page)."""
    if body.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return False
    if body.startswith(_MAGIC):
        return True
    if _MARKUP_START_RE.match(body) or utf16_byte_order(body):  # the cheap test first
        return False
    sample = body[:_SAMPLE]
    if not sample:
        return False
    controls = len(sample) - len(sample.translate(None, _CONTROL))
    return controls > 0.05 * len(sample)
