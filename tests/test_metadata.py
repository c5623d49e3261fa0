"""Page metadata read from the parsed tree (``read_metadata``): each source and its order of trust,
the clean-ups (site names, bylines, dates), hostile input, and the figures on the labelled dev pages."""

from __future__ import annotations

import json
from html import escape

import pytest

from scrapy_bodytext import extract
from scrapy_bodytext.evaluation.metadata import (
    FIELDS,
    MetadataGuess,
    MetadataMethod,
    labelled,
    run_metadata,
    summarize_metadata,
)
from scrapy_bodytext.metadata import PageMetadata, read_metadata
from scrapy_bodytext.metadata.authors import split_names
from scrapy_bodytext.metadata.dates import date_in_url, parse_date
from scrapy_bodytext.metadata.language_tag import bcp47
from scrapy_bodytext.page.decoding import decode
from scrapy_bodytext.page.parse import parse_html

PARAGRAPH = (
    "The river rose through the night and by morning the old bridge was under water, so the "
    "village council met in the school hall to decide what to do next. "
)


def page(head: str = "", body: str = "", lang: str = "en") -> str:
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head>{head}</head><body>'
        f'<nav><a href="/">Home</a></nav>{body}<article><p>{PARAGRAPH * 4}</p></article></body></html>'
    )


def read(html: str, url: str | None = "https://news.example/2024/03/05/bridge-flood.html") -> PageMetadata:
    return read_metadata(parse_html(html).root, url)


def ld(obj) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


# --- sources and their order ------------------------------------------------------------------------


def test_json_ld_article_gives_every_value():
    found = read(
        page(
            ld(
                {
                    "@context": "https://schema.org",
                    "@type": "NewsArticle",
                    "headline": "Bridge under water",
                    "datePublished": "2024-03-05T07:30:00+01:00",
                    "dateModified": "2024-03-05T09:00:00+01:00",
                    "author": [
                        {"@type": "Person", "name": "Jane Doe"},
                        {"@type": "Person", "givenName": "John", "familyName": "Roe"},
                    ],
                    "publisher": {"@type": "Organization", "name": "The Valley Post"},
                    "image": {"@type": "ImageObject", "url": "/img/bridge.jpg"},
                    "keywords": ["floods", "bridges"],
                    "articleSection": "Local",
                    "inLanguage": "en-GB",
                    "description": "The old bridge is closed.",
                }
            )
        )
    )
    assert found.title == "Bridge under water"
    assert found.published == "2024-03-05T07:30:00+01:00"
    assert found.modified == "2024-03-05T09:00:00+01:00"
    assert found.authors == ("Jane Doe", "John Roe")
    assert found.site_name == "The Valley Post"
    assert found.image == "https://news.example/img/bridge.jpg"
    assert found.tags == ("floods", "bridges")
    assert found.section == "Local"
    assert found.description == "The old bridge is closed."
    assert found.language == "en"  # the declared <html lang> comes first


def test_json_ld_graph_and_repairs():
    broken = (
        '<script type="application/ld+json"><!--\n{"@context": "https://schema.org", "@graph": ['
        '{"@type": "WebSite", "name": "Valley Post"},\n{"@type": "ReportageNewsArticle", '
        '"headline": "Caf&eacute; reopens", "datePublished": "2023-11-02",}]}\n--></script>'
    )
    found = read(page(broken))
    assert found.title == "Café reopens"
    assert found.published == "2023-11-02"
    assert found.site_name == "Valley Post"


def test_json_ld_written_as_a_meta_tag():
    article = {"@type": "Article", "headline": "Bridge under water", "datePublished": "2025-11-17T09:00:00-05:00"}
    head = f'<meta name="script:ld+json" content="{escape(json.dumps(article))}">'
    found = read(page(head, "<h1>Bridge under water</h1>"), url="https://news.example/bridge")
    assert found.published == "2025-11-17T09:00:00-05:00"


