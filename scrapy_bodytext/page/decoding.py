"""Bytes to text, once, the way a browser (and Scrapy) does it, and readable where the page lies.

Order: byte-order mark; BOM-less UTF-16 (a NUL in every other byte); the declared charset (given by
the caller, e.g. Scrapy's choice, then the HTTP header, then ``<meta>``/XML declaration) with WHATWG
label mapping (iso-8859-1 → cp1252, gb2312 → gb18030, shift_jis → cp932, ...); then detection for
bodies that declare nothing and are not UTF-8. Two corrections keep mislabelled pages readable:
a page declared UTF-8 that is clearly not UTF-8 is detected instead, and a page declared in a legacy
charset whose bytes are valid UTF-8 with non-ASCII text is read as UTF-8. A UTF-16 label on bytes
that are not UTF-16 means UTF-8 (as the WHATWG prescan rules). Invalid sequences become U+FFFD.
"""

from __future__ import annotations

import codecs
import re

from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    resolve_encoding,
    to_unicode,
)

from .sniff import utf16_byte_order

#: bytes looked at by the charset detector; enough for any real page, bounded for huge ones
DETECTION_SAMPLE = 64 * 1024
#: what browsers fall back to for undeclared legacy pages when nothing better is known
FALLBACK_ENCODING = "cp1252"

#: WHATWG Encoding Standard labels that w3lib does not resolve (w3lib covers the others)
_EXTRA_LABELS = {
    **dict.fromkeys(("unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"), "utf-8"),
    **{f"iso8859{n}": f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15)},
    **dict.fromkeys(("iso88591", "x-cp1252"), "cp1252"),
    **dict.fromkeys(("iso88599",), "cp1254"),
    **{f"x-cp125{n}": f"cp125{n}" for n in range(9)},
    **dict.fromkeys(("csiso88596e", "csiso88596i", "iso-8859-6-e", "iso-8859-6-i"), "iso8859-6"),
    "sun_eu_greek": "iso8859-7",
    **dict.fromkeys(("csiso88598e", "iso-8859-8-e", "visual", "csiso88598i", "iso-8859-8-i", "logical"), "iso8859-8"),
    "csisolatin9": "iso8859-15",
    **dict.fromkeys(("koi", "koi8"), "koi8-r"),
    "koi8-ru": "koi8-u",
    **dict.fromkeys(("csmacintosh", "mac", "x-mac-roman"), "mac-roman"),
    **dict.fromkeys(("x-mac-cyrillic", "x-mac-ukrainian"), "mac-cyrillic"),
    **dict.fromkeys(("dos-874", "iso885911"), "cp874"),
    **dict.fromkeys(("csgb2312", "gb_2312", "x-gbk"), "gb18030"),
    **dict.fromkeys(("cn-big5", "x-x-big5"), "big5hkscs"),
    **dict.fromkeys(("cseucpkdfmtjapanese", "x-euc-jp"), "euc_jp"),
    **dict.fromkeys(("cseuckr", "csksc56011987", "iso-ir-149", "ks_c_5601-1989", "ksc_5601", "windows-949"), "cp949"),
    "unicodefffe": "utf-16-be",
    **dict.fromkeys(("csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff"), "utf-16-le"),
}
_UTF16 = frozenset(("utf-16", "utf-16-le", "utf-16-be"))
_META_CHARSET_RE = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
_NON_ASCII_RE = re.compile(rb"[\x80-\xff]")
_TAG_RE = re.compile(rb"<[^<>]*>")
#: legacy encodings of the WHATWG standard the detector chooses among (rare DOS/Mac pages confuse it)
_DETECTABLE = (
    "cp1252",
    "cp1250",
    "cp1251",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "cp1258",
    "iso8859_2",
    "iso8859_4",
    "iso8859_5",
    "iso8859_6",
    "iso8859_7",
    "iso8859_8",
    "iso8859_13",
    "iso8859_15",
    "koi8_r",
    "koi8_u",
    "cp866",
    "cp874",
    "gb18030",
    "big5hkscs",
    "euc_jp",
    "cp932",
    "cp949",
)


