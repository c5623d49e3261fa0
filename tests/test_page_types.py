"""The page-type judge on the families of pages that a news crawl loses or keeps by mistake: articles
that must be kept (roundups with prices, short briefs and media posts, a story above a long comment
thread, code-heavy technical posts) and pages of other types that must be told apart (forum threads,
documentation, service and landing pages, legal pages, shops), plus the URL shapes that misled the
judge and the declarations it weighs.

Every page here is a small hand-written page built the way such pages are built; none is a copy of a
corpus page.
"""

from __future__ import annotations

import json

import pytest
from sample_pages import SITE
from test_modern_web import docs_page, forum_page, roundup_page, shell

from scrapy_bodytext import extract
from scrapy_bodytext.api import load_document
from scrapy_bodytext.config import ExtractConfig
from scrapy_bodytext.extractors.bodytext import page
from scrapy_bodytext.extractors.bodytext.model import page_type

STORY = [
    "The regional water board said on Monday that the reservoir above the valley had reached its lowest "
    "level in thirty years, after a winter with less than half the usual rain and snow.",
    "Farmers downstream have been asked to cut their use by a fifth from next week, and the board is "
    "preparing a plan to move water from the northern lakes if the spring stays dry.",
    "Engineers inspecting the dam found that the low water had exposed old cracks in the spillway, which "
    "will be repaired while the level is down, the board's director told reporters.",
    "Residents of the town below the dam were told there was no danger. Drinking water supplies are "
    "secure until the end of the summer even if no rain falls at all, the board said.",
]


def judged(html: str, path: str | None) -> list[tuple[str, bool]]:
    """The page type and the verdict, with the page's URL and without one."""
    results = [extract(html, url=url) for url in ((f"{SITE}{path}" if path else None), None)]
    return [(result.page_type, result.is_article) for result in results]


def kept(html: str, path: str | None) -> list[bool]:
    """Whether a crawl with the default settings keeps the page (typed an article), with and without URL."""
    return [kind == "article" for kind, _ in judged(html, path)]


def story_page(extra: str = "", og_type: str = "article") -> str:
    body = "".join(f"<p>{p}</p>" for p in STORY)
    main = (
        '<article><h1>Reservoir falls to its lowest level in thirty years</h1><p class="byline">By Sam Example</p>'
        f'<time datetime="2025-03-03">3 March 2025</time>{body}</article>{extra}'
    )
    return shell("Reservoir falls to its lowest level in thirty years", main, og_type)


# --------------------------------------------------------------------------- articles that must be kept
def test_a_roundup_with_prices_is_an_article():
    assert kept(roundup_page(), "/guides/best-hiking-boots") == [True, True]


@pytest.mark.parametrize(
    "main",
    [
        # a news brief of two short paragraphs
        '<article><h1>Bridge closed after crash</h1><time datetime="2025-04-02">2 April 2025</time>'
        "<p>The old river bridge was closed on Wednesday morning after a lorry hit the railing. Nobody was hurt, "
        "police said.</p><p>Drivers are asked to use the ring road until engineers have checked the bridge, which "
        "could take until the evening.</p></article>",
        # a video post: a player and a caption of a few sentences
        '<article><h1>Watch: the comet over the harbour</h1><div class="video"><video src="/v/comet.mp4"></video>'
        "</div><p>A photographer in the harbour town filmed the comet rising over the lighthouse shortly after "
        "midnight on Saturday, when the sky cleared for an hour.</p><p>Astronomers say it will be visible to "
        "the naked eye until the end of the month, low in the north-west after dusk.</p></article>",
    ],
)
def test_short_items_and_media_posts_are_articles(main):
    html = shell("Short item", main, "article")
    assert kept(html, "/news/2025/04/02/bridge-closed-after-crash") == [True, True]


def comment_thread(count: int = 30) -> str:
    comments = "".join(
        f'<li class="comment" id="comment-{n}"><div class="comment-author">reader{n}</div>'
        f'<time datetime="2025-03-0{n % 9 + 1}">March {n % 9 + 1}, 2025</time>'
        f"<p>I have lived in the valley for {n + 10} years and I have never seen the water this low. The board "
        f"should have acted last autumn, when the first warnings came from the farmers on the east side.</p>"
        f'<a class="reply" href="#reply-{n}">Reply</a></li>'
        for n in range(count)
    )
    return f'<section id="comments" class="comments"><h2>{count} Comments</h2><ol class="comment-list">{comments}</ol></section>'