def test_meta_tags_when_there_is_no_json_ld():
    head = (
        '<meta property="og:title" content="Bridge under water | The Valley Post">'
        '<meta property="og:site_name" content="The Valley Post">'
        '<meta property="article:published_time" content="2024-03-05T07:30:00Z">'
        '<meta name="author" content="Jane Doe, John Roe">'
        '<meta property="og:image" content="//cdn.example/bridge.jpg">'
        '<meta property="article:tag" content="floods"><meta property="article:tag" content="bridges">'
        '<link rel="canonical" href="/2024/03/05/bridge-flood.html">'
        '<meta name="description" content="The old bridge is closed.">'
    )
    found = read(page(head))
    assert found.title == "Bridge under water"
    assert found.published == "2024-03-05T07:30:00+00:00"
    assert found.authors == ("Jane Doe", "John Roe")
    assert found.image == "https://cdn.example/bridge.jpg"
    assert found.tags == ("floods", "bridges")
    assert found.canonical_url == "https://news.example/2024/03/05/bridge-flood.html"
    assert found.description == "The old bridge is closed."


def test_json_ld_wins_over_meta_and_meta_over_the_page():
    head = (
        ld(
            {
                "@type": "Article",
                "headline": "From JSON-LD",
                "datePublished": "2024-01-02",
                "author": {"@type": "Person", "name": "Ann Ld"},
            }
        )
        + '<meta property="og:title" content="From Open Graph">'
        '<meta property="article:published_time" content="2024-01-03">'
        '<meta name="author" content="Meta Author">'
    )
    body = '<h1>From the page</h1><p class="byline">By Page Author</p><time datetime="2024-01-04">4 Jan</time>'
    found = read(page(head, body))
    assert (found.title, found.published, found.authors) == ("From JSON-LD", "2024-01-02", ("Ann Ld",))
    found = read(page(head.split("</script>", 1)[1], body))
    assert (found.title, found.published, found.authors) == ("From Open Graph", "2024-01-03", ("Meta Author",))


def test_what_the_page_shows_when_nothing_is_declared():
    body = (
        '<div class="article-header"><h1>Bridge under water</h1>'
        '<p class="byline">By Jane Doe and John Roe, Staff Writers</p>'
        '<span class="date">March 5, 2024 7:30 AM EST</span></div>'
    )
    found = read(page("<title>Bridge under water - The Valley Post</title>", body), url=None)
    assert found.title == "Bridge under water"
    assert found.authors == ("Jane Doe", "John Roe")
    assert found.published == "2024-03-05T07:30:00-05:00"


def test_time_element_then_url_then_byline_date():
    body = '<h1>Headline</h1><p class="dateline">Posted 9 May 2023</p>'
    assert (
        read(page("", '<time datetime="2023-05-07T10:00:00+02:00">7 May</time>' + body)).published
        == "2023-05-07T10:00:00+02:00"
    )
    assert read(page("", body)).published == "2024-03-05"  # the URL's date
    assert read(page("", body), url="https://news.example/bridge").published == "2023-05-09"


def test_time_marked_as_update_is_the_modified_date():
    body = (
        '<h1>Headline</h1><time datetime="2023-05-07">7 May</time> '
        '<span class="updated">Updated <time datetime="2023-05-08">8 May</time></span>'
    )
    found = read(page("", body), url=None)
    assert (found.published, found.modified) == ("2023-05-07", "2023-05-08")


def test_comments_and_related_lists_are_not_the_byline():
    body = (
        '<h1>Headline</h1><section class="comments"><div class="comment-author">Troll Person</div></section>'
        '<aside><span class="byline">By Other Writer</span></aside>'
    )
    assert read(page("", body), url=None).authors == ()


def test_publisher_credited_as_author_gives_way_to_the_byline():
    head = '<meta property="og:site_name" content="The Valley Post"><meta name="author" content="The Valley Post">'
    found = read(page(head, "<h1>Headline</h1><p>Von Erika Muster</p>"))
    assert found.authors == ("Erika Muster",)
    assert read(page(head, "<h1>Headline</h1>")).authors == ("The Valley Post",)


