"""Whole-page evidence for the page-type judge: how the page around the main text is built.

The judge's other evidence (``page``) mostly reads the paragraphs; this reads the elements of the
whole page in one walk over the ``Document``'s columns, in groups that are measured and kept (or left
out) together (``GROUPS``; ``CHOSEN`` are the ones the judge weighs, chosen by the training harness's
group measurement out of fold). Every cue is general: HTML semantics (the elements a kind of page is
made of: a form and its inputs on a forum or a shop, ``time`` elements in a listing's records), the
markup's own declarations (schema.org microdata, ``itemprop``, ``rel``), class words every theme uses
for the parts of a page (comment, pagination, sidebar, card, product, forum), and page-type words of
titles and addresses in a few languages. None names a site.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from lxml import etree

from ...page.document import HEADING_TAGS, Document

#: the elements counted (log of one plus the count), each a feature ``log_<tag>s``
COUNTED_TAGS = (
    "time",
    "form",
    "input",
    "textarea",
    "button",
    "select",
    "nav",
    "aside",
    "table",
    "figure",
    "blockquote",
)
#: class and id words of the parts of a page, each family a feature ``class_<family>`` (log of one plus the
#: number of elements whose class or id holds one of its words as a whole word or a hyphenated part)
CLASS_WORDS = {
    "comment": "comment comments reply replies respond discussion",
    "pagination": "pagination pager paging page-numbers nav-links next prev previous",
    "sidebar": "sidebar widget widgets aside",
    "card": "card cards tile tiles grid teaser teasers excerpt summary",
    "product": "product products price cart basket sku add-to-cart buy checkout",
    "forum": "forum thread topic topics post-reply postbody message messages",
    "breadcrumb": "breadcrumb breadcrumbs crumbs",
    "share": "share sharing social",
    "related": "related recommended more-stories",
    "docs": "toc docs documentation api highlight sourcecode",
}
#: page-type words of titles and addresses (English, German, French, Spanish, Italian, Portuguese,
#: Dutch), each family a feature ``words_<family>`` (1 when the title or the URL's path holds one)
TYPE_WORDS = {
    "listing": "archive archives archiv archivo archivio arquivo category categories kategorie catégorie "
    "categoría categoria categorie tag tags topics themen thema sujets page seite página pagina search suche "
    "recherche buscar cerca blog news nachrichten actualités noticias notizie notícias nieuws",
    "forum": "forum forums foro fórum thread threads topic discussion discussions community board "
    "question questions answers",
    "docs": "docs documentation dokumentation doc manual handbuch guide tutorial reference api referenz howto wiki faq",
    "product": "shop store buy kaufen acheter comprar comprare kopen price preis prix precio prezzo preço "
    "product produkt produit producto prodotto produto cart warenkorb panier carrito carrello",
}
#: schema.org microdata types (the last part of ``itemtype``) by kind, each a feature ``microdata_<kind>``
MICRODATA = {
    "article": frozenset("Article NewsArticle BlogPosting TechArticle Report ScholarlyArticle Recipe Review".split()),
    "listing": frozenset("ItemList CollectionPage SearchResultsPage Blog BreadcrumbList".split()),
    "product": frozenset("Product Offer AggregateOffer AggregateRating".split()),
    "forum": frozenset("DiscussionForumPosting Comment UserComments Question Answer QAPage".split()),
}
#: JSON-LD subject types and ``og:type`` values that declare a page other than an article
DECLARED_OTHER = {
    "declared_listing": frozenset("ItemList CollectionPage SearchResultsPage Blog".split()),
    "declared_webpage": frozenset("AboutPage ContactPage FAQPage ProfilePage CheckoutPage".split()),
}
OG_OTHER = frozenset(("website", "product", "profile", "video.other", "book", "product.item"))
_WORD_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_LETTERS_RE = re.compile(r"[^\W\d_]+")
#: a date in running text: 2024-05-01, 01.05.2024, 5/1/2024, or a day and month name with a year
_DATE_RE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}|"
    r"\d{1,2}\.?\s+[^\W\d_]{3,9}\.?,?\s+\d{4}|[^\W\d_]{3,9}\.?\s+\d{1,2},?\s+\d{4})\b"
)
#: a price: a currency sign or code beside a number
_PRICE_RE = re.compile(r"(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?(?:[$€£¥₹]|eur|usd|gbp|chf|kr|zł|руб)\b)", re.IGNORECASE)
#: records: a parent's children of one tag and class, at least this many of them holding a link
MIN_RECORDS = 3
#: the text read for dates and prices: at most this many characters
TEXT_LIMIT = 20_000

GROUPS: dict[str, tuple[str, ...]] = {
    "outside": ("outside_link_density", "log_outside_kchars"),
    "elements": tuple(f"log_{tag}s" for tag in COUNTED_TAGS),
    "records": ("log_sibling_records", "log_heading_records", "log_dated_records_page", "record_link_share"),
    "declared": (
        *(f"microdata_{kind}" for kind in MICRODATA),
        "itemprop_article_body",
        *DECLARED_OTHER,
        "og_other",
        "rel_author",
    ),
    "class_words": tuple(f"class_{family}" for family in CLASS_WORDS),
    "type_words": (*(f"words_{family}" for family in TYPE_WORDS), *(f"url_words_{family}" for family in TYPE_WORDS)),
    "patterns": ("log_dates_per_kchar", "log_prices_page", "linked_heading_share"),
}
#: the groups the judge weighs (chosen out of fold, leave one source out and leave one site out)
CHOSEN: tuple[str, ...] = ()

#: the class and id values of the elements under the body (one string per element and attribute)
_CLASS_NAMES = etree.XPath("descendant-or-self::*/@class | descendant-or-self::*/@id")
_ITEMTYPES = etree.XPath("descendant-or-self::*/@itemtype")
_ARTICLE_BODY = etree.XPath("boolean(descendant-or-self::*[@itemprop='articleBody'])")
_AUTHOR_LINK = etree.XPath("boolean(descendant::a[contains(concat(' ', normalize-space(@rel), ' '), ' author ')])")
_CLASS_FAMILY = {word: family for family, words in CLASS_WORDS.items() for word in words.split()}
_TYPE_FAMILY = {word: family for family, words in TYPE_WORDS.items() for word in words.split()}
_LINK, _HEADING, _TIME = 1, 2, 4


def whole_page_evidence(doc: Document, groups: Iterable[str] = CHOSEN) -> dict[str, float]:
    """The features of ``groups`` (default: the chosen ones) of one page, by name; the ``outside``
    group is the selection's (``outside_evidence``) and is not computed here."""
    wanted = set(groups)
    found: dict[str, float] = {}
    tags, elements, parents = doc.tags, doc.elements, doc.parents
    if wanted & {"elements", "records"}:
        counts = {tag: 0 for tag in COUNTED_TAGS}
        bits = [0] * len(tags)
        for e, tag in enumerate(tags):
            if tag in counts:
                counts[tag] += 1
            bits[e] = _LINK if tag == "a" else _HEADING if tag in HEADING_TAGS else _TIME if tag == "time" else 0
        if "elements" in wanted:
            found |= {f"log_{tag}s": math.log1p(count) for tag, count in counts.items()}
        if "records" in wanted:
            found |= _records(doc, bits, parents)
    body = elements[0] if elements else None
    if "class_words" in wanted:
        families = dict.fromkeys(CLASS_WORDS, 0)
        for names in _CLASS_NAMES(body) if body is not None else ():
            seen = {_CLASS_FAMILY.get(part) for word in _WORD_RE.findall(names.lower()) for part in word.split("-")}
            for family in seen:
                if family is not None:
                    families[family] += 1
        found |= {f"class_{family}": math.log1p(count) for family, count in families.items()}
    if "declared" in wanted:
        found |= _declared(doc, body)
    if "patterns" in wanted:
        found |= _patterns(doc)
    if "type_words" in wanted:
        found |= type_words(doc.title, doc.url)
    return found