def test_a_story_above_a_long_comment_thread_is_judged_on_the_story():
    html = story_page(comment_thread())
    result = extract(html, url=f"{SITE}/news/2025/03/03/reservoir-lowest-level", comments=True)
    assert result.page_type == "article", result.detail
    assert all(p in result.text for p in STORY), result.text
    assert "never seen the water this low" in result.comments  # the thread is given apart


def test_the_selection_gives_back_the_comment_thread_it_reached_into():
    from scrapy_bodytext.extractors.bodytext import units
    from scrapy_bodytext.extractors.bodytext.comments import without_comments

    doc = load_document(story_page(comment_thread(5)), ExtractConfig())
    paras = units.paragraphs(doc)
    lines = [" ".join(doc.texts[s:e]) for s, e in zip(paras.starts, paras.ends)]
    everything = list(paras.candidates)
    kept_lines = [lines[i] for i in without_comments(paras, everything)]
    assert all(any(p in line for line in kept_lines) for p in STORY)
    assert not any("never seen the water this low" in line for line in kept_lines)


def test_a_code_heavy_technical_post_is_an_article():
    steps = [
        ("Reading the file", "with open(path) as f:\n    rows = list(csv.reader(f))"),
        ("Counting the values", "counts = Counter(row[2] for row in rows)"),
        ("Writing the result", "json.dump(counts, out, indent=2)"),
    ]
    body = "".join(
        f"<h2>{title}</h2><p>The next step is short but it is where most of the time goes, so it is worth "
        f"looking at why it is written this way and what would happen with a larger file.</p>"
        f"<pre><code>{code}</code></pre>"
        for title, code in steps
    )
    main = (
        '<article><h1>Counting values in a large CSV file</h1><p class="byline">By Lee Example</p>'
        '<time datetime="2025-01-12">12 January 2025</time>'
        "<p>Last week a reader asked how to count the values of one column in a file too large to open in a "
        "spreadsheet. Here is the short script I use, and why each part of it is there.</p>"
        f"{body}<p>That is all it takes: the whole script runs in a few seconds on a file of a million rows, "
        "and it never holds more than one row and the counts in memory at once.</p></article>"
    )
    assert kept(shell("Counting values in a large CSV file", main, "article"), "/blog/counting-csv-values") == [
        True,
        True,
    ]


# --------------------------------------------------------------------------- the URL's shape
@pytest.mark.parametrize(
    "path",
    [
        "/p/why-the-reservoir-is-empty",  # a newsletter platform's post path
        "/search-engines-and-the-news",
        "/topics-we-will-cover-this-year",
        "/2025/03/what-our-readers-say-about-us-and-the-paper",
    ],
)
def test_article_slugs_are_not_listing_or_service_paths(path):
    found = page.url_evidence(f"{SITE}{path}")
    assert found["url_shop_words"] == 0.0 and found["url_service_words"] == 0.0, found


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/tag/water", "url_shop_words"),
        ("/search", "url_shop_words"),
        ("/page-2", "url_shop_words"),
        ("/products/ridgeline-trekker", "url_shop_words"),
        ("/about-us", "url_service_words"),
        ("/privacy-policy", "url_service_words"),
        ("/impressum.html", "url_service_words"),
    ],
)
def test_listing_shop_and_service_paths_are_recognised(path, name):
    assert page.url_evidence(f"{SITE}{path}")[name] == 1.0


# --------------------------------------------------------------------------- what a page declares
def json_ld(value: dict) -> str:
    return f'<script type="application/ld+json">{json.dumps(value)}</script>'


