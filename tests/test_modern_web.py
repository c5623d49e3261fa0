"""The default method on templates of today's web: roundups kept whole, news bodies not cut after the
lead, and forum threads, documentation, product and service pages judged not to be articles.

Every page here is a small hand-written page built the way such pages are built (item cards with
specs, prices, pros and cons; bodies in unusual markup; per-post author and date blocks; code blocks
and an in-page table of contents; an add-to-cart form; call-to-action sections).
"""

from __future__ import annotations

import pytest
from sample_pages import MENU, SITE

from scrapy_bodytext import extract

NAV = "".join(f'<li><a href="{SITE}/{item.lower()}/">{item}</a></li>' for item in MENU)
FOOTER = (
    f'<footer><a href="{SITE}/about/">About us</a> <a href="{SITE}/privacy/">Privacy</a>'
    "<p>© 2025 Example Media</p></footer>"
)


def shell(title: str, main: str, og_type: str = "website") -> str:
    """A page of today's web around ``main``: a header with a menu and a footer."""
    return (
        f'<html lang="en"><head><title>{title}</title><meta property="og:type" content="{og_type}"></head><body>'
        f'<header><nav><ul class="menu">{NAV}</ul></nav></header><main>{main}</main>{FOOTER}</body></html>'
    )


# --------------------------------------------------------------------------- a roundup kept whole
ITEMS = [
    (
        "Ridgeline Trekker",
        "189",
        "The Ridgeline is the boot we would hand to anyone starting out. It needed no "
        "breaking in, kept our feet dry through two days of spring rain, and the sole held on wet granite.",
    ),
    (
        "Alder Peak Mid",
        "149",
        "For the price, the Alder Peak gives more support than any other boot we tried. "
        "The collar is a little stiff for the first week, but the fit around the heel is excellent.",
    ),
    (
        "Summit Line GTX",
        "239",
        "This is the boot for long days with a heavy pack. It is heavier than the others, "
        "yet on steep descents the stiff shank and the deep lugs made every step feel secure.",
    ),
    (
        "Cascade Lite",
        "129",
        "The lightest boot in our test is almost a trail shoe. It breathes well in summer and "
        "dries overnight, although it gives less protection when the path turns rocky.",
    ),
    (
        "Northwall Expedition",
        "279",
        "Built for cold weather, the Northwall kept our toes warm on a frosty morning "
        "at the lake. It is too warm for summer walks, and it takes a while to lace up.",
    ),
    (
        "Meadow Walker",
        "99",
        "Our budget pick is comfortable out of the box and fine for gravel paths and park "
        "trails. The tread wears faster than on the pricier boots, but it is hard to beat for the money.",
    ),
]
INTRO = [
    "We walked more than three hundred miles this year to find the hiking boots worth your money. Every pair "
    "was worn on rocky trails, muddy forest paths and long days on the road.",
    "Below are our picks, with what each one does best, what it costs and what we did not like about it.",
]
CLOSING = (
    "Whichever pair you choose, wear it around the house for a few days before a long hike, and buy it "
    "from a shop that takes returns: feet differ, and no review can tell you how a boot fits yours."
)


def roundup_page() -> str:
    cards = "".join(
        f'<div class="product-card"><h3>{n}. {name}</h3>'
        f'<ul class="specs"><li>Weight: 1.{n} kg</li><li>Waterproof: yes</li><li>Sizes: 6 to 13</li></ul>'
        f'<p class="price">${price}</p>'
        f'<div class="pros-cons"><ul class="pros"><li>Comfortable from day one</li></ul>'
        f'<ul class="cons"><li>Laces come undone</li></ul></div>'
        f'<a class="button" href="{SITE}/go/{n}">Check price</a>'
        f"<p>{prose}</p></div>"
        for n, (name, price, prose) in enumerate(ITEMS, 1)
    )
    intro = "".join(f"<p>{p}</p>" for p in INTRO)
    related = "".join(f'<li><a href="{SITE}/guides/{i}">Best tents of 2025 part {i}</a></li>' for i in range(6))
    main = (
        f'<article><h1>The best hiking boots of 2025</h1><p class="byline">By Ann Example</p>{intro}'
        f'<div class="roundup">{cards}</div><h2>How to choose</h2><p>{CLOSING}</p></article>'
        f'<aside class="related"><h3>More guides</h3><ul>{related}</ul></aside>'
    )
    return shell("The best hiking boots of 2025", main, "article")


