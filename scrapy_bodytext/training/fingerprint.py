"""The fingerprint of the default method's features: what they compute, not how the source is written.

``feature_fingerprint`` hashes the feature values (by name, to 9 significant digits) of a few small
built-in pages: an article, a listing and a thread of comments. A model records it when it is fitted
(``about.feature_fingerprint`` in ``model.json``) and the tests compare it with the code's: a change
that alters what any feature measures must come with a refit, while moving, renaming or commenting
code does not touch it (the source hash, ``about.code_fingerprint``, changes with every edit and is
kept as a record only).
"""

from __future__ import annotations

import hashlib
import json

from ..api import load_document
from ..config import ExtractConfig
from ..extractors.bodytext import context, page, units

_PROSE = (
    "The council met on Tuesday evening to discuss the budget for the coming year. Members agreed, after a "
    "long debate, that the library should stay open in the evenings and that the pool would be repaired."
)
_MENU = "".join(f'<li><a href="/section/{name.lower()}/">{name}</a></li>' for name in ("News", "Sport", "Culture"))

#: (url, html) of the pages the fingerprint reads
PROBE_PAGES = (
    (
        "https://news.example/2024/03/12/council-keeps-library-open",
        f"""<!doctype html><html lang="en"><head>
<title>Council keeps the library open</title><meta property="og:type" content="article">
<script type="application/ld+json">{{"@type": "NewsArticle", "datePublished": "2024-03-12"}}</script></head><body>
<header><nav><ul class="menu">{_MENU}</ul></nav></header>
<main><article class="story-body"><h1>Council keeps the library open</h1>
<p class="byline">By Jane Doe</p><time datetime="2024-03-12">12 March 2024</time>
<p>{_PROSE}</p><h2>What comes next</h2><p>{_PROSE} Work starts in May.</p>
<figure><img src="a.jpg"><figcaption>Photo: John Smith</figcaption></figure>
<blockquote>"It is a good day for the town," the mayor said.</blockquote>
<ul><li>Opening hours: 9 to 21, every day of the week except Sunday.</li><li>Entry is free.</li></ul>
<table><tr><td>Budget item</td><td>1,200,000</td></tr></table>
<div class="share-tools"><a href="/share">Share this story</a></div></article></main>
<section class="comments"><h3>3 Comments</h3>
<div class="comment"><p class="author">Ann</p><p>Great news for the town, and long overdue.</p></div>
<div class="comment"><p class="author">Bob</p><p>I disagree: the pool should come first.</p></div>
<div class="comment"><p class="author">Cy</p><p>Thanks for the report.</p></div>
<form><p>Leave a reply</p><input name="name"><button>Post</button></form></section>
<footer><p>© 2024 Example News. All rights reserved.</p></footer></body></html>""",
    ),
    (
        "https://shop.example/category/lamps",
        f"""<html><head><title>Lamps | Shop</title></head><body>
<nav><ul>{_MENU}</ul></nav><h1>Lamps</h1>
<div class="product"><h3><a href="/p/1">Desk lamp</a></h3><p>A small lamp for the desk.</p><span>$19.99</span>
<button>Add to cart</button></div>
<div class="product"><h3><a href="/p/2">Floor lamp</a></h3><p>A tall lamp for the corner.</p><span>$49.99</span>
<button>Add to cart</button></div>
<div class="product"><h3><a href="/p/3">Wall lamp</a></h3><p>A lamp for the hall.</p><span>$29.99</span>
<button>Add to cart</button></div></body></html>""",
    ),
    (
        None,
        """<html lang="de"><head><title>Bericht</title></head><body><div id="content">
<p>Der Gemeinderat hat am Dienstag beschlossen, dass die Bibliothek am Abend geöffnet bleibt, und die
Mitglieder waren sich nach einer langen Debatte einig.</p><p>Kommentare</p></div></body></html>""",
    ),
)


def _rounded(values) -> list[float]:
    return [float(f"{float(value):.9g}") for value in values]


def feature_values() -> list[dict[str, dict[str, list[float]]]]:
    """Per probe page: every feature's values by name (paragraphs, their context given fixed
    first-pass scores, and the page's article row with every candidate kept)."""
    found = []
    for url, html in PROBE_PAGES:
        doc = load_document(html, ExtractConfig(), url=url)
        paras = units.paragraphs(doc)
        first = [(i * 7 % 10) / 10 for i in range(len(paras.starts))]
        rows = context.context_rows(paras, first)
        article = page.article_row(paras, page.page_evidence(doc, paras), paras.candidates, first)
        found.append(
            {
                "paragraphs": {name: _rounded(paras.rows.column(name)) for name in units.FEATURES},
                "context": {name: _rounded(rows.column(name)) for name in context.FEATURES},
                "article": {name: _rounded([article[name]]) for name in page.FEATURES},
            }
        )
    return found


def feature_fingerprint() -> str:
    """Hash of ``feature_values`` (names sorted: the order the code builds them in does not count)."""
    return hashlib.sha256(json.dumps(feature_values(), sort_keys=True).encode()).hexdigest()[:16]