def test_only_the_top_level_schema_org_types_are_the_pages_subjects():
    paywalled = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": "Reservoir falls",
        "isPartOf": {"@type": "Product", "name": "Example Times", "productID": "example:basic"},
    }
    html = story_page().replace("<head>", "<head>" + json_ld(paywalled))
    doc = load_document(html, ExtractConfig())
    assert "Product" in doc.structured_types  # declared on the page, but as a part of the article
    assert doc.subject_types == frozenset({"NewsArticle"})
    graph = {"@context": "https://schema.org", "@graph": [{"@type": "WebPage"}, {"@type": "Product", "name": "Boot"}]}
    assert "Product" in load_document(html.replace("<head>", "<head>" + json_ld(graph)), ExtractConfig()).subject_types


def test_forum_postings_are_evidence_of_a_forum_not_of_an_article():
    posting = {"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Resoling boots"}
    html = forum_page().replace("<head>", "<head>" + json_ld(posting))
    evidence = page.page_evidence(*_paragraphs(html))
    assert evidence["structured_article"] == 0.0
    assert page.FORUM_TYPES.isdisjoint(page.ARTICLE_TYPES)


def _paragraphs(html: str):
    from scrapy_bodytext.extractors.bodytext import units

    doc = load_document(html, ExtractConfig())
    return doc, units.paragraphs(doc)


def test_a_page_is_typed_an_article_from_the_decision_rule_up():
    types = ("article", "listing", "forum")
    assert page_type(types, [0.3, 0.2, 0.5], 0.3, 0.25) == "article"
    assert page_type(types, [0.2, 0.2, 0.6], 0.2, 0.25) == "forum"
    assert page_type(("article",), [0.1], 0.1, 0.25) == "other"


# --------------------------------------------------------------------------- pages of other types
def many_posts_forum() -> str:
    users = ["hillwalker", "trailmum", "greg_k", "ridge_runner", "peakbagger", "fellrunner", "moss"]
    posts = "".join(
        f'<div class="message" id="post-{n}"><div class="message-user"><a href="{SITE}/members/{user}.{n}/">'
        f'{user}</a><span class="user-title">Member</span><span>Posts: {n * 37 + 12}</span></div>'
        f'<div class="message-attribution"><time datetime="2025-02-{n + 10}T10:0{n}:00">Feb {n + 10}, 2025</time>'
        f"<span>#{n + 1}</span></div>"
        f'<div class="message-body"><p>On my last pair the stitching went before the sole did, so I would '
        f"look at the welt first. Reply {n + 1} in this thread, and I agree the cobbler is the best first stop.</p>"
        f'</div><div class="message-actions"><a href="{SITE}/posts/{n}/react">Like</a> '
        f'<a href="{SITE}/posts/{n}/quote">Quote</a> <a href="{SITE}/posts/{n}/reply">Reply</a></div></div>'
        for n, user in enumerate(users)
    )
    main = f'<h1>Resoling old leather boots?</h1><div class="thread">{posts}</div>'
    return shell("Resoling old leather boots? | Gear forum", main)


NON_ARTICLES = {
    "forum": (many_posts_forum, "/threads/resoling-old-leather-boots.4412/"),
    "documentation": (docs_page, "/docs/quickstart"),
}


def service_landing_page() -> str:
    offers = [
        ("Emergency repairs", "A leaking pipe or a broken boiler? Our engineers are with you within two hours."),
        ("Boiler servicing", "A yearly service keeps your boiler safe and your warranty valid."),
        ("Bathroom fitting", "From the first drawing to the last tile, one team does the whole job."),
    ]
    blocks = "".join(f"<div class='service'><h3>{t}</h3><p>{x}</p></div>" for t, x in offers)
    main = (
        "<section class='hero'><h1>Plumbers in Greenfield you can rely on</h1>"
        "<p>Family-run since 1998, we fix leaks, fit bathrooms and service boilers across Greenfield and the "
        "villages around it, seven days a week, with fixed prices agreed before we start any work.</p>"
        "<a class='btn' href='tel:+441234567890'>Call now: 01234 567890</a> "
        "<a class='btn' href='/quote'>Get a free quote</a></section>"
        f"<section><h2>Our services</h2>{blocks}</section>"
        "<section><h2>Why choose us</h2><p>Every engineer is certified and insured, every job is guaranteed for "
        "twelve months, and we leave your home as clean as we found it. Our customers rate us 4.9 out of 5.</p>"
        "</section><section class='cta'><h2>Book an appointment</h2><p>Tell us what you need and we will call "
        "you back within the hour.</p><form><input name='phone'><button>Request a callback</button></form>"
        "<p>Or call us on <a href='tel:+441234567890'>01234 567890</a>.</p></section>"
    )
    return shell("Plumber in Greenfield | Emergency plumbing and boiler repair", main)