def test_a_roundup_keeps_every_item_with_its_prose():
    text = extract(roundup_page(), url=f"{SITE}/guides/best-hiking-boots").text
    missing = [prose for _, _, prose in ITEMS if prose not in text]
    assert missing == [], text
    assert all(name in text for name, _, _ in ITEMS), text
    assert INTRO[0] in text and CLOSING in text, text
    assert "Best tents of 2025" not in text, text


# --------------------------------------------------------------------------- a news body after the lead
LEAD = (
    "The city council voted on Tuesday night to reopen the old railway station as a market hall, ending a "
    "dispute that had lasted for almost ten years."
)
BODY = [
    "The vote was close. Seven members backed the plan and six opposed it, after a debate that ran for more "
    "than four hours and drew a crowd that filled the public gallery.",
    "Supporters said the market would bring shoppers back to the streets around the station, where many shops "
    "have closed since the trains stopped running there.",
    "Opponents warned that the cost of repairing the roof and the platforms had been underestimated, and that "
    "the council might have to borrow to finish the work.",
    "The first stalls are expected to open next spring. Traders will be able to apply for a place from the "
    "beginning of next month, the council said in a statement.",
]


def news_page() -> str:
    """The lead in a paragraph; the body as text runs split by line breaks inside a division of its
    own, with an advertisement slot between them."""
    body = "<br><br>".join(f"<span>{p}</span>" for p in BODY[:2])
    body += '<div class="ad-slot"><span>Advertisement</span></div>'
    body += "<br><br>".join(f"<span>{p}</span>" for p in BODY[2:])
    main = (
        '<div class="story"><h1>Council votes to reopen old station</h1>'
        '<div class="meta"><span>By Jo Example</span> <time datetime="2025-03-04">4 March 2025</time></div>'
        f'<p class="lead-in"><b>{LEAD}</b></p><div class="txt-blk">{body}</div></div>'
    )
    return shell("Council votes to reopen old station", main, "article")


def test_a_news_body_in_unusual_markup_is_not_cut_after_the_lead():
    text = extract(news_page(), url=f"{SITE}/news/2025/03/04/council-station-vote").text
    assert LEAD in text, text
    assert [p for p in BODY if p not in text] == [], text


# --------------------------------------------------------------------------- pages that are not articles
def forum_page() -> str:
    posts = [
        (
            "hillwalker",
            "Has anyone replaced the sole on a pair of leather boots? Mine are six years old and "
            "the uppers are fine, but the tread is worn flat.",
        ),
        (
            "trailmum",
            "I had mine resoled last year at a cobbler in town. It cost about half the price of new "
            "boots and they feel as good as before.",
        ),
        (
            "greg_k",
            "Check whether the maker offers resoling. Some do it themselves and send them back within three weeks.",
        ),
        ("hillwalker", "Thanks both, I will ask at the cobbler first and see what they say about the stitching."),
        ("ridge_runner", "Same experience here, resoled twice already. Just make sure the welt is still sound."),
    ]
    thread = "".join(
        f'<div class="post" id="post-{n}"><div class="post-meta"><a class="user" href="{SITE}/u/{user}">{user}</a> '
        f'<time datetime="2025-02-0{n + 1}">Feb {n + 1}, 2025</time> <span>#{n + 1}</span></div>'
        f'<div class="post-body"><p>{text}</p></div>'
        f'<div class="post-actions"><a href="{SITE}/reply/{n}">Reply</a> <a href="{SITE}/like/{n}">Like</a></div></div>'
        for n, (user, text) in enumerate(posts)
    )
    main = (
        f'<h1>Resoling old leather boots?</h1><div class="thread">{thread}</div>'
        '<form><textarea name="reply"></textarea><button>Post reply</button></form>'
    )
    return shell("Resoling old leather boots? - Gear forum", main)