def test_a_comment_dated_later_is_not_the_article_date():
    body = (
        '<div class="post"><h1>Bridge under water</h1><p class="byline">By Jane Doe</p>'
        "<span>March 3, 2025</span></div><p>" + PARAGRAPH * 3 + "</p>"
        '<ol class="comment-list"><li><time datetime="2025-03-09T10:00">9 March</time> Troll Person</li>'
        '<li><time datetime="2025-03-10T11:00">10 March</time> Other Person</li></ol>'
    )
    found = read(page("", body), url="https://news.example/bridge")
    assert found.published == "2025-03-03"
    assert found.authors == ("Jane Doe",)


def test_dates_of_a_list_of_stories_are_not_the_article_date():
    stories = "".join(
        f'<li><a href="/s{d}">Story {d}</a> <time datetime="2025-04-{d:02d}">{d} April</time></li>'
        for d in (10, 11, 12)
    )
    body = f'<h1>Bridge under water</h1><ul>{stories}</ul><p class="date">Published 1 April 2025</p>'
    assert read(page("", body), url="https://news.example/bridge").published == "2025-04-01"
    related = (
        '<h1>Bridge under water</h1><aside class="related"><time datetime="2025-04-12">12 April</time></aside>'
        "<p>" + PARAGRAPH + "</p>"
    )
    assert read(page("", related), url="https://news.example/bridge").published is None


def test_update_dates_are_told_apart_by_their_label():
    body = (
        '<h1>Bridge under water</h1><div class="meta"><span>Published on Apr 1, 2025</span>'
        "<span>Updated on May 4, 2025</span></div>"
    )
    found = read(page("", body), url="https://news.example/bridge")
    assert (found.published, found.modified) == ("2025-04-01", "2025-05-04")
    only_update = "<h1>Bridge under water</h1><p><b>Last updated:</b> 4 May 2025</p>"
    found = read(page("", only_update), url="https://news.example/bridge")
    assert (found.published, found.modified) == ("2025-05-04", "2025-05-04")  # the date of the version shown


def test_the_headline_containers_hold_the_article_whatever_their_class():
    body = (
        '<div class="layout-with-sidebar widget-area"><h1>Bridge under water</h1>'
        '<div class="author-info"><span class="author-name">Jane Doe</span>'
        '<span class="published-date">July 3, 2025</span></div></div>'
    )
    found = read(page("", body), url="https://news.example/bridge")
    assert (found.published, found.authors) == ("2025-07-03", ("Jane Doe",))


def test_a_page_builders_blocks_are_not_other_content():
    # every block of the page sits in a "widget" container, the headline's too: the date block is
    # one of the article's blocks, not a sidebar widget
    body = (
        '<div class="builder-section"><div class="builder-widget builder-widget-heading">'
        '<div class="builder-widget-container"><h1>Bridge under water</h1></div></div>'
        '<div class="builder-widget builder-widget-post-info"><div class="builder-widget-container">'
        "<ul><li><span>Jane Doe</span></li><li><time>December 3, 2025</time></li></ul></div></div></div>"
    )
    assert read(page("", body), url="https://news.example/bridge").published == "2025-12-03"
    # a widget that is not of the headline's kind still holds other content
    sidebar = (
        '<div class="main"><h1>Bridge under water</h1></div><div class="widget recent-posts">'
        "<p><time>December 3, 2025</time></p></div>"
    )
    assert read(page("", sidebar), url="https://news.example/bridge").published is None


def test_dates_of_teasers_side_by_side_are_not_the_article_date():
    teasers = "".join(
        f'<article class="post"><h3><a href="/s{d}">Story {d}</a></h3><time>{d} April 2025</time></article>'
        for d in (10, 11, 12)
    )
    body = f'<h1>Bridge under water</h1><div class="posts">{teasers}</div>'
    assert read(page("", body), url="https://news.example/bridge").published is None