def imprint_page() -> str:
    main = (
        "<h1>Legal notice</h1><p>This website is published by Example Media Ltd, 12 Harbour Street, Greenfield, "
        "registered in the companies register under number 1234567. Managing directors: Ann Example, Sam "
        "Example.</p><p>Responsible for the content under the press law: Jo Example, at the address above. "
        "Contact: telephone +44 1234 567890, e-mail info@example.com.</p><h2>Liability for content</h2>"
        "<p>The contents of our pages were created with the greatest care. We cannot, however, accept any "
        "liability for the accuracy, completeness and timeliness of the contents, nor for the content of the "
        "external pages that we link to, for which their operators alone are responsible.</p>"
        "<h2>Copyright</h2><p>The contents and works on these pages are subject to copyright. Copying, editing "
        "and distribution beyond the limits of copyright law need the written consent of the author.</p>"
    )
    return shell("Legal notice | Example Media", main)


def shop_page() -> str:
    product = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": "Ridgeline Trekker hiking boot",
        "offers": {"@type": "Offer", "price": "189.00", "priceCurrency": "USD"},
    }
    main = (
        '<div class="product"><h1>Ridgeline Trekker hiking boot</h1><p class="price">$189.00</p>'
        "<p>A waterproof leather boot for day hikes and long weekends on the trail. The upper is full-grain "
        "leather, the lining a breathable membrane, and the sole a deep-lugged rubber that grips on wet rock.</p>"
        '<form class="buy"><select name="size"><option>8</option><option>9</option></select>'
        "<button>Add to cart</button></form><p>In stock. Free delivery on orders over $50.</p></div>"
    )
    return shell("Ridgeline Trekker hiking boot | Example Outdoor Store", main).replace(
        "<head>", "<head>" + json_ld(product)
    )


NON_ARTICLES |= {
    "service": (service_landing_page, "/plumber-greenfield"),
    "legal": (imprint_page, "/legal-notice"),
    "product": (shop_page, "/ridgeline-trekker-hiking-boot"),
}


