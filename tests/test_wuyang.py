"""Wu & Yang reconstruction: block scoring, language handling, the acceptance threshold (corpus
gates in test_quality_gates.py)."""

from __future__ import annotations

import math

import pytest
from sample_pages import (
    CHINESE_MENU,
    CHINESE_PARAGRAPHS,
    ENGLISH_PARAGRAPHS,
    GERMAN_MENU,
    GERMAN_PARAGRAPHS,
    JAPANESE_PARAGRAPHS,
    MENU,
    RELATED,
    article_page,
    assert_selects,
    link_list_page,
)

from scrapy_bodytext import extract
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.extractors import wuyang


def test_block_score_is_the_language_model_times_the_penalties():
    options = wuyang.Options()
    # LM = s²/n = 30²/100 = 9; pen = (1 − 0.1) · 1/(1 + 0.5·0.4) · 0.5
    assert wuyang.block_score(100, 30, 0.1, 0.4, True, options) == pytest.approx(9 * 0.9 / 1.2 * 0.5)
    assert wuyang.block_score(100, 30, 0.1, 0.4, False, options) == pytest.approx(9 * 0.9 / 1.2)
    assert wuyang.block_score(0, 0, 0.0, 0.0, False, options) == 0.0
    # diluting the same stop words into more tokens lowers the score
    assert wuyang.block_score(200, 30, 0.0, 0.0, False, options) < wuyang.block_score(100, 30, 0.0, 0.0, False, options)


def test_probability_is_the_logistic_of_density_count_and_link_density():
    z = wuyang.LOGISTIC_A * (0.4 - 0.2) + wuyang.LOGISTIC_B * math.log(60 / 15) - wuyang.LOGISTIC_C * 0.1
    assert wuyang.article_probability(0.4, 60, 0.1, 0.2, 15) == pytest.approx(1 / (1 + math.exp(-z)))


@pytest.mark.parametrize(
    "paragraphs, menu, related, lang",
    [
        (ENGLISH_PARAGRAPHS, MENU, RELATED, "en"),
        (GERMAN_PARAGRAPHS, GERMAN_MENU, RELATED, "de"),
        (CHINESE_PARAGRAPHS, CHINESE_MENU, [], "zh"),
        (JAPANESE_PARAGRAPHS, CHINESE_MENU, [], "ja"),
    ],
)
def test_article_block_is_found_and_accepted_in_several_languages(paragraphs, menu, related, lang):
    result = extract(article_page(paragraphs, menu, related), extractor="wuyang")
    assert result.language == lang
    assert_selects(result.text, paragraphs, menu[1:] + related)
    assert result.debug["accepted"]
    assert result.is_article


def test_link_list_page_has_no_accepted_block():
    result = extract(link_list_page(), extractor="wuyang")
    assert result.article_probability < 0.5
    assert not result.is_article


def test_threshold_rejection_caps_the_probability():
    # one paragraph of prose: a candidate, but fewer stop words than theta_s demands
    html = "<html><body><div><p>" + ENGLISH_PARAGRAPHS[0] + "</p></div></body></html>"
    lenient = extract(html, extractor="wuyang", options={"theta_s": 5})
    strict = extract(html, extractor="wuyang", options={"theta_s": 500})
    assert lenient.debug["accepted"] and not strict.debug["accepted"]
    assert strict.article_probability <= wuyang.REJECTED_MAX < 0.5
    assert strict.text == lenient.text  # the best block is returned either way


def test_short_pages_have_no_candidate():
    result = extract("<html><body><div><p>Too short to be a story.</p></div></body></html>", extractor="wuyang")
    assert result.text == "" and result.article_probability == 0.0


def test_forced_language_overrides_detection():
    page = article_page(ENGLISH_PARAGRAPHS)
    forced = extract(page, extractor="wuyang", options={"language": "de"})
    assert forced.language == "de"
    assert forced.debug["s"] < extract(page, extractor="wuyang").debug["s"]


def test_page_without_stop_word_language_falls_back_to_region_p():
    rows = "".join("<p>" + " ".join(f"K{i}{j}" for j in range(30)) + "</p>" for i in range(6))  # codes only
    result = extract(f"<html><body><div>{rows}</div></body></html>", extractor="wuyang")
    assert result.language is None
    assert result.article_probability == pytest.approx(result.debug["region_p"])


@pytest.mark.parametrize(
    "options, message",
    [
        ({"min_chars": -1}, "min_chars"),
        ({"paragraph_tokens": 2.5}, "paragraph_tokens"),
        ({"gamma": "high"}, "gamma"),
        ({"theta_d": 1.5}, "theta_d"),
        ({"max_link_density": True}, "max_link_density"),
        ({"language": "klingon"}, "language"),
    ],
)
def test_options_are_validated(options, message):
    with pytest.raises(ValueError, match=message):
        wuyang.Options(**options)
    with pytest.raises(ValueError, match=message):
        ExtractConfig(extractor="wuyang", options={"wuyang": options})