def docs_page() -> str:
    sections = [
        (
            "install",
            "Installation",
            "Install the package with pip. It needs Python 3.10 or later.",
            "pip install example-client",
        ),
        (
            "configure",
            "Configuration",
            "Create a client with your key. The key is read from the environment when it is not given.",
            "client = Client(key=os.environ['EXAMPLE_KEY'])",
        ),
        (
            "requests",
            "Making requests",
            "Every call returns a response object whose data attribute holds the decoded body.",
            "response = client.get('/items', params={'page': 2})",
        ),
        (
            "errors",
            "Errors",
            "A failed call raises an error that carries the status code and the message.",
            "except ClientError as error:\n    print(error.status)",
        ),
    ]
    toc = "".join(f'<li><a href="#{anchor}">{title}</a></li>' for anchor, title, _, _ in sections)
    body = "".join(
        f'<section id="{anchor}"><h2>{title}</h2><p>{text}</p><pre><code>{code}</code></pre></section>'
        for anchor, title, text, code in sections
    )
    main = (
        f'<div class="sidebar"><p>On this page</p><ul class="toc">{toc}</ul></div>'
        f'<div class="document"><h1>Quickstart</h1><p>This guide shows the client in use.</p>{body}</div>'
    )
    return shell("Quickstart — example-client 2.1 documentation", main)


def product_page() -> str:
    main = (
        '<div class="product"><h1>Ridgeline Trekker hiking boot</h1><p class="price">$189.00</p>'
        "<p>Rated 4.6 of 5 (212 reviews)</p>"
        '<form class="buy"><select name="size"><option>8</option><option>9</option><option>10</option></select>'
        '<input type="number" name="qty" value="1"><button>Add to cart</button><button>Add to wishlist</button>'
        "</form><p>Free delivery on orders over $50. Returns within 30 days.</p>"
        "<h2>Details</h2><table><tr><td>Weight</td><td>1.1 kg</td></tr><tr><td>Upper</td><td>Leather</td></tr>"
        "<tr><td>Waterproof</td><td>Yes</td></tr></table>"
        "<p>A waterproof leather boot for day hikes and long weekends on the trail.</p></div>"
    )
    return shell("Ridgeline Trekker hiking boot | Example Outdoor Store", main)


def service_page() -> str:
    features = [
        ("Fast setup", "Go live in a day with our onboarding team."),
        ("Secure by default", "Your data is encrypted at rest and in transit."),
        ("Support that answers", "Talk to a real person around the clock."),
        ("Fair pricing", "Pay per seat, cancel at any time."),
    ]
    blocks = "".join(f'<div class="feature"><h3>{title}</h3><p>{text}</p></div>' for title, text in features)
    main = (
        '<section class="hero"><h1>Payroll that runs itself</h1><p>Pay your team on time, every time.</p>'
        f'<a class="btn" href="{SITE}/demo">Book a demo</a> <a class="btn" href="{SITE}/signup">Start free trial</a>'
        f'</section><section class="features"><h2>Why teams choose us</h2>{blocks}</section>'
        '<section class="cta"><h2>Ready to get started?</h2>'
        f'<form><input type="email" name="email"><button>Get started</button></form></section>'
    )
    return shell("Payroll software for small business | Example Payroll", main)


def judged(html: str, path: str) -> list[float]:
    """The page's article probability with its URL and without one."""
    return [extract(html, url=url).article_probability for url in (f"{SITE}{path}", None)]


def test_product_pages_with_their_url_are_not_articles():
    assert judged(product_page(), "/products/ridgeline-trekker")[0] < 0.5