def test_a_headline_without_h1_is_found_by_the_title():
    # a page builder writes the headline as a paragraph, far below the start of the body
    menu = "".join(f'<div class="m"><a href="/p{i}">Product {i}</a></div>' for i in range(120))
    body = (
        f'<div class="header">{menu}</div><div class="hero"><div><p>Bridge under water in the valley</p></div>'
        '<div><p>Feb 16, 2026</p></div></div><div class="body"><p>' + PARAGRAPH + "</p></div>"
    )
    html = page("<title>Bridge under water in the valley | The Valley Post</title>", body).replace(
        '<nav><a href="/">Home</a></nav>', ""
    )
    assert read(html, url="https://news.example/bridge").published == "2026-02-16"
    # a <title> that is only the site's name is not shown by the copyright line of the footer
    footer = (
        '<div class="top"><span>January 15, 2008</span></div>'
        + f"<p>{PARAGRAPH}</p>" * 30
        + '<div class="footer"><a href="/">Copyright 2006 The Valley Post</a></div>'
    )
    found = read(page("<title>The Valley Post</title>", footer), url="https://news.example/bridge")
    assert found.published == "2008-01-15"


def test_a_share_bar_holds_the_articles_byline_and_date_an_embedded_post_does_not():
    # news layouts put the byline and date beside the share buttons
    body = (
        '<h1>Bridge under water</h1><div class="article-social-container"><div class="author-content">'
        '<p class="author-name">Jane Doe</p><p><span class="publication-time">2022-11-23T08:10+02:00</span></p>'
        '</div><button class="share-button">Share</button></div>'
    )
    found = read(page("", body), url="https://news.example/bridge")
    assert (found.published, found.authors) == ("2022-11-23T08:10:00+02:00", ("Jane Doe",))
    embedded = (
        "<h1>Bridge under water</h1><p>" + PARAGRAPH + '</p><blockquote class="social-embed">'
        '<p>The bridge is closed.</p><span class="post-date">May 3, 2025</span></blockquote>'
    )
    assert read(page("", embedded), url="https://news.example/bridge").published is None


def test_a_caption_that_mentions_a_date_is_not_the_date_line():
    body = (
        "<h1>Bridge under water</h1><p>Soldiers crossing the old bridge near the river, 24. April 2023</p>"
        "<p><strong>28.04.2023</strong></p>"
    )
    assert read(page("", body, lang="de"), url="https://news.example/bridge").published == "2023-04-28"


def test_json_ld_graph_with_several_entities():
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "@id": "https://news.example/#site", "name": "Valley Post"},
            {
                "@type": "BlogPosting",
                "headline": "An older story",
                "datePublished": "2024-01-09",
                "author": {"@type": "Person", "name": "Other Writer"},
            },
            {
                "@type": "WebPage",
                "@id": "https://news.example/bridge",
                "mainEntity": {"@id": "https://news.example/bridge#article"},
            },
            {
                "@type": "NewsArticle",
                "@id": "https://news.example/bridge#article",
                "headline": "Bridge under water",
                "datePublished": "2025-03-03T08:00:00+01:00",
                "author": {"@type": "Person", "name": "Jane Doe"},
            },
            {
                "@type": "ItemList",
                "itemListElement": [
                    {
                        "@type": "ListItem",
                        "item": {"@type": "Article", "headline": "Related", "datePublished": "2025-03-20"},
                    }
                ],
            },
        ],
    }
    found = read(page(ld(graph)), url="https://news.example/bridge")
    assert (found.title, found.published, found.authors) == (
        "Bridge under water",
        "2025-03-03T08:00:00+01:00",
        ("Jane Doe",),
    )


def test_a_products_reviews_are_not_the_page_article():
    product = {
        "@type": "Product",
        "name": "Kettle",
        "review": [
            {"@type": "Review", "datePublished": "2025-02-01", "author": {"@type": "Person", "name": "Ann Buyer"}},
            {"@type": "Review", "datePublished": "2025-01-11", "author": {"@type": "Person", "name": "Bob Buyer"}},
        ],
    }
    found = read(page(ld(product), "<h1>Kettle</h1>"), url="https://shop.example/kettle")
    assert (found.published, found.authors) == (None, ())


def test_a_link_to_the_authors_page_is_the_byline():
    body = (
        '<h1>Bridge under water</h1><div><a href="/topics/floods">Floods</a> '
        '<a href="https://news.example/author/jane-doe/">Jane Doe</a></div>'
    )
    assert read(page("", body), url=None).authors == ("Jane Doe",)
    plain = '<h1>Bridge under water</h1><div><a href="/jane-doe">Jane Doe</a></div>'
    assert read(page("", plain), url=None).authors == ()


