"""The shape of a URL: its path with each segment abstracted (numbers, dates, ids, slugs), fixed
words kept, so that the posts of a site share one shape and its lists, tags and pages keep theirs."""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import unquote, urlsplit

_YEAR_RE = re.compile(r"(?:19|20)\d\d")
_DATE_RE = re.compile(r"(?:19|20)\d\d[-_.]?[01]\d(?:[-_.]?[0-3]\d)?")
_NUMBER_RE = re.compile(r"\d+")
_HEX_RE = re.compile(r"[0-9a-f]{8,}")
_EXTENSION_RE = re.compile(r"\.([a-z0-9]{2,5})$")
#: separators between the words of a slug
_SLUG_RE = re.compile(r"[\w%]+(?:[-_+., ]+[\w%]+)+")
#: a word with a number after it (``page2``, ``part10``): the word is fixed, the number is not
_NUMBERED_RE = re.compile(r"([a-z]{1,8})\d+")
#: a single word this long is a slug (one-word titles), not a fixed word of the site's scheme
LONG_WORD = 16


def segment_shape(segment: str, previous: str, file: bool = True) -> str:
    """One path segment abstracted: ``{year}``, ``{month}``/``{day}`` after a year/month,
    ``{date}``, ``{num}``, ``{id}`` (long hex, or letters mixed with digits), ``{slug}`` (words with
    separators, a dot among them, or one long word), else the word itself, lowercased (a fixed word
    such as ``tag`` or ``page``); a file extension is kept where the segment can name a file
    (``file``: the last segment, no slash after it): ``/posts/hello.world/`` is a slug's folder."""
    word = unquote(segment).lower()
    extension = ""
    found = _EXTENSION_RE.search(word) if file else None
    if found and not word[: found.start()].isdigit():
        extension, word = "." + found.group(1), word[: found.start()]
    if word.isdigit():
        if len(word) == 4 and _YEAR_RE.fullmatch(word):
            shape = "{year}"
        elif len(word) <= 2 and previous in ("{year}", "{month}"):
            shape = "{month}" if previous == "{year}" else "{day}"
        else:
            shape = "{num}"
    elif _DATE_RE.fullmatch(word):
        shape = "{date}"
    elif _NUMBERED_RE.fullmatch(word):
        shape = _NUMBERED_RE.sub(r"\1{num}", word)
    elif _HEX_RE.fullmatch(word) or (len(word) >= 6 and any(c.isdigit() for c in word) and word.isalnum()):
        shape = "{id}"
    elif _SLUG_RE.fullmatch(word) or len(word) >= LONG_WORD:
        shape = "{slug}"
    else:
        shape = _NUMBER_RE.sub("{num}", word)
    return shape + extension


@lru_cache(maxsize=65_536)
def url_shape(url: str) -> str:
    """The shape of ``url``'s path, e.g. ``/{year}/{month}/{slug}/`` or ``/tag/{slug}/``; a query
    keeps its parameter names (``?p={num}`` and ``?page=`` are part of how a site is built)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "?"
    segments = [s for s in parts.path.split("/") if s]
    shapes: list[str] = []
    previous = ""
    folder = parts.path.endswith("/")
    for index, segment in enumerate(segments):
        previous = segment_shape(segment, previous, file=index == len(segments) - 1 and not folder)
        shapes.append(previous)
    shape = "/" + "/".join(shapes)
    if segments and folder:
        shape += "/"
    if parts.query:
        names = sorted({pair.split("=", 1)[0] for pair in parts.query.split("&") if pair})
        shape += "?" + "&".join(names)
    return shape


def coarse_shape(shape: str) -> str:
    """The shape with every word segment, fixed word or slug, as ``{w}`` (numbers, dates and ids kept):
    the posts of a site filed under several sections (``/news/{slug}/``, ``/events/{slug}/``) or
    with one-word slugs (``/{slug}/``, ``/accessibility/``) share it."""
    path, _, query = shape.partition("?")
    segments = [s for s in path.split("/") if s]
    coarse = [_coarse_segment(s) for s in segments]
    text = "/" + "/".join(coarse) + ("/" if path.endswith("/") and segments else "")
    return text + ("?" + query if query else "")


def _coarse_segment(segment: str) -> str:
    word, dot, extension = segment.partition(".")
    if "{" in word and word != "{slug}":
        return segment
    return "{w}" + dot + extension


def dated_shape(shape: str) -> str:
    """The shape from its first date segment (``{year}`` or ``{date}``) on, with what it ends with
    (a trailing slash, an extension, a query): the posts of a site filed under categories of any
    depth before the date (``/linux/{year}/{month}/{day}/{slug}.html`` and
    ``/travel/europe/{year}/...``) share it. "" when the shape has no date segment, or nothing after it."""
    path, _, query = shape.partition("?")
    segments = [s for s in path.split("/") if s]
    for index, segment in enumerate(segments):
        if segment in ("{year}", "{date}") and index + 1 < len(segments):
            text = "/" + "/".join(segments[index:]) + ("/" if path.endswith("/") else "")
            return text + ("?" + query if query else "")
    return ""
