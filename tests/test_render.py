"""The shared renderer: inline elements without whitespace between them are read apart unless the
page reads on in the same word, for every method (a glued ``focusedNotion`` was a renderer matter)."""

from __future__ import annotations

import random

import pytest
from glued_words import glued_words, page_words

from scrapy_bodytext import extract, extractors
from scrapy_bodytext.output.text import inline_joint, render_slots
from scrapy_bodytext.page.document import Document
from scrapy_bodytext.page.parse import parse_html


@pytest.mark.parametrize(
    ("before", "after", "joint"),
    [
        ("Privacy focused", "Notion", " "),  # a label and the next item, laid out apart by style sheets
        ("Meinung", "Handelspolitik", " "),
        ("2026", "Kommentar", " "),
        ("T", "he city", ""),  # a drop cap
        ("Gesundheit", "sausschuss", ""),  # one word, marked up in two
        ("33", "rd", ""),
        ("1", "0", ""),
        ("focused", ", and", ""),  # closing punctuation
        ("see (", "x", ""),  # an opening bracket
        ("well", "-known", ""),
        ("中文", "链接", ""),  # scripts written without spaces
        ("ภาษา", "ไทย", ""),
        ("already ", "spaced", ""),
        ("ends", " spaced", ""),
    ],
)
def test_what_joins_two_inline_text_nodes(before, after, joint):
    assert inline_joint(before, after) == joint


def test_two_links_are_two_items_whatever_their_text():
    doc = Document(
        parse_html(
            "<html><body><p>Tags: <a>canning</a><a>jam</a> pages <a>1</a><a>2</a> "
            "<a>北朝鮮</a><a>中国</a> and one <a>link</a>s <a><b>W</b>ord</a></p></body></html>"
        ).root
    )
    assert render_slots(doc, range(len(doc.texts))) == "Tags: canning jam pages 1 2 北朝鮮 中国 and one links Word"


def test_block_and_cell_boundaries_keep_their_marks():
    doc = Document(
        parse_html(
            "<html><body><h1>Title</h1><table><tr><td>a<b>b</b></td><td>c</td></tr></table>"
            "<p>One <i>two</i><span>Three</span></p><div>four</div>five</body></html>"
        ).root
    )
    assert render_slots(doc, range(len(doc.texts))) == "Title\nab\tc\nOne two Three\nfour\nfive"


@pytest.mark.corpus
@pytest.mark.parametrize("name", extractors.names())
def test_no_method_glues_words_on_real_pages(corpus, name):
    pages = random.Random(20).sample(corpus, 20)
    glued = {
        page.id: found
        for page in pages
        if (found := glued_words(extract(page.body, url=page.url, extractor=name).text, page_words(page.body)))
    }
    assert glued == {}


# --- the characters and elements a reader sees (docs/methods.md#rendered-text) ---------------------


def _rendered_text(body: str) -> str:
    doc = Document(parse_html(f"<html><body>{body}</body></html>").root)
    return render_slots(doc, range(len(doc.texts)))


def test_soft_hyphens_are_not_drawn():
    assert _rendered_text("<p>Bundes&shy;verfassungs&#173;gericht</p>") == "Bundesverfassungsgericht"


def test_zero_width_characters_are_not_drawn_and_a_node_of_nothing_else_is_no_text():
    assert _rendered_text("<p>zero&#8203;width join&#8288;er</p><p>&#8203;</p><p>&#xfeff;next</p>") == (
        "zerowidth joiner\nnext"
    )


def test_joiners_that_shape_a_script_are_kept():
    assert (
        _rendered_text("<p>\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645</p>")
        == "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    )


def test_text_is_composed_as_nfc():
    text = _rendered_text("<p>Cafe\u0301 <b>Zu\u0308rich</b></p>")
    assert text == "Caf\u00e9 Z\u00fcrich" and len(text) == 11


def test_ruby_annotations_are_left_out_and_the_base_text_kept():
    assert _rendered_text("<p><ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rt>じ</rt></ruby>を読む</p>") == "漢字を読む"


def test_the_fallback_content_of_media_is_not_drawn():
    assert _rendered_text(
        "<p>Listen:</p><audio controls src=a.mp3>Your browser does not support the audio element.</audio>"
        "<video><p>No video for you.</p></video><canvas>A chart.</canvas><iframe>frame text</iframe><p>After</p>"
    ) == ("Listen:\nAfter")


def test_block_elements_of_the_browser_style_sheet_end_lines():
    assert _rendered_text("<hgroup><p>Kicker</p>Headline</hgroup><search>Find</search>after") == (
        "Kicker\nHeadline\nFind\nafter"
    )


@pytest.mark.parametrize(
    ("before", "after", "joint"),
    [
        ('He called it "', "Dune", ""),  # an opening straight quote
        ('"Dune', '" and', ""),  # a closing one
        ("The Times", "'s", ""),  # an apostrophe after a word
        ("Dune", '"', ""),
        ("said:", '"Go', " "),  # a quote that opens the next text
    ],
)
def test_straight_quotes_join_the_text_they_enclose(before, after, joint):
    assert inline_joint(before, after) == joint


def test_metrics_read_gold_and_output_as_rendered():
    from scrapy_bodytext.evaluation.metrics import shingle_match

    assert (
        shingle_match(
            "Bundesverfassungsgericht urteilt heute über Café",
            "Bundes\u00adverfassungs\u00adgericht urteilt heute über Cafe\u0301",
        ).f1
        == 1.0
    )