def test_a_byline_far_from_the_headline_is_found_by_its_mark():
    filler = "".join(f"<p>{PARAGRAPH}</p>" for _ in range(130))
    body = f'<h1>Bridge under water</h1>{filler}<div class="post-author"><a>Jane Doe</a></div>'
    assert read(page("", body), url=None).authors == ("Jane Doe",)
    teaser = f'<h1>Bridge under water</h1>{filler}<article class="post author-jdoe"><a>Flood Warning</a></article>'
    assert read(page("", teaser), url=None).authors == ()  # a container's class, not a byline


def test_absent_values_are_empty_never_guessed():
    found = read(
        "<html><body><p>Just a paragraph of text with no title at all.</p></body></html>",
        url="https://example.org/about",
    )
    assert found == PageMetadata()


# --- clean-ups -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "head", "expected"),
    [
        (
            "Bridge under water | The Valley Post",
            '<meta property="og:site_name" content="The Valley Post">',
            "Bridge under water",
        ),
        ("Bridge under water | National | Valleypost.example", "", "Bridge under water"),  # host name, section
        (
            "The Valley Post: Bridge under water",
            '<meta property="og:site_name" content="The Valley Post">',
            "The Valley Post: Bridge under water",
        ),  # a colon belongs to headlines
        ("Flood - then a bridge closes", "", "Flood - then a bridge closes"),  # no site name: kept whole
        ("Bridge under water – DW – 13.06.2023", "", "Bridge under water"),  # the date goes too
    ],
)
def test_site_name_is_cut_from_the_title(title, head, expected):
    html = page(head + f"<title>{title}</title>")
    assert read(html, url="https://www.valleypost.example/a/1").title == expected


def test_title_cut_to_the_h1_it_starts_with():
    found = read(
        page(
            "<title>短缺药品保供稳价 全力保障临床用药需求-新华网</title>",
            "<h1>短缺药品保供稳价 全力保障临床用药需求</h1>",
        ),
        url=None,
    )
    assert found.title == "短缺药品保供稳价 全力保障临床用药需求"


def test_json_ld_name_when_its_headline_is_a_summary():
    head = ld({"@type": "Article", "name": "Hermitian matrix", "headline": "matrix equal to its conjugate-transpose"})
    found = read(page(head + "<title>Hermitian matrix - Wikipedia</title>", "<h1>Hermitian matrix</h1>"))
    assert found.title == "Hermitian matrix"


@pytest.mark.parametrize(
    ("byline", "names"),
    [
        ("By Jane Doe and John Roe", ["Jane Doe", "John Roe"]),
        ("Jane Doe, John Roe & Ann Poe", ["Jane Doe", "John Roe", "Ann Poe"]),
        ("By JANE DOE | jane.doe@news.example | May 3, 2025 10:02 am", ["JANE DOE"]),
        ("Von Anna Schmidt und Max Muster, Berlin", ["Anna Schmidt", "Max Muster", "Berlin"]),
        ("Written by Rob Ewaschuk Edited by Betsy Beyer", ["Rob Ewaschuk"]),
        ("Bradley M. Kuhn (http://ebb.org/bkuhn/)", ["Bradley M. Kuhn"]),
        ("par Jean Dupont (avec Marie Curie et Paul Langevin)", ["Jean Dupont", "Marie Curie", "Paul Langevin"]),
        ("신현주 기자", ["신현주"]),
        ("By Jane Doe and John Roe, Staff Writers", ["Jane Doe", "John Roe"]),
        ("Par Jean Dupont et Marie Curie", ["Jean Dupont", "Marie Curie"]),
        ("Por Juan Pérez y María López", ["Juan Pérez", "María López"]),
        ("Jane Doe, Senior Editor", ["Jane Doe"]),
        ("By Jane Doe, Senior Editor at The Valley Post", ["Jane Doe"]),
        ("Chief Correspondent John Roe", ["John Roe"]),
        ("Jane Doe | Updated March 3, 2025", ["Jane Doe"]),
        ("By Jane Doe Updated 3 hours ago", ["Jane Doe"]),
        ("Jane Doe ⋅ Founder, Editor-in-Chief", ["Jane Doe"]),
        ("By the Valley Team", ["Valley Team"]),  # a team credited as the author stays whole
        ("Contributors to Wikimedia projects", ["Contributors to Wikimedia projects"]),  # declared: an organisation
        ("@janedoe https://twitter.com/janedoe", []),
        ("jdoe42", []),
    ],
)
def test_bylines_become_lists_of_names(byline, names):
    assert split_names(byline) == names


