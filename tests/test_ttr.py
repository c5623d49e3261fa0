"""TTR/CETR: per-line ratios from the document columns, smoothing, every selection method, re-wrapping
of minified pages, probability and options (corpus gates in test_quality_gates.py)."""

from __future__ import annotations

import pytest
from sample_pages import assert_selects

from scrapy_bodytext import extract
from scrapy_bodytext.extractors import ttr
from scrapy_bodytext.page.document import Document
from scrapy_bodytext.page.parse import parse_html


def doc_of(html: str) -> Document:
    return Document(parse_html(html).root)


# ----------------------------------------------------------------------------- per-line ratio
def test_ratio_counts_text_characters_and_start_tags_per_source_line():
    html = (
        "<html><body>\n"  # 1
        "<div>\n"  # 2
        "<p>Hello world</p>\n"  # 3: 10 characters, 1 tag
        "<p>Two <b>bold</b> words</p>\n"  # 4: 12 characters, 2 tags
        "<p>Multi\n"  # 5: 5 characters, 1 tag
        "line   text</p>\n"  # 6: 8 characters, no tag
        "</div></body></html>\n"
    )
    x, y, spans, _ = ttr.source_lines(doc_of(html))
    assert (x[3], y[3]) == (10, 1)
    assert (x[4], y[4]) == (12, 2)
    assert (x[5], y[5], x[6], y[6]) == (5, 1, 8, 0)
    assert (x[2], y[2]) == (0, 1)
    assert spans[-1] == (5, 6) or (5, 6) in spans  # the two-line slot covers lines 5 and 6


def test_smoothing_keeps_constants_and_spreads_an_impulse_symmetrically():
    assert ttr.smooth([4.0] * 9, 1.0, 3) == pytest.approx([4.0] * 9)
    spread = ttr.smooth([0] * 6 + [10] + [0] * 6, 1.0, 3)
    assert spread == pytest.approx(spread[::-1])
    assert sum(spread) == pytest.approx(10.0)  # away from the edges nothing is lost
    assert spread[6] > spread[5] > spread[4] > spread[3] > 0 and spread[2] == 0
    assert ttr.smooth([1.0, 5.0], 1.0, 0) == [1.0, 5.0]


def test_derivative_uses_the_following_lines_and_the_last_two_at_the_end():
    assert ttr.derivative([0.0, 0.0, 0.0, 9.0], 3) == pytest.approx([3.0, 4.5, 9.0, 4.5])


def test_one_dimensional_clusterings_drop_the_lowest_cluster():
    values = [0.0, 0.5, 0.2, 0.1, 20.0, 22.0, 21.0, 80.0, 85.0, 0.3]
    expected = [v > 10 for v in values]
    boundary = ttr.lowest_boundary(ttr.kmeans_1d(values, 3, 100))
    assert [v > boundary for v in values] == expected
    assert ttr.em_1d(values, 3, 100) == expected
    assert ttr.farthest_first_1d(values, 3) == expected


def test_cetr_kmeans_keeps_the_origin_cluster_out():
    points = [(0.0, 0.0), (0.1, 0.2), (0.2, 0.0), (50.0, 5.0), (55.0, 4.0), (10.0, 40.0), (12.0, 38.0)]
    assert ttr.cetr_kmeans(points, 3, 100) == [False, False, False, True, True, True, True]


# ----------------------------------------------------------------------------- pages
PARAGRAPHS = [
    "The river rose by two metres overnight, and the town council closed the lower bridge as a precaution "
    "while engineers inspected the supports and divers checked the pillars for damage from floating trees.",
    "Residents on the eastern bank were asked to move cars to higher ground. Volunteers filled sandbags at "
    "the fire station through the night, and the school opened its hall to families who had to leave.",
    "Forecasters expect the rain to ease by Thursday, but the water will keep rising for another day as the "
    "hills drain into the valley, and the council asks everybody to stay away from the embankment.",
    "Insurance advisers will hold an open meeting at the library on Saturday morning for anyone whose home "
    "or business was flooded, and the county has promised emergency grants for the worst affected streets.",
]
MENU = ["Home", "World", "Sport", "Culture", "Technology", "Weather", "Opinion", "Video"]
FOOTER = ["About us", "Privacy", "Contact", "Jobs", "Advertise", "Terms"]


