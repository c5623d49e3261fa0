"""CTD (Sun et al. 2011): the density formulas on a hand-computed tree, the selection, and options (corpus gates:
test_quality_gates.py)."""

from __future__ import annotations

import math

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
from scrapy_bodytext.extractors import ctd
from scrapy_bodytext.page.document import Document
from scrapy_bodytext.page.parse import parse_html


def doc_of(html: str) -> Document:
    return Document(parse_html(html).root)


def test_densities_of_a_tiny_tree_match_the_hand_computed_formula():
    # body(0) > div(1) > [p(2) "abcd efgh", a(3) "xy"]: C = 11, LC = 2, ratio = 2/11
    found = ctd.densities(doc_of('<html><body><div><p>abcd efgh</p><a href="u">xy</a></div></body></html>'))
    e = math.e
    assert found.chars == [11, 11, 9, 2]
    assert found.tags == [3, 2, 0, 0]
    assert found.link_chars == [2, 2, 0, 2]
    assert found.link_tags == [1, 1, 0, 0]  # the <a> child adds one link tag to div, div passes it on
    ctd_p = 9 * math.log(9) / math.log(math.log(9 * 1 / 9 + (2 / 11) * 9 + e))  # T, LC, LT: 0 -> 1
    ctd_a = 0.0  # all of its text is link text: ln(C·T / (LC·LT)) = ln 1
    ctd_div = (11 / 2) * math.log(11 * 2 / (2 * 1)) / math.log(math.log(11 * 2 / 9 + (2 / 11) * 11 + e))
    ctd_body = (11 / 3) * math.log(11 * 3 / (2 * 1)) / math.log(math.log(11 * 2 / 9 + (2 / 11) * 11 + e))
    assert found.ctd == pytest.approx([ctd_body, ctd_div, ctd_p, ctd_a])
    # a leaf's DensitySum is its CTD; otherwise the sum over the children
    assert found.density_sum == pytest.approx([ctd_div, ctd_p + ctd_a, ctd_p, ctd_a])
    # div and p share the largest DensitySum: the first in document order wins, as in the reference
    assert found.best[0] == 1


def test_loose_text_counts_as_a_pseudo_child_in_density_sum():
    html = '<html><body><div>loose words here<p>abcd</p><a href="u">xy</a> tail</div></body></html>'
    found = ctd.densities(doc_of(html))
    ratio = 2 / 26
    loose = sum(n * math.log(n) / math.log(math.log(ratio * n + math.e)) for n in (16, 4))
    assert found.density_sum[1] == pytest.approx(found.ctd[2] + found.ctd[3] + loose)
    assert ctd.loose_text_density(1, ratio) == 0.0  # ln 1 = 0


def test_page_without_links_has_finite_densities():
    found = ctd.densities(doc_of("<html><body><div>loose text<p>one two three</p></div></body></html>"))
    assert all(math.isfinite(value) for value in found.density_sum)


def test_article_paragraphs_are_selected_without_menu_and_related_links():
    result = extract(article_page(ENGLISH_PARAGRAPHS), extractor="ctd")
    assert_selects(result.text, ENGLISH_PARAGRAPHS, MENU[1:] + RELATED)
    assert result.is_article


def test_cjk_article_is_selected():
    result = extract(article_page(CHINESE_PARAGRAPHS, CHINESE_MENU, []), extractor="ctd")
    assert_selects(result.text, CHINESE_PARAGRAPHS, CHINESE_MENU[1:])


def test_link_list_scores_below_an_article():
    listing = extract(link_list_page(), extractor="ctd", options={"calibrated": False})
    article = extract(article_page(ENGLISH_PARAGRAPHS), extractor="ctd", options={"calibrated": False})
    assert listing.article_probability < 0.5 < article.article_probability
    calibrated = extract(link_list_page(), extractor="ctd")
    assert calibrated.article_probability == pytest.approx(ctd.CALIBRATION(listing.article_probability))


def test_empty_page_gives_nothing():
    result = extract("<html><body><div></div></body></html>", extractor="ctd")
    assert result.text == "" and result.article_probability == 0.0


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_options_are_validated(bad):
    with pytest.raises(ValueError, match="calibrated"):
        ctd.Options(calibrated=bad)
    with pytest.raises(ValueError, match="calibrated"):
        ExtractConfig(extractor="ctd", options={"ctd": {"calibrated": bad}})
