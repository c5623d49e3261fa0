"""Page-level evidence for the page-type judge (the article probability is its article share).

Two kinds: how the page is built (``page_evidence``: what the page declares about itself — the
schema.org types of its subjects, ``og:type``, a publication date — weighed as evidence, never as a
verdict; the single-node guess, teaser headlines and linked headings, shop prompts and prices in
short lines, images, headings, repeated records, date lines, code blocks, ``tel:`` links, booking
and quote prompts, service words in the title, the URL's shape), computed once per page; and what
the selection found (``article_row``: its link share, size in paragraphs, stop words, contiguity,
paragraph scores, and the date lines and dated records inside it: a forum thread is several posts,
each with its own user name and date). URL evidence is kept apart (names starting ``url_``), zero
when the page has no URL, so that the model can be checked with and without it. The whole page's
evidence (``whole_page``) joins them in the groups chosen out of fold.

Measured on the dev pages of each type and left out: "edit this page" links to a repository's
editor (no dev page has one) and forum posting types as a page's subject (none declares one; they
are no evidence of an article either: ``ARTICLE_TYPES`` leaves them out).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from urllib.parse import unquote, urlsplit

from ...page.document import Document
from .units import Paragraphs
from .vocabulary import BOOKING_RE, PRICE_RE, SERVICE_TITLE_RE, SHOP_RE
from .whole_page import CHOSEN, GROUPS, outside_evidence, whole_page_evidence

#: the page types the judge tells apart; ``article`` is the one a news crawl keeps
PAGE_TYPES = ("article", "listing", "forum", "product", "collection", "documentation", "service", "other")

#: schema.org types of article pages (forum and social posts are evidence of a forum, not of an article)
ARTICLE_TYPES = frozenset(
    "Article NewsArticle BlogPosting Report ReportageNewsArticle AnalysisNewsArticle OpinionNewsArticle "
    "BackgroundNewsArticle ReviewNewsArticle TechArticle ScholarlyArticle LiveBlogPosting Recipe Review".split()
)
#: schema.org types of discussion threads and their posts: never evidence of an article. (As evidence
#: of a forum they were measured and left out: no dev page declares one as its subject.)
FORUM_TYPES = frozenset("DiscussionForumPosting SocialMediaPosting QAPage".split())
#: schema.org types of a page that sells one thing
PRODUCT_TYPES = frozenset("Product ProductGroup IndividualProduct ProductModel Offer AggregateOffer Car Book".split())
_URL_NUMBER_RE = re.compile(r"\d{5,}")
#: URL path words of shop, listing and search pages (generic e-commerce and CMS vocabulary): a whole
#: path segment ("/tag/", "/search"), or one ending in a number ("/page-2", "/p-1234"); never a slug
#: that only starts with one ("/search-engines-explained") nor a one-letter word (a newsletter
#: platform's post path is "/p/slug")
_URL_LISTING_RE = re.compile(
    r"/(?:products?|shop|store|cart|collections?|category|categories|cat|tags?|topics?|section|search|"
    r"archive|page|author|coupons?|deals?|itm|ip)(?:/|$|[-_]?\d+(?:/|$)|[?#.])",
    re.IGNORECASE,
)
#: short text nodes (prices, shop prompts, labels) are at most this long: a price in a line of
#: prose ("the deal cost $4bn") is not a shop's price tag
SHORT_TEXT = 40
#: a line at least this long that is mostly a link is a headline linking to a story (a teaser)
HEADLINE_CHARS = 40
#: a URL path segment of at most this many words can name a service page, or a taxonomy term
SERVICE_SEGMENT_WORDS = 3
#: a link text at most this long can be a record's prompt ("Read more", "Continue reading →")
PROMPT_CHARS = 30
#: a page number link's text has at most this many digits
PAGE_NUMBER_DIGITS = 4
#: the parts of a title around its separators ("Python | My Blog", "Tag: Python – My Blog")
_TITLE_PARTS_RE = re.compile(r"\s+[|\-–—:·»/]\s+|\s*[|–—·»]\s*|:\s+")
_SLUG_SPLIT_RE = re.compile(r"[-_+.\s]+")
#: trailing path segments of a listing's later pages ("/page/2/", "/p/3", "/2/")
_PAGE_SUFFIX_RE = re.compile(r"(?:/(?:page|p)(?:/|[-_]?)\d{1,4}|/\d{1,4})+/?$", re.IGNORECASE)

#: Page evidence the judge weighs. Each was measured on the dev pages of each page type and kept when
#: leaving it out made the judgement worse in site-grouped folds with every page type in training.
PAGE_FEATURES = (
    "best_node_p",
    "structured_article",
    "structured_product",
    "og_article",
    "declared_published",
    "linked_headings",
    "log_headline_links",
    "log_images_per_kchar",
    "log_headings",
    "page_link_density",
    "log_shop_prompts",
    "log_prices_per_kchar",
    "record_share",
    "log_code_per_kchar",
    "log_date_lines",
    "log_tel_links",
    "log_booking_prompts",
    "service_title",
    "log_article_elements",
    "pagination",
    "log_post_records",
    "log_repeated_link_texts",
)
URL_FEATURES = (
    "url_slug_words",
    "url_long_number",
    "url_depth",
    "url_is_root",
    "url_shop_words",
    "url_service_words",
    "url_title_term",
)
SELECTION_FEATURES = (
    "selected_link_density",
    "log_paragraphs",
    "mean_stop_density",
    "long_paragraphs",
    "mean_paragraph_score",
    "log_runs",
    "largest_run_share",
    "short_selection",
    "heading_share",
    "teaser_share",
    "log_selection_dates",
    "log_dated_records",
    "selection_share",
)
#: main text shorter than this many characters is short: ``short_selection`` grows from 0 (this long)
#: to 1 (empty), so that a page whose main text is a heading or a line can be judged apart from the
#: long texts the log length ranks
SHORT_SELECTION_CHARS = 400
#: the whole page's evidence the judge weighs (``whole_page``: the groups chosen out of fold)
WHOLE_PAGE_FEATURES = tuple(name for group in CHOSEN for name in GROUPS[group])
FEATURES = (*SELECTION_FEATURES, *PAGE_FEATURES, *URL_FEATURES, *WHOLE_PAGE_FEATURES)


#: main text shorter than this (in characters) cannot hold an article's body: a one-line page ("Not
#: found", a login prompt) is never stored as an article, however article-like its markup. On the dev
#: corpus every page whose main text is this short is already judged a non-article, so the factor
#: changes no verdict there; it guards the pages of kinds the model never saw.
MIN_BODY_CHARS = 100


def short_body_factor(chars: int) -> float:
    """What the article probability is multiplied by for main text of ``chars`` characters: 1 from
    ``MIN_BODY_CHARS`` up, falling linearly to 0 below it."""
    return min(1.0, max(0, chars) / MIN_BODY_CHARS)


def page_evidence(doc: Document, paras: Paragraphs) -> dict[str, float]:
    """``PAGE_FEATURES`` and ``URL_FEATURES`` of one page, by name."""
    subjects = doc.subject_types
    tags = doc.tags
    chars, link_chars, heading = paras.chars, paras.link_chars, paras.heading
    linked_headings = sum(1 for h, c, linked in zip(heading, chars, link_chars) if h and c and linked > 0.5 * c)
    headings = sum(map(tags.count, ("h2", "h3", "h4")))
    total_chars = sum(chars)
    kchars = max(total_chars, 1) / 1000
    texts = doc.texts[:20_000]
    text = " ".join(texts).lower()
    short_lines = "\n".join(t for t in texts if len(t) <= SHORT_TEXT).lower()
    in_records = sum(chars[i] for i, (lo, hi) in zip(paras.candidates, paras.records) if hi - lo > 1)
    code = tags.count("pre") + tags.count("code")  # documentation shows code
    anchors = _short_links(doc)
    hrefs = [element.get("href") or "" for element, _ in anchors]  # type: ignore[attr-defined]
    tel_links = sum(1 for href in hrefs if href[:4].lower() == "tel:")
    date_lines = float(paras.rows.column("dateline").sum()) if paras.candidates else 0.0
    return {
        "best_node_p": paras.best_node_p,
        "structured_article": 1.0 if subjects & ARTICLE_TYPES else 0.0,
        "structured_product": 1.0 if subjects & PRODUCT_TYPES else 0.0,
        "og_article": 1.0 if doc.og_type == "article" else 0.0,
        "declared_published": 1.0 if doc.published else 0.0,
        "linked_headings": math.log1p(linked_headings),
        "log_headline_links": math.log1p(
            sum(1 for c, linked in zip(chars, link_chars) if c >= HEADLINE_CHARS and linked * 2 > c)
        ),
        "log_images_per_kchar": math.log1p(tags.count("img") / kchars),
        "log_headings": math.log1p(headings),
        "page_link_density": sum(link_chars) / total_chars if total_chars else 1.0,
        "log_shop_prompts": math.log1p(len(SHOP_RE.findall(text))),
        "log_prices_per_kchar": math.log1p(len(PRICE_RE.findall(short_lines)) / kchars),
        "record_share": in_records / total_chars if total_chars else 0.0,
        "log_code_per_kchar": math.log1p(code / kchars),
        "log_date_lines": math.log1p(date_lines),
        "log_tel_links": math.log1p(tel_links),
        "log_booking_prompts": math.log1p(len(BOOKING_RE.findall(text))),
        "service_title": 1.0 if SERVICE_TITLE_RE.search(doc.title) else 0.0,
        "log_article_elements": math.log1p(max(0, tags.count("article") - 1)),
        "pagination": _pagination(doc, anchors),
        "log_post_records": math.log1p(_post_records(paras)),
        "log_repeated_link_texts": math.log1p(_repeated_link_texts(anchors)),
        **url_evidence(doc.url, doc.title),
        **whole_page_evidence(doc, [group for group in CHOSEN if group != "outside"]),
    }


def _short_links(doc: Document) -> list[tuple[object, str]]:
    """The page's ``<a>`` elements with their text when it is at most ``PROMPT_CHARS`` long ("" for a
    longer one: a headline, never a prompt or a page number), its length read from the prefix sums."""
    chars = doc.prefix("chars")
    starts, ends, texts = doc.slot_starts, doc.slot_ends, doc.texts
    return [
        (
            doc.elements[e],
            " ".join(texts[starts[e] : ends[e]]).strip() if chars[ends[e]] - chars[starts[e]] <= PROMPT_CHARS else "",
        )
        for e, tag in enumerate(doc.tags)
        if tag == "a"
    ]


def _pagination(doc: Document, anchors: list[tuple[object, str]]) -> float:
    """1 when the page links to the next or previous page of a series: ``rel="next"``/``"prev"``
    links, or several page-number links (a link whose text is a number its address holds too) under
    one parent or grandparent, as a listing's page navigation; else 0."""
    containers: dict[object, int] = {}
    for element, text in anchors:
        rel = (element.get("rel") or "").lower().split()  # type: ignore[attr-defined]
        if "next" in rel or "prev" in rel or "previous" in rel:
            return 1.0
        href = element.get("href") or ""  # type: ignore[attr-defined]
        if text.isdigit() and len(text) <= PAGE_NUMBER_DIGITS and not href.startswith("#") and text in href:
            parent = element.getparent()  # type: ignore[attr-defined]
            for holder in (parent, parent.getparent() if parent is not None else None):
                if holder is not None:
                    containers[holder] = containers.get(holder, 0) + 1
                    if containers[holder] >= 2:
                        return 1.0
    return 0.0