def _not_yet(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


#: the families the judge does not yet tell apart well enough (out-of-fold figures of the harness,
#: site-grouped folds: docs/development.md#the-default-method)
FORUM_MISSED = "forum threads: the selection holds one post, not the thread; wcxb-dev's forums are typed forum 1 in 15"
DOUBT = "typed an article at the default threshold, with or without its URL (the rule chosen for at most 1 % of the articles dropped)"
#: chosen leaving each source out, the rule is low: the one source holding documentation and
#: service pages is never in training when it is scored (docs/evaluation.md)
UNTYPED = "typed an article at the default threshold: documentation and service pages are not told apart"


@pytest.mark.parametrize(
    "family",
    [
        pytest.param("forum", marks=_not_yet(FORUM_MISSED)),
        pytest.param("documentation", marks=_not_yet(UNTYPED)),
        pytest.param("service", marks=_not_yet(UNTYPED)),
        "legal",
        "product",
    ],
)
def test_pages_of_other_types_are_not_judged_articles(family):
    build, path = NON_ARTICLES[family]
    assert judged(build(), path) and not any(is_article for _, is_article in judged(build(), path))


@pytest.mark.parametrize(
    "family",
    [
        pytest.param("forum", marks=_not_yet(FORUM_MISSED)),
        pytest.param("documentation", marks=_not_yet(UNTYPED)),
        pytest.param("service", marks=_not_yet(DOUBT)),
        "legal",
        "product",
    ],
)
def test_pages_of_other_types_are_dropped_with_and_without_their_url(family):
    build, path = NON_ARTICLES[family]
    assert kept(build(), path) == [False, False], judged(build(), path)


@pytest.mark.parametrize(
    ("family", "kind"),
    [
        pytest.param("documentation", "documentation", marks=_not_yet(UNTYPED)),
        ("legal", "service"),
    ],
)
def test_with_its_url_a_page_gets_its_type(family, kind):
    build, path = NON_ARTICLES[family]
    assert extract(build(), url=f"{SITE}{path}").page_type == kind


def test_service_evidence_is_read_from_links_prompts_and_title():
    evidence = page.page_evidence(*_paragraphs(service_landing_page()))
    assert evidence["log_tel_links"] > 0 and evidence["log_booking_prompts"] > 0
    assert page.page_evidence(*_paragraphs(imprint_page()))["service_title"] == 1.0
    assert page.page_evidence(*_paragraphs(story_page()))["service_title"] == 0.0


def test_prices_in_prose_are_not_price_tags():
    prose = story_page().replace(STORY[1], STORY[1] + " The plan would cost $45 million over ten years.")
    assert page.page_evidence(*_paragraphs(prose))["log_prices_per_kchar"] == 0.0
    assert page.page_evidence(*_paragraphs(shop_page()))["log_prices_per_kchar"] > 0.0


# --------------------------------------------------------------------------- listings that show whole posts
def blog_listing_page() -> str:
    """Page 2 of a blog's tag listing: each post a record with a linked headline, a date, its first
    paragraph and a "Read more" link; page numbers below; titled by the tag."""
    posts = "".join(
        f'<article class="post"><h2><a href="{SITE}/2025/03/{slug}/">{title}</a></h2>'
        f'<time datetime="2025-03-{day:02d}">{day} March 2025</time><p>{text}</p>'
        f'<a class="more" href="{SITE}/2025/03/{slug}/">Read more</a></article>'
        for day, (slug, title, text) in enumerate(
            [
                ("reservoir-lowest-level", "Reservoir falls to its lowest level in thirty years", STORY[0]),
                ("farmers-cut-water-use", "Farmers asked to cut their water use by a fifth", STORY[1]),
                ("spillway-cracks-repaired", "Old cracks in the spillway to be repaired", STORY[2]),
                ("drinking-water-secure", "Drinking water secure until the end of summer", STORY[3]),
            ],
            1,
        )
    )
    pages = "".join(f'<li><a href="{SITE}/tag/water/page/{n}/">{n}</a></li>' for n in (1, 2, 3, 4))
    main = f'<h1>Water</h1><div class="posts">{posts}</div><nav class="pages"><ul>{pages}</ul></nav>'
    return shell("Water | The Valley Gazette", main)


LISTING_EVIDENCE = ("log_article_elements", "pagination", "log_post_records", "log_repeated_link_texts")


def test_a_listing_of_whole_posts_shows_records_pages_and_prompts():
    listing = page.page_evidence(*_paragraphs(blog_listing_page()))
    story = page.page_evidence(*_paragraphs(story_page()))
    assert all(listing[name] > 0 for name in LISTING_EVIDENCE), listing
    assert not any(story[name] for name in LISTING_EVIDENCE), story


def test_footnote_links_and_previous_or_next_post_links_are_told_apart():
    footnotes = story_page().replace(
        STORY[1], STORY[1] + '<sup><a href="#fn1">1</a></sup><sup><a href="#fn2">2</a></sup>'
    )
    assert page.page_evidence(*_paragraphs(footnotes))["pagination"] == 0.0
    series = story_page(f'<a rel="next" href="{SITE}/tag/water/page/3/">Older posts</a>')
    assert page.page_evidence(*_paragraphs(series))["pagination"] == 1.0


@pytest.mark.parametrize(
    ("path", "title", "named"),
    [
        ("/tag/water/page/2/", "Water | The Valley Gazette", True),
        ("/category/open-source/", "Open Source – Example Blog", True),
        ("/topics/water/", "Example Blog: Water", True),
        ("/2025/03/reservoir-falls-to-its-lowest-level/", "Reservoir falls to its lowest level | Gazette", False),
        ("/tag/water/", "Reservoir falls to its lowest level in thirty years", False),
    ],
)
def test_a_title_that_names_the_urls_term(path, title, named):
    assert page.url_evidence(f"{SITE}{path}", title)["url_title_term"] == float(named)
    assert page.url_evidence(None, title)["url_title_term"] == 0.0