def article_page(separator: str = "\n") -> str:
    """Menu, article, footer; one element per source line (or all on one line with separator "")."""
    lines = ["<html>", "<head><title>Flood</title></head>", "<body>", "<div id='top'>", "<ul>"]
    lines += [f"<li><a href='/{label}'>{label}</a></li>" for label in MENU]
    lines += [
        "</ul>",
        "</div>",
        "<div id='main'>",
        "<div class='story'>",
        "<div class='body'>",
        "<h1>River levels rise after a week of rain</h1>",
    ]
    lines += [f"<p>{paragraph}</p>" for paragraph in PARAGRAPHS]
    lines += ["</div>", "</div>", "</div>", "<div id='footer'>", "<div class='links'>", "<ul>"]
    lines += [f"<li><a href='/{label}'>{label}</a></li>" for label in FOOTER]
    lines += ["</ul>", "</div>", "</div>", "</body>", "</html>"]
    return separator.join(lines)


@pytest.mark.parametrize("method", ttr.METHODS)
def test_every_method_returns_the_article_and_not_the_menus(method):
    result = extract(article_page(), extractor="ttr", options={"method": method})
    assert_selects(result.text, PARAGRAPHS, MENU + FOOTER)
    assert result.debug["rewrapped"] is False
    assert result.article_probability > 0.5


@pytest.mark.parametrize("method", ttr.METHODS)
def test_minified_page_is_rewrapped_one_element_per_line(method):
    result = extract(article_page(separator=""), extractor="ttr", options={"method": method})
    assert result.debug["rewrapped"] is True
    assert_selects(result.text, PARAGRAPHS, MENU + FOOTER)


def test_link_list_page_is_not_an_article():
    html = (
        "<html><body>\n<ul>\n"
        + "\n".join(f"<li><a href='/n{n}'>Headline number {n} of the day</a></li>" for n in range(40))
        + "\n</ul>\n</body></html>"
    )
    result = extract(html, extractor="ttr")
    assert not result.is_article and result.article_probability == 0.0  # no text outside links


def test_uniform_page_is_all_content_by_the_cv_guard():
    html = "<html><body>\n" + "\n".join(f"<p>{PARAGRAPHS[n % 4]}</p>" for n in range(24)) + "\n</body></html>"
    result = extract(html, extractor="ttr")
    assert len(result.text.splitlines()) == 24
    assert result.is_article


def test_plain_text_is_all_content():
    text = "Just a plain text file.\nWith two lines of words and no markup at all."
    result = extract(text, extractor="ttr")
    assert result.text.split() == text.split()


def test_empty_page_gives_nothing():
    result = extract("<html><body>\n<div>\n<img src=x>\n</div>\n</body></html>", extractor="ttr")
    assert result.text == "" and result.article_probability == 0.0


def test_probability_needs_a_run_of_consecutive_content_lines():
    lines = ["<html><body>"] + [f"<div><span>{n}</span></div>" for n in range(12)]
    lines += [f"<p>{PARAGRAPHS[0]}</p>"] + [f"<div><span>{n}</span></div>" for n in range(12)]
    html = "\n".join(lines + ["</body></html>"])
    alone = extract(html, extractor="ttr", options={"radius": 0})
    assert PARAGRAPHS[0] in alone.text and alone.article_probability == 0.0
    allowed = extract(html, extractor="ttr", options={"radius": 0, "min_run": 1})
    assert allowed.article_probability > 0.0


@pytest.mark.parametrize(
    "options",
    [
        {"method": "prediction"},
        {"sigma": 0},
        {"sigma": "1"},
        {"radius": -1},
        {"radius": 1.5},
        {"clusters": 1},
        {"alpha": 0},
        {"threshold_lambda": -1},
        {"cv_guard": float("nan")},
        {"standardize": 1},
        {"min_run": 0},
        {"max_iterations": True},
        {"unknown": 1},
    ],
)
def test_invalid_options_are_rejected(options):
    with pytest.raises(ValueError):
        extract(article_page(), extractor="ttr", options=options)


@pytest.mark.corpus
def test_no_words_are_glued_on_real_pages(corpus):
    """60 dev pages, articles and not: no capitalised word comes out stuck to the word before it
    where the page holds the two apart (it read ``focusedNotion``, ``MeinungHandelspolitik``)."""
    import random

    from glued_words import glued_words, page_words

    pages = random.Random(60).sample(corpus, 60)
    glued = {
        page.id: found
        for page in pages
        if (found := glued_words(extract(page.body, url=page.url, extractor="ttr").text, page_words(page.body)))
    }
    assert glued == {}


def test_inline_elements_without_whitespace_are_read_apart_unless_a_word_goes_on():
    html = (
        "<html><body><article>" + "<p><strong>Privacy focused</strong><span class=tag>Notion</span> is one "
        "of the <b>T</b>ools; the 33<sup>rd</sup> <a>Home</a><a>News</a>(<i>see</i>) 中文<a>链接</a>.</p>"
        * 4
        + "</article></body></html>"
    )
    text = extract(html.encode(), extractor="ttr").text
    assert text.splitlines()[0] == "Privacy focused Notion is one of the Tools; the 33rd Home News (see) 中文链接."
