"""The default method: main text among boilerplate, article judgement, options, corpus gates."""

from __future__ import annotations

import json

import pytest
from corpus_figures import figures_of
from sample_pages import (
    CHINESE_MENU,
    CHINESE_PARAGRAPHS,
    ENGLISH_PARAGRAPHS,
    GERMAN_MENU,
    GERMAN_PARAGRAPHS,
    MENU,
    RELATED,
    SITE,
    article_page,
    assert_selects,
    link_list_page,
)

from scrapy_bodytext import DEFAULT_EXTRACTOR, extract
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.extractors.bodytext import context, model, page, units
from scrapy_bodytext.training.labels import paragraph_labels

COMMENTS = ["Great article, thanks!", "I disagree with the mayor on this one."]
SHARE = ["Share on Facebook", "Share on X", "Email this story"]


def news_page(paragraphs: list[str]) -> str:
    """An article with the in-body boilerplate real pages carry: a share bar, a related-links box
    between paragraphs, an ad caption and a comment section."""
    share = "".join(f'<li><a href="{SITE}/share/{i}">{item}</a></li>' for i, item in enumerate(SHARE))
    related = "".join(f'<li><a href="{SITE}/story/{i}.html">{item}</a></li>' for i, item in enumerate(RELATED))
    comments = "".join(f'<div class="comment"><p class="comment-body">{c}</p></div>' for c in COMMENTS)
    middle = len(paragraphs) // 2
    body = (
        "".join(f"<p>{p}</p>" for p in paragraphs[:middle])
        + f'<aside class="related-links"><h4>Read more</h4><ul>{related}</ul></aside>'
        + "".join(f"<p>{p}</p>" for p in paragraphs[middle:])
    )
    menu = "".join(f'<li><a href="{SITE}/{m.lower()}/">{m}</a></li>' for m in MENU)
    return (
        '<html lang="en"><head><title>Old station</title><meta property="og:type" content="article">'
        "</head><body>"
        f'<header><nav><ul class="menu">{menu}</ul></nav></header>'
        f'<main><article><h1>Old station</h1><ul class="share-bar">{share}</ul>{body}</article>'
        f'<section id="comments"><h3>Comments</h3>{comments}</section></main>'
        "<footer><p>© 2024 Town News. All rights reserved.</p></footer></body></html>"
    )


def test_is_the_default():
    assert DEFAULT_EXTRACTOR == "bodytext"
    assert extract(article_page(ENGLISH_PARAGRAPHS)).extractor == "bodytext"


def test_article_paragraphs_without_page_boilerplate():
    result = extract(article_page(ENGLISH_PARAGRAPHS), url=f"{SITE}/news/2024/05/old-station-future.html")
    assert_selects(result.text, ENGLISH_PARAGRAPHS, MENU + RELATED + ["About us", "©"])
    assert result.is_article and result.article_probability >= 0.5


def test_in_body_boilerplate_is_cut():
    result = extract(news_page(ENGLISH_PARAGRAPHS), url=f"{SITE}/news/2024/05/old-station-future.html")
    assert_selects(result.text, ENGLISH_PARAGRAPHS, MENU + RELATED + SHARE + COMMENTS + ["All rights reserved"])
    assert result.is_article


def test_paragraph_and_line_structure_is_kept():
    result = extract(news_page(ENGLISH_PARAGRAPHS))
    lines = result.text.splitlines()
    positions = [lines.index(p) for p in ENGLISH_PARAGRAPHS]
    assert positions == sorted(positions)


def test_link_list_page_is_not_an_article():
    result = extract(link_list_page(60), url=f"{SITE}/news/")
    assert result.article_probability < 0.5 and not result.is_article


@pytest.mark.parametrize(
    ("paragraphs", "menu", "lang"),
    [
        (GERMAN_PARAGRAPHS, GERMAN_MENU, "de"),
        (CHINESE_PARAGRAPHS, CHINESE_MENU, "zh"),
        (CHINESE_PARAGRAPHS, CHINESE_MENU, None),
    ],
)
def test_other_languages(paragraphs, menu, lang):
    result = extract(article_page(paragraphs, menu=menu, lang=lang), url=f"{SITE}/2024/05/12/bahnhof-zukunft")
    assert_selects(result.text, paragraphs, menu)
    assert result.language == ("de" if paragraphs is GERMAN_PARAGRAPHS else "zh")


def test_threshold_option_trades_recall():
    promo = "Our weekly letter brings the council's news to your inbox every Friday morning, free of charge."
    page = news_page(ENGLISH_PARAGRAPHS).replace("</main>", f'<aside class="promo"><p>{promo}</p></aside></main>')
    strict = extract(page, options={"min_paragraph_probability": 0.99}).text
    loose = extract(page, options={"min_paragraph_probability": 0.0}).text
    assert len(strict) < len(loose)
    assert promo in loose and promo not in strict
    assert "Great article, thanks!" not in strict
    assert "Great article, thanks!" in loose  # the cut at 0 keeps every line the selection reaches
    assert "Great article, thanks!" in extract(page, comments=True).comments