def _post_records(paras: Paragraphs) -> int:
    """Repeated records that hold a heading and a date or author line: the posts a listing shows
    (a headline, a date, an excerpt, several times)."""
    if not paras.candidates:
        return 0
    dated = paras.rows.column("record_dated")
    found = set()
    for k, record in enumerate(paras.records):
        lo, hi = record
        if hi - lo > 1 and dated[k] > 0 and record not in found and any(paras.heading[lo:hi]):
            found.add(record)
    return len(found)


def _repeated_link_texts(anchors: list[tuple[object, str]]) -> int:
    """The most links sharing one short text that lead to different addresses ("Read more" under
    every post of a listing); numbers (page links) are not counted."""
    targets: dict[str, set[str]] = {}
    for element, text in anchors:
        if text and not text.isdigit():
            targets.setdefault(text.lower(), set()).add(element.get("href") or "")  # type: ignore[attr-defined]
    return max((len(hrefs) for hrefs in targets.values()), default=1) - 1


def url_evidence(url: str | None, title: str = "") -> dict[str, float]:
    """The URL's shape: article slugs and ids versus short section, shop, service and search paths.
    A missing URL gives zeros; a ``file:`` URL gives the words of its file name and of the folder it
    lies in (a site saved to disk keeps its paths there: ``tag/energy.html``), never the folders above,
    and no depth (where the site's root lies on disk is unknown). ``url_title_term``: the title's
    first or last part is the URL's last path segment (before any page number), a term of at most
    ``SERVICE_SEGMENT_WORDS`` words: a tag, category or section page is titled by its term."""
    slug_words = long_number = depth = is_root = shop_words = service_words = title_term = 0.0
    parts = urlsplit(url) if url else None
    if parts is not None and parts.scheme in ("http", "https", "file"):
        path = parts.path
        segments = [segment for segment in path.split("/") if segment]
        if parts.scheme == "file":
            segments = segments[-2:]
            path = "/" + "/".join(segments)
        else:
            depth = float(len(segments))
            is_root = 1.0 if not segments else 0.0
        longest = max(segments, key=len, default="")
        slug_words = float(len([w for w in re.split(r"[-_+.]", longest) if w.isalpha()]))
        long_number = 1.0 if _URL_NUMBER_RE.search(path) else 0.0
        shop_words = 1.0 if _URL_LISTING_RE.search(path) else 0.0
        service_words = 1.0 if any(_is_service_segment(segment) for segment in segments) else 0.0
        title_term = 1.0 if _title_names_term(title, _PAGE_SUFFIX_RE.sub("", path)) else 0.0
    return {
        "url_slug_words": min(slug_words, 12.0) / 4,
        "url_long_number": long_number,
        "url_depth": min(depth, 8.0) / 4,
        "url_is_root": is_root,
        "url_shop_words": shop_words,
        "url_service_words": service_words,
        "url_title_term": title_term,
    }