def _declared(doc: Document, body) -> dict[str, float]:
    """Microdata types by kind, ``itemprop="articleBody"``, ``rel="author"`` links, and the JSON-LD
    subject types and ``og:type`` of pages other than articles."""
    microdata = dict.fromkeys(MICRODATA, 0.0)
    for itemtype in _ITEMTYPES(body) if body is not None else ():
        name = itemtype.rstrip("/").rpartition("/")[2]
        for kind, types in MICRODATA.items():
            if name in types:
                microdata[kind] = 1.0
    subjects = doc.subject_types
    return (
        {f"microdata_{kind}": value for kind, value in microdata.items()}
        | {name: 1.0 if subjects & types else 0.0 for name, types in DECLARED_OTHER.items()}
        | {
            "itemprop_article_body": 1.0 if body is not None and _ARTICLE_BODY(body) else 0.0,
            "og_other": 1.0 if (doc.og_type or "") in OG_OTHER else 0.0,
            "rel_author": 1.0 if body is not None and _AUTHOR_LINK(body) else 0.0,
        }
    )


def _records(doc: Document, bits: list[int], parents: list[int]) -> dict[str, float]:
    """Repeated sibling records: children of one parent with one tag and class, at least
    ``MIN_RECORDS`` of them holding a link (a listing's teasers, a forum's topics); how many of those
    hold a heading too, and a ``time`` element; and the share of the page's link characters in the
    largest group of them."""
    for e in range(len(bits) - 1, 0, -1):  # children come after their parents: fold each into its parent
        parent = parents[e]
        if parent >= 0:
            bits[parent] |= bits[e]
    groups: dict[tuple[int, str, str], list[int]] = {}
    elements, tags = doc.elements, doc.tags
    for e, parent in enumerate(parents):
        if parent >= 0 and bits[e] & _LINK:
            key = (parent, tags[e], elements[e].get("class") or "")
            groups.setdefault(key, []).append(e)
    records = [members for members in groups.values() if len(members) >= MIN_RECORDS]
    linked = sum(len(members) for members in records)
    headed = sum(1 for members in records for e in members if bits[e] & _HEADING)
    dated = sum(1 for members in records for e in members if bits[e] & _TIME)
    largest = max(records, key=len, default=[])
    link_chars = sum(doc.subtree_sum("link_chars", e) for e in largest)
    total_links = doc.total_link_chars
    return {
        "log_sibling_records": math.log1p(linked),
        "log_heading_records": math.log1p(headed),
        "log_dated_records_page": math.log1p(dated),
        "record_link_share": link_chars / total_links if total_links else 0.0,
    }