def test_shown_bylines_are_read_strictly():
    assert split_names("Von den 116 Verletzten waren viele im Krankenhaus", strict=True) == []
    assert split_names("By Jane Doe Staff Writer", strict=True) == ["Jane Doe"]
    assert split_names("FOCUS online") == ["FOCUS online"]  # a declared organisation
    assert split_names("FOCUS online", strict=True) == []
    assert split_names("Posted by Jane Doe on March 3, 2025", strict=True) == ["Jane Doe"]
    assert split_names("Matt Check, Head Winemaker", strict=True) == ["Matt Check"]
    assert split_names("Senior Reporter", strict=True) == []
    assert split_names("Tim Twentyman\nSenior Writer\nFollow Tim on Twitter", strict=True) == ["Tim Twentyman"]
    assert split_names("More From", strict=True) == []
    assert split_names("Holiday Edition (Red", strict=True) == []  # a name's words are letters
    assert split_names("Richard (R.J.) Eskow, Jean-Pierre O’Brien", strict=True) == [
        "Richard (R.J.) Eskow",
        "Jean-Pierre O’Brien",
    ]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("2024-05-03T15:47:42.389000+00:00", None, "2024-05-03T15:47:42+00:00"),
        ("2013-12-30T14:42:01-0700", None, "2013-12-30T14:42:01-07:00"),
        ("20180619T055000+0900", None, "2018-06-19T05:50:00+09:00"),
        ("2019-04-28 06:01:07", None, "2019-04-28T06:01:07"),
        ("Mon, 02 Jun 2025 10:00:00 GMT", None, "2025-06-02T10:00:00+00:00"),
        ("Saturday, December 27, 2014, 12:06 PM", None, "2014-12-27T12:06:00"),
        ("Jul 24, 2018, 2:15pm EDT", None, "2018-07-24T14:15:00-04:00"),
        ("3. Mai 2024, 17:47", "de", "2024-05-03T17:47:00"),
        ("19 de mayo de 2025", "es", "2025-05-19"),
        ("30 avril 2015 à 07:19", "fr", "2015-04-30T07:19:00"),
        ("2025年7月30日", "zh", "2025-07-30"),
        ("19.05.2025", None, "2025-05-19"),
        ("05/06/2025", None, None),  # day or month first: the page language must say
        ("05/06/2025", "en-US", "2025-05-06"),
        ("05/06/2025", "de", "2025-06-05"),
        ("2024-02-30", None, None),
        ("1529283660000", None, None),
        ("not a date", None, None),
    ],
)
def test_dates_are_iso_as_the_page_states_them(text, lang, expected):
    assert parse_date(text, lang=lang) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://edition.cnn.com/2016/12/18/politics/story/index.html", "2016-12-18"),
        ("http://www.news.cn/fortune/2023-11/17/c_1129981476.htm", "2023-11-17"),
        ("https://china.chinadaily.com.cn/a/202311/17/WS65571297.html", "2023-11-17"),
        ("https://blog.example/2021-04-09-release-notes/", "2021-04-09"),
        ("https://news.example/world/2023/oct/03/bridge-reopens", "2023-10-03"),  # month names
        ("https://blog.example/knowledge/2023/October/3/wine-styles/", "2023-10-03"),
        ("https://news.example/2023/Mai/17/bruecke", "2023-05-17"),
        ("https://shop.example/2023/items/03/kettle", None),  # not a month
        ("https://www.cleveland.com/food/index.ssf/2014/12/let_me_google.html", None),  # month only
        ("https://shop.example/item/12345678", None),
    ],
)
def test_dates_in_url_paths(url, expected):
    assert date_in_url(url) == expected


