"""bodytext: the recommended default method.

It combines what the published methods measure with the structure a page gives:

1. **Paragraphs.** Runs of text slots between block boundaries (the same units the renderer prints).
2. **Paragraph score.** A small logistic model over per-paragraph evidence: length, link density
   (CTD, P value), stop-word density in the page's language (Wu & Yang), punctuation, inline tag
   density (BTE, TTR), neighbourhood, heading/list/table/figure context, ``article``/``main``
   ancestors, class/id words that mark boilerplate (share, related, comment, ...) or content, and
   whether the paragraph lies in the page's best P value node.
3. **Selection.** Paragraphs scored at or above a cut are the main text; the rest (menus, share bars,
   related links, comment sections, captions of ads) is cut wherever it stands.
4. **Article probability.** A second small logistic model over page-level evidence (how much of the
   page's prose the region holds, its size and link share, the page's link share, article markup
   such as ``og:type``/``<article>``), so that dropping pages below 0.5 loses almost no articles.

The weights are fitted on the labelled dev corpus by ``scripts/fit_bodytext.py`` and stored in
``bodytext_weights.py``; leave-one-source-out figures are in the README.
"""

from __future__ import annotations

import math
import re
from itertools import accumulate
from operator import mul
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..document import HEADING_TAGS, Document
from ..language import detect_language, splitter, stopwords
from . import Extraction
from .bodytext_weights import ARTICLE_WEIGHTS, PARAGRAPH_WEIGHTS

NAME = "bodytext"

#: class/id words (at the start of a class/id token) of in-body boilerplate: generic web
#: vocabulary, no site names
_NEGATIVE_RE = re.compile(
    r"comment|share|sharing|social|related|recommend|promo|advert|ads?$|sponsor|newsletter|subscri|"
    r"signup|footer|nav|menu|sidebar|widget|breadcrumb|tags?$|cookie|consent|popup|modal|banner|"
    r"toolbar|print|pagination|pager|trending|popular|teaser|byline|author|caption|credit|meta$|"
    r"masthead|disclaimer|rating|login|register|skip"
)
_POSITIVE_RE = re.compile(r"article|content|story|entry|post|body|text|main|prose|blog|news|paragraph|rich")
_MAX_NAMES = 512
#: class/id string -> verdict, shared across pages (sites repeat their templates), bounded
_VERDICTS: dict[str, int] = {}
_MAX_VERDICTS = 50_000
_NAME_SPLIT_RE = re.compile(r"[\s_\-:./]+")
#: paragraphs with at least this share of link text are never main text
MAX_LINK_DENSITY = 0.8
#: on a page whose best paragraph scores below the cut, keep those within this share of the best
RELATIVE_CUT = 0.5
_PUNCT_RE = re.compile(r"[.,;:!?\u3002\uff0c\u3001\uff01\uff1f\u061f\u060c]")

# structural context bits, inherited by descendants
_NEG, _POS, _ARTICLE, _MAIN, _CHROME, _FIGURE, _LIST, _TABLE, _FORM, _QUOTE = (1 << i for i in range(10))
_TAG_BITS = {
    "article": _ARTICLE, "main": _MAIN, "nav": _CHROME, "aside": _CHROME, "footer": _CHROME,
    "header": _CHROME, "figure": _FIGURE, "figcaption": _FIGURE, "li": _LIST, "dd": _LIST, "dt": _LIST,
    "table": _TABLE, "form": _FORM, "select": _FORM, "button": _FORM, "blockquote": _QUOTE,
}
#: tags whose class/id are read (inline formatting tags are skipped: cheap and rarely informative)
_NAMED_TAGS = frozenset(
    "div section article main aside nav footer header ul ol li p table td tr figure figcaption "
    "form span dl blockquote".split()
)

