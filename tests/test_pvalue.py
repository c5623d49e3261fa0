"""P value (Lv et al. 2017): the formula on a hand-computed tree, preprocessing, options (corpus gates in
test_quality_gates.py)."""

from __future__ import annotations

import pytest
from sample_pages import (
    CHINESE_MENU,
    CHINESE_PARAGRAPHS,
    ENGLISH_PARAGRAPHS,
    MENU,
    RELATED,
    article_page,
    assert_selects,
    link_list_page,
)

from scrapy_bodytext import extract
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.extractors import pvalue

TINY = '<html><body><div><p{attrs}>abcd efgh</p><a href="u">xy</a></div></body></html>'


def test_p_value_of_a_tiny_tree_matches_the_hand_computed_formula():
    # canonical tag lengths: <body></body> 13, <div></div> 11, <p></p> 7, <a href="u"></a> 7 + 9 = 16
    # l_t(p) = 9, l_vt(p) = 9, l_s(p) = 7 + 9 = 16; L_VT = 11 - 2 = 9
    # P(p) = 9/16 · 9/9 = 0.5625 beats P(div) = 11/45 · 9/9 and P(body) = 11/58 · 9/9
    result = extract(TINY.format(attrs=""), extractor="pvalue")
    assert result.article_probability == pytest.approx(9 / 16)
    assert result.text == "abcd efgh"
    assert pvalue.p_value(11, 9, 34, 9) == pytest.approx(11 / 45)


def test_id_class_and_style_do_not_count_but_other_attributes_do():
    ignored = extract(TINY.format(attrs=' id="y" class="lead" style="color: red"'), extractor="pvalue")
    assert ignored.article_probability == pytest.approx(9 / 16)
    counted = extract(TINY.format(attrs=' title="t"'), extractor="pvalue")  # + len("title") + 1 + 4
    assert counted.article_probability == pytest.approx(9 / 26)


def test_faithful_lengths_keep_id_and_count_escapes():
    result = extract(TINY.format(attrs=' id="y"'), extractor="pvalue", options={"faithful": True})
    assert result.article_probability == pytest.approx(9 / (7 + 7 + 9))  # id="y" adds 2 + 1 + 4
    escaped = extract(
        TINY.format(attrs="").replace("abcd efgh", "abcd &amp; efgh"), extractor="pvalue", options={"faithful": True}
    )
    assert escaped.article_probability == pytest.approx(11 / (7 + 11 + 4))  # "&" is written "&amp;"


def test_removed_elements_and_their_text_do_not_count():
    html = (
        "<html><body><div><p>abcd efgh</p><form><p>search this site now</p></form>"
        '<aside>more from the author</aside><img src="x.png" alt="a"></div></body></html>'
    )
    result = extract(html, extractor="pvalue")
    assert result.text == "abcd efgh"
    assert result.article_probability == pytest.approx(9 / 16)  # as if form, aside and img were gone


def test_text_less_decoration_is_cleaned_except_inside_div_and_p():
    # section = <section></section> 19 + two <p></p> 14 + 8 characters; the empty i and b are deleted
    cleaned = extract(
        "<html><body><section><p>aaaa</p><p>bbbb</p><i></i><b></b></section></body></html>", extractor="pvalue"
    )
    assert cleaned.article_probability == pytest.approx(8 / (19 + 14 + 8))
    # the reference's clean() does not enter a div, so the empty <i></i> (7) inside it still counts
    kept = extract("<html><body><div><p>aaaa</p><p>bbbb</p><i></i></div></body></html>", extractor="pvalue")
    assert kept.article_probability == pytest.approx(8 / (11 + 14 + 7 + 8))


def test_links_and_line_breaks_are_not_candidates():
    html = '<html><body><p>ab<a href="u">a long anchor text</a></p></body></html>'
    result = extract(html, extractor="pvalue")
    assert "a long anchor text" in result.text  # the <p> holding the anchor, never the anchor alone


def test_no_valid_text_gives_probability_zero():
    result = extract('<html><body><a href="u">only a link</a></body></html>', extractor="pvalue")
    assert result.article_probability == 0.0 and result.text == ""


def test_article_paragraphs_are_selected_without_menu_and_related_links():
    result = extract(article_page(ENGLISH_PARAGRAPHS), extractor="pvalue")
    assert_selects(result.text, ENGLISH_PARAGRAPHS, MENU[1:] + RELATED)
    assert result.is_article


def test_cjk_article_is_selected_by_characters():
    result = extract(article_page(CHINESE_PARAGRAPHS, CHINESE_MENU, []), extractor="pvalue")
    assert_selects(result.text, CHINESE_PARAGRAPHS, CHINESE_MENU[1:])
    assert result.is_article


def test_link_list_page_is_not_an_article():
    listing = extract(link_list_page(), extractor="pvalue")
    assert listing.article_probability < 0.5
    assert not listing.is_article


def test_min_valid_chars_turns_short_answers_into_non_articles():
    html = TINY.format(attrs="")
    result = extract(html, extractor="pvalue", options={"min_valid_chars": 100})
    assert result.article_probability == pytest.approx(0.5 * 9 / 100)
    assert result.text == "abcd efgh" and not result.is_article
    long_enough = extract(html, extractor="pvalue", options={"min_valid_chars": 9})
    assert long_enough.article_probability == pytest.approx(9 / 16)
    cjk = extract(
        html.replace("abcd efgh", "这是一个很短的句子"),
        extractor="pvalue",
        options={"min_valid_chars": 1000, "min_valid_chars_cjk": 5},
    )
    assert cjk.article_probability == pytest.approx(9 / 16)  # the CJK minimum applies


@pytest.mark.parametrize(
    "options, message",
    [
        ({"faithful": "no"}, "faithful"),
        ({"remove_img": 0}, "remove_img"),
        ({"min_valid_chars": -1}, "min_valid_chars"),
        ({"min_valid_chars_cjk": 1.5}, "min_valid_chars_cjk"),
        ({"min_valid_chars": True}, "min_valid_chars"),
    ],
)
def test_options_are_validated(options, message):
    with pytest.raises(ValueError, match=message):
        pvalue.Options(**options)
    with pytest.raises(ValueError, match=message):
        ExtractConfig(extractor="pvalue", options={"pvalue": options})