def _title_names_term(title: str, path: str) -> bool:
    """The title starts or ends with the last segment of ``path``, a term of a few words."""
    last = unquote(path.rstrip("/").rpartition("/")[2])
    words = [w for w in _SLUG_SPLIT_RE.split(re.sub(r"\.[a-z]{2,5}$", "", last.lower())) if w]
    if not words or len(words) > SERVICE_SEGMENT_WORDS:
        return False
    parts = [p for p in _TITLE_PARTS_RE.split(title.lower()) if p.strip()]
    if not parts:
        return False
    term = " ".join(words)
    return any(" ".join(w for w in _SLUG_SPLIT_RE.split(part) if w) == term for part in (parts[0], parts[-1]))


def _is_service_segment(segment: str) -> bool:
    """A path segment that names a service page ("about-us", "privacy-policy", "impressum.html"):
    service words in a segment of at most ``SERVICE_SEGMENT_WORDS`` words; an article's slug that
    mentions them ("what-readers-say-about-us") is longer."""
    words = re.sub(r"\.[a-z]{2,5}$", "", segment.lower()).replace("-", " ").replace("_", " ").split()
    return len(words) <= SERVICE_SEGMENT_WORDS and bool(SERVICE_TITLE_RE.search(" ".join(words)))


def article_row(
    paras: Paragraphs, evidence: Mapping[str, float], keep: list[int], scores: list[float]
) -> dict[str, float]:
    """``FEATURES`` of a page whose main text is the paragraphs ``keep``, by name (``evidence``: the
    page's ``page_evidence``)."""
    chars, link_chars = paras.chars, paras.link_chars
    selected = sum(chars[i] for i in keep)
    selected_valid = selected - sum(link_chars[i] for i in keep)
    stop = sum(paras.stop_density[i] * chars[i] for i in keep) / selected if selected else 0.0
    mean_score = sum(scores[i] * chars[i] for i in keep) / selected if selected else 0.0
    runs, largest = _contiguity(paras, keep, selected)
    dates, records = _dated_posts(paras, keep)
    return {
        "selected_link_density": 1 - selected_valid / selected if selected else 1.0,
        "log_paragraphs": math.log1p(len(keep)),
        "mean_stop_density": stop,
        "long_paragraphs": math.log1p(sum(1 for i in keep if chars[i] >= 150)),
        "mean_paragraph_score": mean_score,
        "log_runs": runs,
        "largest_run_share": largest,
        "short_selection": max(0.0, 1.0 - selected_valid / SHORT_SELECTION_CHARS),
        "heading_share": sum(chars[i] for i in keep if paras.heading[i]) / selected if selected else 0.0,
        "teaser_share": _teaser_chars(paras, keep) / selected if selected else 0.0,
        "log_selection_dates": math.log1p(dates),
        "log_dated_records": math.log1p(records),
        "selection_share": selected / max(sum(chars), 1),
        **evidence,
        **(outside_evidence(chars, link_chars, keep) if "outside" in CHOSEN else {}),
    }


