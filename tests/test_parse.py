"""The parse module: what it reports about a page, the long-tag check, and input it cleans up."""

from __future__ import annotations

import random
import re

import pytest

from scrapy_bodytext.api import extract_with_config, load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.output.text import render_slots
from scrapy_bodytext.page.parse import MAX_ATTRIBUTES, MAX_DEPTH, has_long_tag, parse_html
from scrapy_bodytext.result import LimitExceeded, Reason

SENTENCE = "The council approved the budget on Monday after a long debate about schools and roads."
#: the definition ``has_long_tag`` implements without scanning the whole page with it
LONG_TAG_RE = re.compile(rb"<[A-Za-z][^<>]{16384}")


def page(body: str) -> str:
    return f"<html><head><title>t</title></head><body>{body}</body></html>"


def test_an_ordinary_page_is_parsed_as_it_is():
    parsed = parse_html(page(f"<p>{SENTENCE}</p>"))
    assert (parsed.replayed, parsed.depth_cut) == (False, False)
    assert parsed.root.findtext(".//p") == SENTENCE


def test_a_deep_page_is_replayed_with_its_depth_cut():
    parsed = parse_html(page("<div>" * 1000 + SENTENCE + "</div>" * 1000))
    assert (parsed.replayed, parsed.depth_cut) == (True, True)
    depth = max(len(list(el.iterancestors())) + 1 for el in parsed.root.iter())
    assert depth == MAX_DEPTH


def test_too_many_attributes_and_huge_text_are_replayed_without_a_depth_cut():
    attributes = " ".join(f'data-attribute-{n}="1"' for n in range(1000))  # a tag over 16 KB: surveyed
    many = parse_html(page(f"<div {attributes}>{SENTENCE}</div>"))
    huge = parse_html(page("<p>" + "a" * 11_000_000 + "</p>"))
    for parsed in (many, huge):
        assert (parsed.replayed, parsed.depth_cut) == (True, False)
    assert len(many.root.find(".//div").attrib) == MAX_ATTRIBUTES


def test_only_a_depth_cut_is_reported_as_truncated_nesting():
    deep = extract_with_config(page("<div>" * 1000 + SENTENCE + "</div>" * 1000), ExtractConfig())
    wide = extract_with_config(page("<p>" + "a " * 6_000_000 + "</p>"), ExtractConfig())
    nested = extract_with_config(page("<div>" * 240 + SENTENCE + "</div>" * 240), ExtractConfig())
    assert deep.debug.get("nesting_truncated") is True
    assert "nesting_truncated" not in wide.debug and "nesting_truncated" not in nested.debug


@pytest.mark.parametrize("markup", ["", "   \n ", "<!-- only a comment -->", b"\xef\xbb\xbf  "])
def test_nothing_to_parse(markup):
    assert parse_html(markup) is None


def test_limits_raise_with_a_reason():
    with pytest.raises(LimitExceeded) as raised:
        parse_html(page("<b>x</b>" * 5000).encode(), max_nodes=1000)
    assert raised.value.reason is Reason.TOO_MANY_NODES
    with pytest.raises(TypeError):
        LimitExceeded("too_many_nodes", "a bare string is not a reason")


def test_nul_characters_are_dropped_and_the_renderers_marks_never_reach_the_text():
    doc = load_document(
        page("<p>a\x00b</p><p>c\x01d</p><table><tr><td>e\x01</td><td>f</td></tr></table>"), ExtractConfig()
    )
    assert doc.texts[0] == "ab"  # as browsers do
    assert render_slots(doc, range(len(doc.texts))).splitlines() == ["ab", "cd", "e\tf"]


def test_an_unclosed_title_ends_at_its_line():
    parsed = parse_html(b"<html><head><title>News of the day\n</head><body><p>" + SENTENCE.encode() + b"</p></body>")
    assert parsed.root.findtext(".//title") == "News of the day"
    assert parsed.root.findtext(".//p") == SENTENCE


def test_long_tags_are_found_exactly():
    rnd = random.Random(7)
    pieces = [b"<", b">", b"a", b" ", b"<b", b"</b>", b'"', b"\n"]
    runs = [100, 8191, 8192, 16382, 16383, 16384, 16385, 24575, 40000]
    cases = [b"", b"<a" + b"x" * 16384, b"<a" + b"x" * 16383, b"x" * 50000, b"<1" + b"x" * 20000]
    for _ in range(3000):
        parts = [
            rnd.choice(pieces) if rnd.random() < 0.6 else b"x" * rnd.choice(runs) for _ in range(rnd.randrange(1, 7))
        ]
        cases.append(b"".join(parts))
    assert sum(LONG_TAG_RE.search(case) is not None for case in cases) > 200
    for case in cases:
        assert has_long_tag(case) == (LONG_TAG_RE.search(case) is not None), [len(p) for p in case.split(b"<")]
