"""BTE: Baroni's linear scan against Finn's brute-force T(i,j), behaviour on small pages (corpus gates:
test_quality_gates.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sample_pages import CHINESE_MENU, CHINESE_PARAGRAPHS, article_page, assert_selects

from scrapy_bodytext import extract
from scrapy_bodytext.extractors import bte
from scrapy_bodytext.extractors.maxsubarray import max_subarray
from scrapy_bodytext.output.text import render_slots
from scrapy_bodytext.page.document import Document
from scrapy_bodytext.page.parse import parse_html


# ----------------------------------------------------------------------------- brute-force references
def finn_brute_force(bits: list[int]) -> tuple[int, int, int]:
    """Finn's objective enumerated over every 0 <= i <= j < N, literally:
    T(i,j) = tags before i + words in [i, j] + tags after j. Best T, then longest, then earliest.
    Returns (i, j + 1, T − N_tag); (0, 0, 0) when no span has more words than tags."""
    best = None
    n_tag = sum(bits)
    for i in range(len(bits)):
        for j in range(i, len(bits)):
            t = sum(bits[:i]) + sum(1 - b for b in bits[i : j + 1]) + sum(bits[j + 1 :])
            key = (t, j - i, -i)
            if best is None or key > best[0]:
                best = (key, i, j)
    if best is None or best[0][0] - n_tag <= 0:
        return 0, 0, 0
    return best[1], best[2] + 1, best[0][0] - n_tag


def brute_force_max_subarray(weights: list[int], lengths: list[int]) -> tuple[int, int, int]:
    best = None
    for i in range(len(weights)):
        for j in range(i + 1, len(weights) + 1):
            key = (sum(weights[i:j]), sum(lengths[i:j]), -i)
            if best is None or key > best[0]:
                best = (key, i, j)
    return best[1], best[2], best[0][0]


def doc_of(html: str) -> Document:
    return Document(parse_html(html).root)


# ----------------------------------------------------------------------------- linear form == Finn
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-4, 4), st.integers(1, 3)), min_size=1, max_size=14))
def test_max_subarray_matches_brute_force_including_ties(items):
    weights = [w for w, _ in items]
    lengths = [n for _, n in items]
    assert max_subarray(weights, lengths) == brute_force_max_subarray(weights, lengths)


def test_max_subarray_tie_rules():
    # equal scores: the longer span wins, the zero-sum detour is kept
    assert max_subarray([2, -2, 2]) == (0, 3, 2)
    # equal score and length: the earlier one
    assert max_subarray([3, -5, 3]) == (0, 1, 3)
    assert max_subarray([]) == (0, 0, 0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=0, max_size=16))
def test_bte_on_a_page_chooses_finns_span(is_tag):
    """Random word/tag sequences as a page (words w0, w1, ...; tags <br>): the extracted words are
    exactly Finn's brute-force span over the document's token stream, ties included."""
    parts, words = [], []
    for position, tag in enumerate(is_tag):
        if tag:
            parts.append("<br>")
        else:
            words.append(f"w{position}")
            parts.append(f" w{position} ")
    doc = doc_of("<html><body>" + "".join(parts) + "</body></html>")
    # token stream the document defines: <body>, the sequence, </body>
    bits = [1, *(1 if tag else 0 for tag in is_tag), 1]
    i, j, score = finn_brute_force(bits)
    expected_words = [f"w{n - 1}" for n in range(i, j) if bits[n] == 0]
    start, end, found_score = bte.best_span(doc, bte.Options())
    assert found_score == score
    assert render_slots(doc, bte.extract(doc, bte.Options()).slots).split() == expected_words
    assert (end > start) == bool(expected_words)


def test_token_runs_follow_the_document_columns():
    doc = doc_of("<html><body><p>one two</p><ul><li><a href=x>menu</a></li></ul>three</body></html>")
    weights, lengths, slots = bte.token_runs(doc)
    # <body><p> | one two | </p><ul><li><a> | menu | </a></li></ul> | three | </body>
    assert weights == [-2, 2, -4, 1, -3, 1, -1]
    assert lengths == [2, 2, 4, 1, 3, 1, 1]
    assert slots[1] == (0, 1) and slots[3] == (1, 2) and slots[5] == (2, 3)


def test_cjk_token_weight_scales_cjk_tokens_only():
    doc = doc_of("<html><body><p>中文字 abc</p></body></html>")
    assert bte.token_runs(doc, 1.0)[0] == [-2, 4, -2]
    assert bte.token_runs(doc, 0.5)[0] == [-2, 2.5, -2]


# ----------------------------------------------------------------------------- behaviour
ARTICLE = b"""<html><head><title>News</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li>
<li><a href="/culture">Culture and arts</a></li><li><a href="/tech">Technology</a></li></ul></nav>
<div class="story"><h1>River levels rise after a week of rain</h1>
<p>The river rose by two metres overnight, and the town council closed the lower bridge as a precaution
while engineers inspected the supports.</p>
<p>Residents on the eastern bank were asked to move cars to higher ground. Volunteers filled sandbags at
the fire station through the night, and the school opened its hall to families who had to leave.</p>
<p>Forecasters expect the rain to ease by Thursday, but the water will keep rising for another day as the
hills drain into the valley.</p></div>
<footer><ul><li><a href="/about">About us</a></li><li><a href="/privacy">Privacy</a></li>
<li><a href="/contact">Contact</a></li><li><a href="/jobs">Jobs</a></li></ul></footer>
</body></html>"""

LINK_LIST = (
    b"<html><body><ul>"
    + b"".join(b'<li><a href="/a%d">Headline number %d of the day</a></li>' % (n, n) for n in range(40))
    + b"</ul></body></html>"
)


def test_article_paragraphs_without_menus():
    result = extract(ARTICLE, extractor="bte")
    assert "River levels rise" in result.text
    assert "The river rose by two metres" in result.text
    assert "hills drain into the valley." in result.text
    for boilerplate in ("Home", "Sport", "Privacy", "Jobs"):
        assert boilerplate not in result.text
    assert len(result.text.splitlines()) == 4  # heading and three paragraphs, one per line
    assert result.is_article


@pytest.mark.parametrize("weight", [1.0, 0.6])
def test_chinese_article_without_word_spaces(weight):
    # one token per Han character; the menu loses, the related-links list after the article (long
    # titles, 4 tags each) is kept: Baroni's "a bit of boilerplate at the end"
    result = extract(
        article_page(CHINESE_PARAGRAPHS, CHINESE_MENU), extractor="bte", options={"cjk_token_weight": weight}
    )
    assert_selects(result.text, CHINESE_PARAGRAPHS, CHINESE_MENU)


def test_link_list_is_not_an_article():
    result = extract(LINK_LIST, extractor="bte")
    assert not result.is_article
    assert result.article_probability < extract(ARTICLE, extractor="bte").article_probability


def test_plain_text_is_all_body():
    text = "Just a plain text file.\nWith two lines of words and no markup at all."
    result = extract(text.encode(), extractor="bte")
    assert result.text.split() == text.split()
    assert result.article_probability > 0.9


def test_empty_page_gives_nothing():
    result = extract(b"<html><body><div><br><img src=x></div></body></html>", extractor="bte")
    assert result.text == "" and result.article_probability == 0.0 and not result.is_article


SPLIT_PARAGRAPH = (
    "<html><body><p>Alpha <i>x</i><i>y</i><i>z</i> beta gamma delta epsilon zeta eta theta iota kappa"
    " lambda</p></body></html>"
)


def test_span_can_start_inside_a_paragraph_and_snap_widens_it():
    # weights: Alpha +1, <i> -1, x +1, </i><i> -2, y +1, </i><i> -2, z +1, </i> -1, beta..lambda +10
    faithful = extract(SPLIT_PARAGRAPH, extractor="bte").text
    assert faithful == "z beta gamma delta epsilon zeta eta theta iota kappa lambda"
    snapped = extract(SPLIT_PARAGRAPH, extractor="bte", options={"snap_to_blocks": True}).text
    assert snapped == "Alpha xyz beta gamma delta epsilon zeta eta theta iota kappa lambda"


def test_probability_is_the_calibrated_region_p():
    doc = doc_of(ARTICLE.decode())
    found = bte.extract(doc, bte.Options())
    assert found.probability == pytest.approx(bte.CALIBRATION(found.debug["region_p"]))
    assert 0.0 < found.debug["region_p"] <= 1.0


@pytest.mark.parametrize(
    "options",
    [
        {"cjk_token_weight": 0},
        {"cjk_token_weight": -1.0},
        {"cjk_token_weight": float("nan")},
        {"cjk_token_weight": "1"},
        {"snap_to_blocks": "yes"},
        {"unknown": 1},
    ],
)
def test_invalid_options_are_rejected(options):
    with pytest.raises(ValueError):
        extract(ARTICLE, extractor="bte", options=options)