@pytest.mark.xfail(
    strict=True,
    reason="without its URL the shop page is typed an article at the default threshold (out of fold, the judge "
    "drops 7 % of the whole sites' non-articles without URLs against 48 % with them)",
)
def test_product_pages_without_a_url_are_not_articles():
    assert judged(product_page(), "/products/ridgeline-trekker")[1] < 0.5


@pytest.mark.xfail(
    strict=True,
    reason="documentation pages are typed articles at the default threshold: the judge's rule is chosen to drop at "
    "most 1 % of the articles of every corpus, and out of fold it drops 17 % of the dev corpus's documentation pages",
)
def test_documentation_pages_are_not_articles():
    assert max(judged(docs_page(), "/docs/quickstart")) < 0.5


@pytest.mark.xfail(
    strict=True,
    reason="the judge does not yet tell forum threads and service pages apart: "
    "leaving each source out, 33 % of wcxb-dev's forum threads and 51 % of its service pages are dropped",
)
def test_forum_threads_and_service_pages_are_not_articles():
    assert max(judged(forum_page(), "/forum/gear/resoling-old-leather-boots")) < 0.5
    assert max(judged(service_page(), "/payroll-software")) < 0.5


def test_the_articles_of_this_module_are_judged_articles():
    for html, path in ((roundup_page(), "/guides/best-hiking-boots"), (news_page(), "/news/2025/03/04/vote")):
        for url in (f"{SITE}{path}", None):
            assert extract(html, url=url).article_probability >= 0.5, url


# --------------------------------------------------------------------------- the article's region
def test_the_prose_core_is_the_region_holding_the_roundup():
    from itertools import accumulate

    from scrapy_bodytext.api import load_document
    from scrapy_bodytext.config import ExtractConfig
    from scrapy_bodytext.extractors.bodytext import context, units

    doc = load_document(roundup_page(), ExtractConfig(), url=f"{SITE}/guides/best-hiking-boots")
    paras = units.paragraphs(doc)
    lines = [" ".join(doc.texts[s:e]) for s, e in zip(paras.starts, paras.ends)]
    lo, hi = context.smallest_region(paras, [0.0, *accumulate(context.prose_weights(paras))], context.PROSE_CORE_SHARE)
    inside = " ".join(lines[lo:hi])
    assert all(prose in inside for _, _, prose in ITEMS), inside
    assert not any(item in inside for item in MENU), inside
    assert "Best tents of 2025" not in inside, inside


def test_the_recall_guard_keeps_the_core_of_the_selection_whole():
    from scrapy_bodytext.api import load_document
    from scrapy_bodytext.config import ExtractConfig
    from scrapy_bodytext.extractors.bodytext import Guard, score, select

    doc = load_document(roundup_page(), ExtractConfig(), url=f"{SITE}/guides/best-hiking-boots")
    scored = score(doc)
    plain = select(scored.paras, scored.scores, 0.99, 0.99)  # the best paragraphs only
    guarded = select(scored.paras, scored.scores, 0.99, 0.99, Guard(share=0.8, cut=0.0))
    assert set(plain) <= set(guarded)
    assert len(guarded) > len(plain)  # the item lines between the best paragraphs come back
    assert not set(guarded) & (scored.paras.furniture | scored.paras.bylines)  # never the byline
    assert select(scored.paras, scored.scores, 0.99, 0.99, Guard()) == plain  # share 0: off


@pytest.mark.parametrize(
    "body",
    [
        b"<html><body>Not found</body></html>",
        b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>"
        b"<p>The requested URL was not found on this server.</p></body></html>",
        b"<html><body><article><h1>Sign in</h1><p>Enter your password to continue.</p></article></body></html>",
    ],
)
def test_a_page_that_shows_a_line_or_two_is_not_an_article(body):
    """Main text too short to be an article's body (an error page, a login prompt) is never stored as
    an article, however article-like the markup around it."""
    result = extract(body, url="https://news.example/2025/05/story.html")
    assert not result.is_article, result.article_probability
