"""Stop-word lists and the page-language choice of ``language.py``."""

from __future__ import annotations

import pytest
from sample_pages import (
    CHINESE_MENU,
    CHINESE_PARAGRAPHS,
    ENGLISH_PARAGRAPHS,
    GERMAN_MENU,
    GERMAN_PARAGRAPHS,
    JAPANESE_PARAGRAPHS,
    article_page,
)

from scrapy_bodytext.page import language
from scrapy_bodytext.page.document import Document
from scrapy_bodytext.page.parse import parse_html

KOREAN_PARAGRAPHS = [
    "시의회는 화요일 저녁에 회의를 열고 오래된 기차역의 미래에 대해 논의했다. 이 건물은 십 년 넘게 비어 있었고 지금은 "
    "수리가 시급하다.",
    "많은 주민들은 이 건물이 도서관이나 시장이 되기를 바란다고 말했다. 그리고 동네에는 그만큼 큰 공공 공간이 없다.",
]
FRENCH_PARAGRAPHS = [
    "Le conseil municipal s'est réuni mardi soir pour discuter de l'avenir de l'ancienne gare, qui est vide "
    "depuis plus de dix ans et qui a besoin de travaux urgents.",
    "Plusieurs habitants ont dit au conseil qu'ils aimeraient que le bâtiment devienne une bibliothèque ou "
    "une halle, car il n'y a pas d'autre espace public de cette taille dans le quartier.",
]


def doc_of(html: str) -> Document:
    return Document(parse_html(html).root)


def test_stopword_lists_come_lower_cased_from_the_package_and_hold_letters_only():
    english = language.stopwords("en")
    assert {"the", "and", "of", "don't"} <= english
    assert all(word == word.lower() for word in english)
    assert not any(word.isdigit() for word in language.stopwords("es"))
    assert {"的", "了", "是", "在", "和"} <= language.stopwords("zh")
    assert {"は", "が", "を", "に", "の"} <= language.stopwords("ja")
    assert language.stopwords("xx") == frozenset()
    assert language.stopwords("de") is language.stopwords("de")  # loaded once
    assert len(language.supported()) >= 50


@pytest.mark.parametrize(
    "code, expected",
    [
        ("en-US", "en"),
        ("de_DE", "de"),
        ("ZH-Hans", "zh"),
        ("iw", "he"),
        ("nb", "no"),
        ("", None),
        (None, None),
    ],
)
def test_language_tags_are_reduced_to_their_primary_code(code, expected):
    assert language.normalize_code(code) == expected


@pytest.mark.parametrize(
    "paragraphs, menu, expected",
    [
        (ENGLISH_PARAGRAPHS, None, "en"),
        (GERMAN_PARAGRAPHS, GERMAN_MENU, "de"),
        (FRENCH_PARAGRAPHS, None, "fr"),
        (CHINESE_PARAGRAPHS, CHINESE_MENU, "zh"),
        (JAPANESE_PARAGRAPHS, CHINESE_MENU, "ja"),
        (KOREAN_PARAGRAPHS, None, "ko"),
    ],
)
def test_undeclared_language_is_found_from_the_text(paragraphs, menu, expected):
    page = article_page(paragraphs, menu) if menu else article_page(paragraphs)
    assert language.detect_language(doc_of(page)) == expected


def test_a_plausible_declared_language_wins_over_detection():
    # Norwegian and Danish share most function words; the declaration decides between close languages
    html = (
        '<html lang="da-DK"><body><p>'
        + " ".join(["det er en god dag og vi er glade for det"] * 5)
        + "</p></body></html>"
    )
    assert language.detect_language(doc_of(html)) == "da"
    meta = (
        '<html><head><meta http-equiv="Content-Language" content="no"></head><body><p>'
        + " ".join(["det er en god dag og vi er glade for det"] * 5)
        + "</p></body></html>"
    )
    assert language.detect_language(doc_of(meta)) == "no"


def test_a_declaration_the_text_contradicts_is_ignored():
    assert language.detect_language(doc_of(article_page(GERMAN_PARAGRAPHS, GERMAN_MENU, lang="en"))) == "de"
    assert language.detect_language(doc_of(article_page(CHINESE_PARAGRAPHS, CHINESE_MENU, lang="en"))) == "zh"


def test_no_language_without_enough_text():
    assert language.detect_language(doc_of("<html><body><p>Q3 2024: 17.5 %</p></body></html>")) is None
    assert language.detect_language(doc_of("<html><body></body></html>")) is None


def test_stopword_counts_are_per_slot_and_case_insensitive():
    doc = doc_of("<html><body><p>The cat AND the Dog</p><p>Blue whales sing</p><p>Don’t panic</p></body></html>")
    assert language.stopword_counts(doc, "en") == [3, 0, 1]  # The, AND, the / - / Don't
    assert language.token_counts(doc, "en") == [5, 3, 2]
    assert language.stopword_counts(doc, None) == [0, 0, 0]


def test_cjk_text_is_counted_per_character():
    doc = doc_of("<html><body><p>我的书在这里</p><p>私は学生です</p></body></html>")
    assert language.token_counts(doc, "zh") == [6, 6]
    assert language.stopword_counts(doc, "zh")[0] == sum(ch in language.stopwords("zh") for ch in "我的书在这里")
    assert language.stopword_counts(doc, "ja")[1] == sum(ch in language.stopwords("ja") for ch in "私は学生です")


def test_counts_are_cached_on_the_document():
    doc = doc_of(article_page(ENGLISH_PARAGRAPHS))
    assert language.stopword_counts(doc, "en") is language.stopword_counts(doc, "en")
    assert language.detect_language(doc) == language.detect_language(doc)