@pytest.mark.parametrize("value", [-0.1, 1.5, "high"])
def test_invalid_option_values_are_refused(value):
    with pytest.raises(ValueError, match="min_paragraph_probability"):
        ExtractConfig(options={"bodytext": {"min_paragraph_probability": value}})


def test_the_model_file_names_exactly_the_features_the_code_computes():
    loaded = model.load_model()
    data = json.loads(model.MODEL_FILE.read_text(encoding="utf-8"))
    assert set(data["first_pass"]["weights"]) == set(units.FEATURES)
    assert set(data["second_pass"]["linear"]["weights"]) == set(units.FEATURES) | set(context.FEATURES)
    asked = {name for tree in data["second_pass"]["trees"]["trees"] for name, _ in tree["questions"]}
    assert asked <= set(units.FEATURES) | set(context.FEATURES)
    assert all(set(kind["weights"]) == set(page.FEATURES) for kind in data["article"]["types"].values())
    assert set(data["article"]["types"]) <= set(page.PAGE_TYPES) and "article" in data["article"]["types"]
    assert len(loaded.second.trees.features) == len(data["second_pass"]["trees"]["trees"]) > 0
    assert {"date", "corpus_fingerprint", "settings", "out_of_fold"} <= set(data["about"])


def test_a_model_that_disagrees_with_the_code_is_refused():
    data = json.loads(model.MODEL_FILE.read_text(encoding="utf-8"))
    data["first_pass"]["weights"]["a_feature_nobody_computes"] = 1.0
    with pytest.raises(model.ModelError, match="a_feature_nobody_computes"):
        model.read_model(data)
    del data["first_pass"]["weights"]["a_feature_nobody_computes"]
    del data["first_pass"]["weights"]["log_chars"]
    with pytest.raises(model.ModelError, match="log_chars"):
        model.read_model(data)


def test_gold_labels_follow_the_order_of_the_text():
    gold = "First paragraph of the story, long enough.\nSecond one here, also long enough."
    texts = [
        "Second",
        "First paragraph of the story, long enough.",
        "Share on Facebook",
        "Second one here, also long enough.",
        "Second",
    ]
    assert paragraph_labels(texts, gold) == [0.0, 1.0, 0.0, 1.0, 0.0]
    assert paragraph_labels(texts, "") == [0.0] * 5


# --------------------------------------------------------------------------- corpus gates
#: the model's own leave-one-source-out judgement of the dev corpus (with URLs, at its decision rule) as the harness
#: recorded it in model.json, with a margin: measured on the pages the model was fitted on it can
#: only be better
RECORDED = json.loads(model.MODEL_FILE.read_text(encoding="utf-8"))["about"]["out_of_fold"]["source"]["judgement"][
    "dev"
]
ACCURACY_FLOOR = RECORDED["with URL"]["accuracy"] - 0.02
MAX_ARTICLES_DROPPED = RECORDED["with URL"]["articles_dropped_share"] + 0.01


@pytest.mark.corpus
def test_article_judgement_on_the_corpus(corpus):
    figures = figures_of(corpus, "bodytext", model.load_model().article_threshold)  # pages typed articles
    assert figures["accuracy"] >= ACCURACY_FLOOR, figures["accuracy"]
    assert figures["articles_dropped"] <= MAX_ARTICLES_DROPPED * figures["articles"], figures["articles_dropped"]


def test_the_page_type_comes_with_its_probability():
    """An article's type is as likely as the article; another type gets its share of the rest; a
    site's verdict that overturns the page rescales it; every output names it."""
    from dataclasses import replace

    from blog_site import blog

    from scrapy_bodytext.api import apply_site_verdict
    from scrapy_bodytext.sites import SiteVerdict

    pages, kinds = blog(20)
    post = next(path for path, kind in kinds.items() if kind == "article")
    found = extract(pages[post][0], url=f"https://blog.example.org{post}")
    assert found.page_type == "article" and found.page_type_probability == found.article_probability
    listing = next(
        result
        for result in (extract(pages[path][0], url=f"https://blog.example.org{path}") for path in sorted(pages))
        if result.page_type not in ("article", "other")
    )
    assert 0 < listing.page_type_probability <= 1 - listing.article_probability + 1e-9
    assert listing.as_dict()["page_type_probability"] == listing.page_type_probability

    class Plain:
        def strip_boilerplate(self, url, text):
            return text

    dropped = apply_site_verdict(found, SiteVerdict(0.2, found.article_probability, False, True), Plain(), "u")
    assert (dropped.page_type, dropped.page_type_probability) == ("other", pytest.approx(0.8))
    lowered = apply_site_verdict(listing, SiteVerdict(0.0, listing.article_probability, False, True), Plain(), "u")
    share = listing.page_type_probability / (1 - listing.article_probability)
    assert lowered.page_type == listing.page_type and lowered.page_type_probability == pytest.approx(share)
    assert replace(found, page_type_probability=0.5).value("page_type_probability") == 0.5