FEATURES = (
    "bias", "log_chars", "link_density", "stop_density", "no_language", "punct_density",
    "tag_density", "heading", "short", "neg", "pos", "article", "main", "chrome", "figure", "list",
    "table", "form", "quote", "in_best_node", "position", "neighbour_link_density",
    "neighbour_log_chars", "region_log_valid", "region_link_density", "ends_with_punct",
)
ARTICLE_FEATURES = (
    "bias", "selected_share", "log_selected_chars", "selected_link_density", "page_link_density",
    "log_paragraphs", "mean_stop_density", "og_article", "has_article_tag", "log_page_links",
    "best_node_p", "long_paragraphs", "structured_article", "structured_listing", "published",
    "linked_headings", "url_slug_words", "url_long_number", "url_depth", "url_is_root", "url_shop_words",
    "log_form_controls", "log_time_tags", "log_images_per_kchar", "log_headings", "mean_paragraph_score",
    "log_runs", "largest_run_share",
)
#: schema.org types of article pages and of listing/collection pages
_ARTICLE_TYPES = frozenset(
    "Article NewsArticle BlogPosting Report ReportageNewsArticle AnalysisNewsArticle OpinionNewsArticle "
    "BackgroundNewsArticle ReviewNewsArticle TechArticle ScholarlyArticle LiveBlogPosting SocialMediaPosting "
    "DiscussionForumPosting Recipe Review".split()
)
_LISTING_TYPES = frozenset("CollectionPage ItemList SearchResultsPage Product Offer AggregateOffer".split())
_URL_NUMBER_RE = re.compile(r"\d{5,}")
#: URL path words of shop, listing and search pages (generic e-commerce and CMS vocabulary)
_URL_LISTING_RE = re.compile(
    r"/(?:products?|shop|store|cart|collections?|category|categories|cat|tags?|topics?|section|search|"
    r"archive|page|author|coupons?|deals?|itm|ip|pr|p)(?:/|$|[-_])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Options:
    """Options of the default method.

    ``min_paragraph_probability``: paragraphs scored below this are not main text (default 0.4,
    chosen by leave-one-source-out evaluation on the dev corpus; higher favours precision).
    """

    min_paragraph_probability: float = 0.4

    def __post_init__(self) -> None:
        value = self.min_paragraph_probability
        if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise ValueError(f"min_paragraph_probability must be a number within [0, 1], got {value!r}")


@dataclass(slots=True)
class Paragraphs:
    """Per-paragraph columns of one page (a paragraph is a slot range ``starts[i]:ends[i]``)."""

    starts: list[int]
    ends: list[int]
    features: list[list[float] | None]  # None: not a candidate (nearly all link text)
    chars: list[int]
    valid_chars: list[int]
    stop_density: list[float]
    heading: list[bool]
    best_node_p: float
    language: str | None
    page_chars: int
    page_link_chars: int
    og_article: bool
    has_article_tag: bool
    links: int
    page: tuple[float, ...]  # page-level evidence that does not depend on the selection


def paragraphs(doc: Document) -> Paragraphs:
    """Split the page into paragraphs and compute the feature row of every candidate paragraph
    (paragraphs that are nearly all link text — menus, teasers — are never main text and get no
    row: that halves the work on typical pages)."""
    breaks, texts, owners = doc.breaks, doc.texts, doc.owners
    n_slots = len(texts)
    starts = [s for s in range(n_slots) if s == 0 or breaks[s]]
    ends = starts[1:] + [n_slots]
    chars_prefix = doc.prefix("chars")
    link_prefix = doc.prefix("link_chars")
    chars = [chars_prefix[e] - chars_prefix[s] for s, e in zip(starts, ends)]
    links = [link_prefix[e] - link_prefix[s] for s, e in zip(starts, ends)]
    link_density = [l / c if c else 1.0 for l, c in zip(links, chars)]
    tags = doc.tags
    blocks = _blocks(doc, [owners[s] for s in starts])
    heading = [tags[blocks[owners[s]]] in HEADING_TAGS for s in starts]
    candidates = [i for i, density in enumerate(link_density) if density < MAX_LINK_DENSITY]

    language = detect_language(doc)
    split = splitter(language)
    stop_words = stopwords(language).__contains__ if language else None
    tag_prefix = [0, *accumulate(doc.tags_before)]
    bits = _context_bits(doc, [owners[starts[i]] for i in candidates])
    best_node, best_p = _best_node(doc, bits)
    best_lo, best_hi = (doc.slot_starts[best_node], doc.slot_ends[best_node]) if best_node >= 0 else (0, 0)
    page_valid = max(1, chars_prefix[-1] - link_prefix[-1])
    para_chars = [0, *accumulate(chars)]
    para_links = [0, *accumulate(links)]
    parents, slot_starts, slot_ends = doc.parents, doc.slot_starts, doc.slot_ends
    n = len(starts)
    stop_density = [0.0] * n
    features: list[list[float] | None] = [None] * n
    for done, i in enumerate(candidates):
        if not done % 1024:
            doc.check_time()
        s, e, c = starts[i], ends[i], chars[i]
        segment = texts[s] if e == s + 1 else "".join(texts[s:e])
        words = split(segment.lower())
        n_tokens = len(words) or 1
        stops = stop_density[i] = sum(map(stop_words, words)) / n_tokens if stop_words else 0.0
        tail = segment.rstrip()[-1:]
        owner = owners[s]
        bit = bits[owner]
        region = parents[blocks[owner]]  # the parent of the paragraph's block: its neighbourhood
        lo, hi = (slot_starts[region], slot_ends[region]) if region >= 0 else (0, n_slots)
        region_total = chars_prefix[hi] - chars_prefix[lo]
        region_link = link_prefix[hi] - link_prefix[lo]
        lo, hi = max(0, i - 2), min(n, i + 3)
        neighbour_chars = para_chars[hi] - para_chars[lo] - c
        neighbour_links = para_links[hi] - para_links[lo] - links[i]
        features[i] = [
            1.0,
            math.log1p(c),
            link_density[i],
            stops,
            1.0 if language is None else 0.0,
            min(len(_PUNCT_RE.findall(segment)) / n_tokens, 1.0),
            min((tag_prefix[e] - tag_prefix[s + 1]) / n_tokens, 3.0),
            1.0 if heading[i] else 0.0,
            1.0 if c < 40 else 0.0,
            1.0 if bit & _NEG else 0.0,
            1.0 if bit & _POS else 0.0,
            1.0 if bit & _ARTICLE else 0.0,
            1.0 if bit & _MAIN else 0.0,
            1.0 if bit & _CHROME else 0.0,
            1.0 if bit & _FIGURE else 0.0,
            1.0 if bit & _LIST else 0.0,
            1.0 if bit & _TABLE else 0.0,
            1.0 if bit & _FORM else 0.0,
            1.0 if bit & _QUOTE else 0.0,
            1.0 if best_lo <= s < best_hi else 0.0,
            s / n_slots,
            neighbour_links / neighbour_chars if neighbour_chars else 1.0,
            math.log1p(neighbour_chars / 4),
            math.log1p(region_total - region_link) - math.log1p(page_valid),
            region_link / region_total if region_total else 1.0,
            1.0 if tail and _PUNCT_RE.match(tail) else 0.0,
        ]
    valid = [c - l for c, l in zip(chars, links)]
    return Paragraphs(
        starts, ends, features, chars, valid, stop_density, heading, best_p, language,
        chars_prefix[-1], link_prefix[-1], doc.og_type == "article", "article" in tags,
        tags.count("a"), _page_evidence(doc, heading, link_density),
    )


def scores_of(paras: Paragraphs, weights: tuple[float, ...] = PARAGRAPH_WEIGHTS) -> list[float]:
    """Probability of each paragraph being main text (0 for paragraphs without a feature row)."""
    return [_logistic(weights, row) if row is not None else 0.0 for row in paras.features]


def extract(doc: Document, options: Options) -> Extraction:
    paras = paragraphs(doc)
    if not paras.starts:
        return Extraction((), 0.0, "no text", paras.language)
    doc.check_time()
    scores = scores_of(paras)
    keep = select(paras, scores, options)
    slots = [slot for i in keep for slot in range(paras.starts[i], paras.ends[i])]
    probability = _logistic(ARTICLE_WEIGHTS, article_features(paras, keep, scores))
    return Extraction(
        slots, probability, f"{len(keep)} of {len(scores)} paragraphs; P(article)={probability:.2f}",
        paras.language, {"paragraphs": len(scores), "kept": len(keep)},
    )


def select(paras: Paragraphs, scores: list[float], options: Options) -> list[int]:
    """Indices of the main-text paragraphs: those scored at or above the cut, where the cut comes
    down to half the best score on pages whose best paragraph is below it (an unusual template
    must not leave a real article with no text at all). Context — neighbours, the enclosing region,
    the best P value node — is already in each paragraph's score; selecting one contiguous region
    instead lost recall on articles split by boxes."""
    best = max(scores, default=0.0)
    cut = min(options.min_paragraph_probability, RELATIVE_CUT * best)
    return [i for i, score in enumerate(scores) if score >= cut and score > 0.0]


def article_features(paras: Paragraphs, keep: list[int], scores: list[float]) -> list[float]:
    """Page-level evidence for the article probability (see ``ARTICLE_FEATURES``)."""
    selected = sum(paras.chars[i] for i in keep)
    selected_valid = sum(paras.valid_chars[i] for i in keep)
    page_chars = paras.page_chars or 1
    page_valid = max(1, page_chars - paras.page_link_chars)
    stop = sum(paras.stop_density[i] * paras.chars[i] for i in keep) / selected if selected else 0.0
    mean_score = sum(scores[i] * paras.chars[i] for i in keep) / selected if selected else 0.0
    return [
        1.0,
        selected_valid / page_valid,
        math.log1p(selected),
        1 - selected_valid / selected if selected else 1.0,
        paras.page_link_chars / page_chars,
        math.log1p(len(keep)),
        stop,
        1.0 if paras.og_article else 0.0,
        1.0 if paras.has_article_tag else 0.0,
        math.log1p(paras.links),
        paras.best_node_p,
        math.log1p(sum(1 for i in keep if paras.chars[i] >= 150)),
        *paras.page,
        mean_score,
        *_contiguity(paras, keep, selected),
    ]


def _contiguity(paras: Paragraphs, keep: list[int], selected: int) -> tuple[float, float]:
    """How contiguous the main text is (BTE's and TTR's evidence): the number of runs of kept
    paragraphs, and the largest run's share of the kept text. An article is one or a few long runs;
    a listing page's teasers are many short runs split by links."""
    if not keep:
        return 0.0, 0.0
    chars, valid = paras.chars, paras.valid_chars
    runs, run, largest = 1, chars[keep[0]], 0
    for previous, current in zip(keep, keep[1:]):
        gap = range(previous + 1, current)
        if any(chars[j] >= 30 or chars[j] - valid[j] > 0 for j in gap):
            runs += 1
            largest = max(largest, run)
            run = 0
        run += chars[current]
    largest = max(largest, run)
    return math.log(runs), largest / selected if selected else 0.0


def _page_evidence(doc: Document, heading: list[bool], link_density: list[float]) -> tuple[float, ...]:
    """Evidence from the page's declarations, structure and URL: schema.org types, a publication
    date, linked headings (teasers), shop forms, timestamps, images, and the URL's shape (article
    slugs and ids versus short section, shop and search paths). A missing URL leaves the URL
    evidence at zero; a ``file:`` URL gives its words but not its depth."""
    types = doc.structured_types
    tags = doc.tags
    linked_headings = sum(1 for h, ld in zip(heading, link_density) if h and ld > 0.5)
    controls = sum(map(tags.count, ("input", "button", "select", "textarea")))
    headings = sum(map(tags.count, ("h2", "h3", "h4")))
    kchars = max(doc.total_chars, 1) / 1000
    slug_words = long_number = depth = is_root = shop_words = 0.0
    url = urlsplit(doc.url) if doc.url else None
    if url is not None and url.scheme in ("http", "https", "file"):
        path = url.path
        segments = [segment for segment in path.split("/") if segment]
        depth = float(len(segments))
        is_root = 1.0 if not segments else 0.0
        longest = max(segments, key=len, default="")
        slug_words = float(len([w for w in re.split(r"[-_+.]", longest) if w.isalpha()]))
        long_number = 1.0 if _URL_NUMBER_RE.search(path) else 0.0
        shop_words = 1.0 if _URL_LISTING_RE.search(path) else 0.0
        if url.scheme == "file":  # a local path's depth tells where the files lie, not the site's shape
            depth = is_root = 0.0
    return (
        1.0 if types & _ARTICLE_TYPES else 0.0,
        1.0 if types & _LISTING_TYPES else 0.0,
        1.0 if doc.published else 0.0,
        math.log1p(linked_headings),
        min(slug_words, 12.0) / 4,
        long_number,
        min(depth, 8.0) / 4,
        is_root,
        shop_words,
        math.log1p(controls),
        math.log1p(tags.count("time")),
        math.log1p(tags.count("img") / kchars),
        math.log1p(headings),
    )


def _logistic(weights: tuple[float, ...], row: list[float]) -> float:
    z = sum(map(mul, weights, row))
    if z < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


_INLINE = frozenset("a abbr b bdi bdo cite code data dfn em font i kbd mark q s samp small span strong sub sup time u var wbr br img".split())


def _blocks(doc: Document, elements: list[int]) -> dict[int, int]:
    """For each of ``elements``: its nearest ancestor-or-self that is not inline formatting (the
    block its text belongs to)."""
    tags, parents = doc.tags, doc.parents
    blocks: dict[int, int] = {}
    for element in elements:
        if element in blocks:
            continue
        block = element
        while tags[block] in _INLINE and parents[block] >= 0:
            block = parents[block]
        blocks[element] = block
    return blocks


def _context_bits(doc: Document, wanted: list[int]) -> dict[int, int]:
    """Structural and class/id context bits of the ``wanted`` elements, inherited from ancestors
    (computed only along their ancestor paths; pages and sites repeat the same class strings, so
    verdicts on them are cached)."""
    bits: dict[int, int] = {-1: 0}
    verdicts = _VERDICTS
    if len(verdicts) > _MAX_VERDICTS:  # bounded: a long crawl meets endless class strings
        verdicts.clear()
    elements, tags, parents = doc.elements, doc.tags, doc.parents
    for element in wanted:
        path = []
        while element not in bits:
            path.append(element)
            element = parents[element]
        bit = bits[element]
        for element in reversed(path):
            tag = tags[element]
            bit |= _TAG_BITS.get(tag, 0)
            if tag in _NAMED_TAGS:
                el = elements[element]
                names = el.get("class")
                ident = el.get("id")
                if ident:
                    names = f"{names} {ident}" if names else ident
                if names:
                    names = names[:_MAX_NAMES]  # a megabyte of class names must not cost seconds
                    verdict = verdicts.get(names)
                    if verdict is None:
                        verdict = verdicts[names] = _name_verdict(names)
                    bit |= verdict
            bits[element] = bit
    return bits


def _name_verdict(names: str) -> int:
    """_NEG when a class/id token starts with a boilerplate word, else _POS for a content word."""
    tokens = _NAME_SPLIT_RE.split(names.lower())
    if any(_NEGATIVE_RE.match(token) for token in tokens):
        return _NEG
    if any(_POSITIVE_RE.match(token) for token in tokens):
        return _POS
    return 0


def _best_node(doc: Document, candidates) -> tuple[int, float]:
    """Among ``candidates`` (the ancestors of the paragraphs that are not mostly links: any other
    element holds little but link text), the element with the highest P value (Lv et al.) and that
    value: the single-node guess. Markup is counted from tag names only (attributes vary with
    templates, not with content)."""
    chars, links = doc.prefix("chars"), doc.prefix("link_chars")
    name_lengths = [0, *accumulate(map(len, doc.tags))]  # markup of e's subtree: 2·names + 5 per tag
    slot_starts, slot_ends, ends = doc.slot_starts, doc.slot_ends, doc.ends
    page_valid = chars[-1] - links[-1]
    if page_valid <= 0:
        return -1, 0.0
    best, best_score = -1, 0.0
    for e in candidates:
        if e < 0:
            continue
        lo, hi = slot_starts[e], slot_ends[e]
        t = chars[hi] - chars[lo]
        if t <= best_score:  # P' = t·vt/s ≤ t: subtrees with less text cannot win
            continue
        vt = t - (links[hi] - links[lo])
        end = ends[e]
        score = t * vt / (2 * (name_lengths[end] - name_lengths[e]) + 5 * (end - e) + t)
        if score > best_score or (score == best_score and e < best):
            best, best_score = e, score
    if best < 0:
        return -1, 0.0
    return best, best_score / page_valid
