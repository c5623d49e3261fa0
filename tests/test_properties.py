"""Property tests: random bytes and random HTML-ish token soup never make ``extract()`` raise or
report an internal error, with any extractor, and every result keeps its invariants."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scrapy_bodytext import extract
from scrapy_bodytext.extractors import names
from scrapy_bodytext.result import ExtractionResult, Reason

JUDGED = frozenset({Reason.OK, Reason.NO_MAIN_TEXT})
PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

#: pieces of markup that break parsers: unbalanced and misnested tags, raw-text and foreign elements,
#: comments, CDATA, declarations with charsets, entities, control and odd characters
TOKENS = [
    "<html>",
    "</html>",
    "<head>",
    "</head>",
    "<body>",
    "</body>",
    "<title>",
    "</title>",
    "<div>",
    "</div>",
    "<p>",
    "</p>",
    "<span>",
    "</span>",
    "<a href='/x'>",
    "</a>",
    "<b>",
    "<i>",
    "</b>",
    "<br>",
    "<hr/>",
    "<h1>",
    "</h1>",
    "<ul>",
    "<li>",
    "</ul>",
    "<table>",
    "<tr>",
    "<td>",
    "</td>",
    "</table>",
    "<pre>",
    "<script>",
    "</script>",
    "<style>",
    "</style>",
    "<noscript>",
    "<template>",
    "<textarea>",
    "<select>",
    "<option>",
    "<plaintext>",
    "<xmp>",
    "<frameset>",
    "<frame src=a>",
    "<iframe>",
    "<svg>",
    "</svg>",
    "<math>",
    "<o:p>",
    "<x:y a:b=1>",
    "<div hidden>",
    "<div style='display:none'>",
    '<p class="content',
    "<img src=x alt='>'>",
    "<!--",
    "-->",
    "<!---->",
    "<![CDATA[",
    "]]>",
    "<!DOCTYPE html>",
    "<?php ?>",
    "<?xml version='1.0' encoding='ISO-8859-1'?>",
    "<meta charset='utf-16'>",
    "<meta charset=shift_jis>",
    "<meta http-equiv=Content-Type content='text/html; charset=koi8-r'>",
    "&amp;",
    "&nbsp;",
    "&#0;",
    "&#xD800;",
    "&#99999999;",
    "&bogus;",
    "&",
    "<",
    ">",
    "</",
    "<>",
    "=",
    '"',
    "'",
    "\x00",
    "\x01",
    "\x0b",
    "\ufeff",
    "\ufffd",
    "\u200b",
    "\ud800",
    "é",
    "中文",
    "日本語",
    "Ру",
    "ไทย",
    "😀",
    " ",
    "\n",
    "\t",
    "word",
    "Some sentence of ordinary words. ",
    "https://example.com/a?b=c&d=e",
]
soup = st.lists(
    st.one_of(st.sampled_from(TOKENS), st.text(max_size=12)),
    max_size=300,
).map("".join)
ENCODINGS = ["utf-8", "utf-16-le", "utf-16-be", "cp1252", "gb18030", "shift_jis", "cp1251", "latin-1"]


def check(result: ExtractionResult, method: str) -> None:
    assert isinstance(result, ExtractionResult)
    assert result.extractor == method
    assert isinstance(result.text, str)
    assert 0.0 <= result.article_probability <= 1.0
    assert result.reason is not Reason.ERROR, result.detail  # an exception inside a method
    assert result.reason is not Reason.TIME_LIMIT, result.detail  # small inputs never need the budget
    if result.reason not in JUDGED:
        assert (result.text, result.article_probability) == ("", 0.0)
    if result.is_article:
        assert result.text and result.reason is Reason.OK
    assert "\x00" not in result.text and "\x01" not in result.text  # the renderer's own marks


@pytest.mark.parametrize("method", names())
@PROPERTY_SETTINGS
@given(body=st.binary(max_size=4096))
def test_random_bytes(method, body):
    check(extract(body, extractor=method), method)


@pytest.mark.parametrize("method", names())
@PROPERTY_SETTINGS
@given(markup=soup, as_bytes=st.booleans(), encoding=st.sampled_from(ENCODINGS))
def test_token_soup(method, markup, as_bytes, encoding):
    body = markup.encode(encoding, "replace") if as_bytes else markup
    check(extract(body, extractor=method), method)


@pytest.mark.parametrize("method", names())
@PROPERTY_SETTINGS
@given(
    markup=soup,
    content_type=st.sampled_from(
        [None, "text/html", "text/html; charset=utf-8", "text/html; charset=ISO-8859-1", "text/html; charset=bogus"]
    ),
    known=st.sampled_from([None, "utf-8", "cp1252", "utf-16", "no-such-codec"]),
)
def test_declared_encodings(method, markup, content_type, known):
    body = markup.encode("utf-8", "replace")
    check(extract(body, extractor=method, content_type=content_type, encoding=known), method)