def _patterns(doc: Document) -> dict[str, float]:
    """Dates per thousand characters and prices of the page's text, and the share of its headings that
    are links."""
    text = " ".join(doc.texts)[:TEXT_LIMIT]
    kchars = max(len(text), 1) / 1000
    tags, slot_starts, slot_ends = doc.tags, doc.slot_starts, doc.slot_ends
    headings = linked = 0
    link_prefix = doc.prefix("link_chars")
    chars_prefix = doc.prefix("chars")
    for e, tag in enumerate(tags):
        if tag in HEADING_TAGS:
            chars = chars_prefix[slot_ends[e]] - chars_prefix[slot_starts[e]]
            if chars:
                headings += 1
                linked += 2 * (link_prefix[slot_ends[e]] - link_prefix[slot_starts[e]]) > chars
    return {
        "log_dates_per_kchar": math.log1p(len(_DATE_RE.findall(text)) / kchars),
        "log_prices_page": math.log1p(len(_PRICE_RE.findall(text))),
        "linked_heading_share": linked / headings if headings else 0.0,
    }


def type_words(title: str, url: str | None) -> dict[str, float]:
    """``words_<family>``: 1 when the title holds a word of the family; ``url_words_<family>`` the same
    of the words of the URL's path (URL evidence: 0 without a URL)."""
    path = url.split("://", 1)[-1].partition("/")[2].split("?", 1)[0] if url else ""
    found = {}
    for prefix, text in (("words", title), ("url_words", path)):
        families = {_TYPE_FAMILY.get(word) for word in _LETTERS_RE.findall(text.lower())}
        found |= {f"{prefix}_{family}": 1.0 if family in families else 0.0 for family in TYPE_WORDS}
    return found


def outside_evidence(chars: list[int], link_chars: list[int], keep: Iterable[int]) -> dict[str, float]:
    """The ``outside`` group: the link density of the paragraphs outside the main text, and the log of
    their thousands of characters."""
    kept = set(keep)
    outside = sum(c for i, c in enumerate(chars) if i not in kept)
    outside_links = sum(c for i, c in enumerate(link_chars) if i not in kept)
    return {
        "outside_link_density": outside_links / outside if outside else 0.0,
        "log_outside_kchars": math.log1p(outside / 1000),
    }
