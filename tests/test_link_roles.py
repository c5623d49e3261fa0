"""Link roles (``sites/links.py``): general priors before a site has evidence, what the site
confirmed of a shape once it has, the pagination words of many languages, the list a page of a
pagination belongs to."""

from __future__ import annotations

import pytest

from scrapy_bodytext.sites.links import ROLES, Anchor, link_role, link_shape, list_key, prior_role, shape_names

SITE = "https://blog.example.org"


@pytest.mark.parametrize(
    ("path", "anchor", "role"),
    [
        ("/2024/05/03/the-river-market/", Anchor(), "article"),
        ("/news/2024/05/the-river-market.html", Anchor(), "article"),
        ("/blog/why-the-bridge-was-closed/", Anchor(), "article"),
        ("/node/123", Anchor("The council meets about the bridge", heading=True), "article"),
        ("/page/2/", Anchor(), "pagination"),
        ("/tag/river/page/3/", Anchor(), "pagination"),
        ("/blog/page2/", Anchor(), "pagination"),
        ("/?paged=3", Anchor(), "pagination"),
        ("/kategorie/politik/seite/2/", Anchor(), "pagination"),
        ("/categoria/cocina/pagina/4/", Anchor(), "pagination"),
        ("/archive/x", Anchor(rel=("next",)), "pagination"),
        ("/list", Anchor("Ältere Beiträge »"), "pagination"),
        ("/list", Anchor("3"), "pagination"),
        ("/tag/river/", Anchor(), "listing"),
        ("/author/jane/", Anchor(), "listing"),
        ("/2024/05/", Anchor(), "listing"),
        ("/", Anchor(), "listing"),
        ("/feed/", Anchor(), "feed"),
        ("/index.xml", Anchor(), "feed"),
        ("/about/", Anchor(), "service"),
        ("/contact-us/", Anchor(), "service"),
        ("/impressum/", Anchor(), "service"),
        ("/shop/item", Anchor("Buy"), "other"),
    ],
)
def test_priors(path, anchor, role):
    found = prior_role(SITE + path, anchor)
    assert found.role == role, found
    assert found.role in ROLES and 0.5 <= found.probability <= 1 and found.reason
    assert link_role(SITE + path, anchor) == found  # no evidence: the prior


def test_a_post_id_parameter_is_no_page_number():
    assert prior_role(SITE + "/?p=123").role != "pagination"


def test_confirmed_article_shape_makes_short_slugs_articles():
    url = SITE + "/notes/bridge/"
    assert link_role(url).role != "article"
    names = shape_names(url)
    counts = dict.fromkeys(names, 0) | {names[0]: 5, names[1]: 1}
    found = link_role(url, counts=counts)
    assert found.role == "article" and found.probability > 0.7 and "5 articles" in found.reason


def test_confirmed_non_article_shape_is_never_an_article():
    url = SITE + "/notes/why-the-bridge-was-closed/"
    assert link_role(url).role == "article"
    names = shape_names(url)
    found = link_role(url, counts={names[1]: 6})
    assert found.role == "other" and "6 others" in found.reason


def test_date_anchored_shape_counts_when_the_shape_has_none():
    url = SITE + "/travel/europe/2024/05/03/a-walk/"
    names = shape_names(url)
    assert any(name.startswith("da:") for name in names)
    dated = next(name for name in names if name.startswith("da:"))
    found = link_role(url, counts={dated: 4})
    assert found.role == "article" and "date-anchored" in found.reason


def test_mixed_shape_keeps_the_prior_with_less_confidence():
    url = SITE + "/notes/why-the-bridge-was-closed/"
    names = shape_names(url)
    found = link_role(url, counts={names[0]: 3, names[1]: 3})
    assert found.role == "article" and found.probability <= 0.6 and "mixed" in found.reason


def test_service_and_feed_stay_whatever_the_counts():
    url = SITE + "/about/"
    assert link_role(url, counts={name: 9 for name in shape_names(url)}).role == "service"


def test_link_shape_groups_the_terms_of_one_list():
    assert link_shape(SITE + "/tag/river/") == link_shape(SITE + "/tag/weather/") == "/tag/{term}/"
    assert link_shape(SITE + "/tag/river/page/2/") == "/tag/{term}/page/{num}/"


def test_list_key_drops_the_page_number_only():
    assert list_key(SITE + "/tag/river/page/3/") == list_key(SITE + "/tag/river/") == "blog.example.org/tag/river/"
    assert list_key(SITE + "/news/?page=2&lang=en") == list_key(SITE + "/news/?lang=en")
    assert list_key(SITE + "/tag/river/") != list_key(SITE + "/tag/weather/page/2/")