def test_language_tags():
    assert bcp47("en_us") == "en-US"
    assert bcp47("zh-hans-cn") == "zh-Hans-CN"
    assert bcp47("x-default") is None and bcp47("und") is None and bcp47("") is None
    found = extract(page("", lang="de-AT").encode())
    assert found.language == "de-AT"  # the declared tag, even where the text reads otherwise
    assert extract(page("", lang="").replace(' lang=""', "").encode()).language == "en"  # else the detected


def test_metadata_of_a_page_without_text():
    found = extract(
        b'<html lang="ko"><head><meta property="og:title" content="Shell page"></head>'
        b"<body><script>render()</script></body></html>"
    )
    assert found.reason.value == "empty"
    assert (found.title, found.language) == ("Shell page", "ko")


# --- through extract() -----------------------------------------------------------------------------


def test_extract_result_carries_the_metadata():
    html = page(
        '<meta property="og:title" content="Bridge under water">'
        '<meta property="article:published_time" content="2024-03-05">'
        '<meta name="author" content="Jane Doe">',
        "<h1>Bridge under water</h1>",
        lang="en-GB",
    )
    result = extract(html.encode(), url="https://news.example/bridge")
    assert (result.title, result.published, result.authors, result.language) == (
        "Bridge under water",
        "2024-03-05",
        ("Jane Doe",),
        "en-GB",
    )
    values = result.as_dict()
    assert values["authors"] == ["Jane Doe"] and values["published"] == "2024-03-05"


# --- hostile input ---------------------------------------------------------------------------------