def resolve_label(label: str | None) -> str | None:
    """Python codec name for a charset label (WHATWG mapping), None when unknown or not a text
    encoding (``base64``, ``rot13``, ``zlib`` are codecs Python knows but no page is written in)."""
    if not label:
        return None
    label = label.strip().strip("\"'").strip().lower()
    name = _EXTRA_LABELS.get(label) or resolve_encoding(label)
    if not name:
        return None
    try:
        codec = codecs.lookup(name)
    except LookupError:
        return None
    if not getattr(codec, "_is_text_encoding", True) or codec.name == "undefined":  # "undefined" always raises
        return None
    return codec.name


def declared_encoding(body: bytes) -> str | None:
    """The charset a page declares in its own markup, normalised (None when it declares none)."""
    found = html_body_declared_encoding(body)
    if found:
        return resolve_label(found)
    match = _META_CHARSET_RE.search(body, 0, 4096)  # a label w3lib does not know
    return resolve_label(match.group(1).decode("ascii", "replace")) if match else None


def decode(body: bytes, *, encoding: str | None = None, content_type: str | None = None) -> tuple[str, str]:
    """Return ``(text, encoding_used)``. ``encoding`` is an externally known encoding (e.g. what
    Scrapy already chose); ``content_type`` is the HTTP header value when there is one."""
    bom_encoding, bom = read_bom(body)
    if bom_encoding:  # the BOM wins over anything declared, as in browsers
        return to_unicode(body[len(bom) :], bom_encoding), bom_encoding
    utf16 = utf16_byte_order(body)
    if utf16:
        return to_unicode(body, utf16), utf16
    declared = resolve_label(encoding) or http_content_type_encoding(content_type) or declared_encoding(body)
    if declared in _UTF16:  # a UTF-16 label on ASCII-compatible bytes (no NUL pattern)
        declared = "utf-8"
    if declared is None or declared == "utf-8":
        text = _as_utf8(body, strict=False)
        if text is not None:
            return text, "utf-8"
        used = _detect(body) or declared or FALLBACK_ENCODING
    else:
        text = _as_utf8(body, strict=True) if _NON_ASCII_RE.search(body) else None
        if text is not None:  # declared legacy, but the non-ASCII text is valid UTF-8
            return text, "utf-8"
        used = declared
    return to_unicode(body, used), used


def _as_utf8(body: bytes, *, strict: bool) -> str | None:
    """``body`` as UTF-8 when it is UTF-8 (None when it is some other charset): valid, or with fewer
    invalid sequences than valid multi-byte characters (damage in a UTF-8 page); ``strict`` allows
    only one invalid sequence per hundred multi-byte characters (a cut character, a stray byte)."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    text = body.decode("utf-8", "replace")
    invalid = text.count("\ufffd") - body.count(b"\xef\xbf\xbd")
    multibyte = len(text) - len(text.encode("ascii", "ignore")) - invalid
    if strict:
        return text if multibyte >= 100 * invalid else None
    return text if multibyte > invalid else None


def _detect(body: bytes) -> str | None:
    """Guess the legacy encoding of a body that is not UTF-8, among the encodings the web uses, from
    a sample of its non-ASCII text (markup left out). Ties (the detector often cannot tell cp1250
    from cp1252) go to cp1252, the browsers' default."""
    first = _NON_ASCII_RE.search(body)
    start = first.start() if first else 0
    sample = _TAG_RE.sub(b" ", body[start : start + DETECTION_SAMPLE])
    from charset_normalizer import from_bytes  # imported lazily: only undeclared non-UTF-8 pages need it

    results = from_bytes(sample, cp_isolation=list(_DETECTABLE))
    best = results.best()
    if best is None:
        return None
    for match in results:
        if match.chaos == best.chaos and match.coherence >= best.coherence - 0.01:
            if FALLBACK_ENCODING in (match.encoding, *match.could_be_from_charset):
                return FALLBACK_ENCODING
    return resolve_label(best.encoding)