def _dated_posts(paras: Paragraphs, keep: list[int]) -> tuple[int, int]:
    """Date lines between the first and the last kept paragraph, and the repeated records holding a
    date that kept paragraphs lie in: an article carries one date; a thread's posts carry one each."""
    if not keep or not paras.candidates:
        return 0, 0
    lo, hi = keep[0], keep[-1]
    kept = set(keep)
    dateline, dated = paras.rows.column("dateline"), paras.rows.column("record_dated")
    dates = 0
    records = set()
    for k, i in enumerate(paras.candidates):
        if lo <= i <= hi:
            dates += dateline[k] > 0
            if i in kept and dated[k] > 0:
                records.add(paras.records[k])
    return dates, len(records)


def _teaser_chars(paras: Paragraphs, keep: list[int]) -> int:
    """Characters of the kept paragraphs that come right after a linked heading: the summaries of a
    listing's teasers (headline link, then its standfirst); in an article, prose follows headings
    that are not links."""
    chars, link_chars, heading = paras.chars, paras.link_chars, paras.heading
    return sum(chars[i] for i in keep if i and heading[i - 1] and link_chars[i - 1] * 2 > chars[i - 1])


def _contiguity(paras: Paragraphs, keep: list[int], selected: int) -> tuple[float, float]:
    """How contiguous the main text is (BTE's and TTR's evidence): the log of the number of runs of
    kept paragraphs, and the largest run's share of the kept text. An article is one or a few long
    runs; a listing page's teasers are many short runs split by links."""
    if not keep:
        return 0.0, 0.0
    chars, link_chars = paras.chars, paras.link_chars
    runs, run, largest = 1, chars[keep[0]], 0
    for previous, current in zip(keep, keep[1:]):
        if any(chars[j] >= 30 or link_chars[j] > 0 for j in range(previous + 1, current)):
            runs += 1
            largest = max(largest, run)
            run = 0
        run += chars[current]
    largest = max(largest, run)
    return math.log(runs), largest / selected if selected else 0.0