HOSTILE = {
    "json-ld nested 100000 deep": '<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script>",
    "json-ld objects 100000 deep": '<script type="application/ld+json">'
    + '{"a":' * 100_000
    + "1"
    + "}" * 100_000
    + "</script>",
    "json-ld 5 MB": ld({"@type": "NewsArticle", "headline": "x" * 5_000_000}),
    "json-ld broken": '<script type="application/ld+json">{"@type": "NewsArticle", "headline": </script>',
    "json-ld not objects": '<script type="application/ld+json">[1, "two", null, true, 3.5e300]</script>',
    "json-ld odd values": ld(
        {
            "@type": ["NewsArticle", 7, None],
            "headline": {"a": [1]},
            "author": [[["x"]]],
            "datePublished": 20240101,
            "image": [None, {}],
            "keywords": {"k": 1},
        }
    ),
    "5000 json-ld scripts": ld({"@type": "NewsArticle", "headline": "h"}) * 5000,
    "20000 meta tags": '<meta name="author" content="Jane Doe">' * 20_000,
    "huge meta value": '<meta property="og:title" content="' + "word | " * 200_000 + '">',
    "title of separators": "<title>" + " | ".join(["part"] * 50_000) + "</title>",
    "dates out of range": '<meta property="article:published_time" content="9999-99-99T99:99:99+99:99">'
    '<meta name="date" content="0000-00-00">' + ld({"@type": "Article", "datePublished": "-1"}),
    "date text 1 MB": '<meta property="article:published_time" content="' + "1" * 1_000_000 + '">',
    "byline 1 MB": "",
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_pages_give_bounded_metadata(case):
    body = '<h1>Headline</h1><p class="byline">' + "By Jane Doe and " * 60_000 + "</p>" if case == "byline 1 MB" else ""
    found = read(page(HOSTILE[case], body))
    assert isinstance(found, PageMetadata)
    assert len(found.title) <= 2000
    assert len(found.authors) <= 20 and all(len(name) <= 80 for name in found.authors)
    assert found.published is None or found.published[:4].isdigit()


def test_hostile_dates_are_not_dates():
    found = read(page(HOSTILE["dates out of range"]), url=None)
    assert (found.published, found.modified) == (None, None)


def test_no_root_or_an_empty_tree():
    assert read_metadata(None) == PageMetadata()
    assert read_metadata(parse_html("<html></html>").root, "not a url") == PageMetadata()


# --- on the labelled dev pages ---------------------------------------------------------------------


def our_guess(labelled_page) -> MetadataGuess:
    found = read_metadata(
        parse_html(decode(labelled_page.body, encoding=labelled_page.charset)[0]).root, labelled_page.url
    )
    return MetadataGuess(
        title=found.title or None,
        authors=found.authors,
        published=found.published,
        description=found.description,
        site_name=found.site_name,
        language=found.language,
        canonical_url=found.canonical_url,
        tags=found.tags,
    )


#: per field, the score on the labelled dev article pages must stay at or above (measured minus 0.02;
#: re-measure with ``scrapy-bodytext evaluate ../shared/corpus/dev --metadata``)
FLOORS = {
    "title exact": 0.75,
    "authors set-F1": 0.86,
    "byline token-F1": 0.70,
    "published day": 0.89,
    "site name exact": 0.92,
    "language": 0.98,
    "canonical URL": 0.86,
    "tags set-F1": 0.67,
    "description exact": 0.57,
}
#: per source (all its labelled pages), what the peers score on the same pages, measured with the same
#: command on 2026-11-24: htmldate 1.11.0 for the published day, trafilatura 2.3.1 for bylines and authors;
#: ours must not fall below them on any source
PEER_FIGURES = {
    "fundus-tests": {"published day": 0.969, "authors set-F1": 0.806},
    "mozilla-readability": {"published day": 0.939, "byline token-F1": 0.677},
    "newspaper4k-tests": {"published day": 1.0, "authors set-F1": 0.572},
    "wcxb-dev": {"published day": 0.790, "byline token-F1": 0.566},
}


@pytest.mark.corpus
def test_metadata_of_the_labelled_dev_pages(corpus):
    pages = labelled(corpus)
    scores = run_metadata(MetadataMethod("read_metadata", lambda: our_guess), pages)
    figures = summarize_metadata(scores)
    assert figures["errors"] == 0
    measured = {column: figures["fields"][column]["score"] for column in FLOORS}
    assert {field.column for field in FIELDS} == set(FLOORS)
    low = {column: round(value, 3) for column, value in measured.items() if value < FLOORS[column]}
    assert not low, f"below the floor: {low}"
    behind = {
        (source, column): round(figures["by_source"][source]["fields"][column]["score"], 3)
        for source, peers in PEER_FIGURES.items()
        for column, peer in peers.items()
        if figures["by_source"][source]["fields"][column]["score"] < peer - 1e-9
    }
    assert not behind, f"behind the peers: {behind}"


def test_command_line_json_carries_the_metadata(tmp_path, capsys):
    from scrapy_bodytext.cli import main

    path = tmp_path / "page.html"
    path.write_text(
        page(
            '<meta property="og:title" content="Bridge under water"><meta name="author" content="Jane Doe; John Roe">',
            "<h1>Bridge under water</h1>",
        ),
        encoding="utf-8",
    )
    assert main(["extract", "--json", "--url", "https://news.example/2024/03/05/bridge", str(path)]) == 0
    values = json.loads(capsys.readouterr().out.splitlines()[0])
    assert values["title"] == "Bridge under water"
    assert values["authors"] == ["Jane Doe", "John Roe"]
    assert values["published"] == "2024-03-05"
    for name in ("modified", "canonical_url", "site_name", "description", "image", "tags", "section", "language"):
        assert name in values


def test_the_language_value_is_of_one_kind_with_metadata_and_without():
    """``language`` is the declared tag in BCP 47 form whether metadata is read or not, else the
    detected code: never a tag in one mode and a bare code in the other."""
    from scrapy_bodytext.api import extract_with_config
    from scrapy_bodytext.config import ExtractConfig

    prose = b"<p>" + b"This is a sentence of the article that we read here, and it goes on. " * 20 + b"</p>"
    declared = b"<html lang='en_us'><body><article>" + prose + b"</article></body></html>"
    undeclared = b"<html><body><article>" + prose + b"</article></body></html>"
    for metadata in (True, False):
        assert extract_with_config(declared, ExtractConfig(metadata=metadata)).language == "en-US"
        assert extract_with_config(undeclared, ExtractConfig(metadata=metadata)).language == "en"
