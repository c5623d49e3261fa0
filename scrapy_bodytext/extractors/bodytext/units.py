"""Paragraph units of a page and the first-pass evidence about each.

A paragraph is a run of text slots between line boundaries: the units the renderer prints as lines
(a table row is one paragraph, its cells joined). Paragraphs that are nearly all link text get no
feature row outside the page's best node (menus, teaser lists); every other paragraph (a
*candidate*: inside the best node, a heading or a list item whose whole text is a link may be the
article's) gets one row of named features (``FEATURES``):
what the published methods measure (length, link density as in CTD and P value, stop-word density as
in Wu & Yang, tag density as in BTE and TTR), the structure it sits in (heading, list, table, quote,
figure, ``article``/``main`` ancestors, class/id words), text cues that hold in any language
(digits, capitals, sentence ends) and the kind of line it is (``vocabulary``), and whether it sits
in a record that repeats like the entries of a comment thread or a teaser list.

The ancestors of each candidate are kept as paragraph ranges (``chains``) so that the second pass
(``context``) can weigh a paragraph by the first-pass scores of the regions around it.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from ...page.document import HEADING_TAGS, Document
from ...page.language import detect_language, splitter, stopwords
from . import groups
from .anchor import title_anchor
from .table import Table
from .vocabulary import KINDS, line_kinds

#: paragraphs with at least this share of link text get a feature row only inside the page's best
#: node (``_best_node``: the single-node guess of the article): elsewhere they are menus and link lists
MAX_LINK_DENSITY = 0.8
#: class/id words count from this many nearest ancestors-or-self of a paragraph (``_context_bits``)
NEAR_LEVELS = 4
#: ancestor levels kept per candidate for the second pass
CHAIN_LEVELS = 10
#: a record repeats when its parent has at least this many children of the same tag and class
REPEATS = 3

FEATURES = (
    "log_chars",
    "link_density",
    "stop_density",
    "no_language",
    "punct_density",
    "tag_density",
    "heading",
    "h1",
    "short",
    "neg_class",
    "pos_class",
    "in_article",
    "in_main",
    "in_chrome",
    "in_figure",
    "in_list",
    "in_table",
    "in_form",
    "in_quote",
    "in_best_node",
    "position",
    "neighbour_link_density",
    "neighbour_log_chars",
    "region_log_valid",
    "region_link_density",
    "ends_with_punct",
    "digit_share",
    "upper_share",
    "log_sentences",
    *KINDS,
    "log_record_repeats",
    "record_dated",
    "log_depth",
    "after_comments_header",
    "in_comments",
)

#: class/id words (at the start of a class/id token) of in-body boilerplate: generic web
#: vocabulary, no site names
_NEGATIVE_RE = re.compile(
    r"comment|share|sharing|social|related|recommend|promo|advert|ads?$|sponsor|newsletter|subscri|"
    r"signup|footer|nav|menu|sidebar|widget|breadcrumb|tags?$|cookie|consent|popup|modal|banner|"
    r"toolbar|print|pagination|pager|trending|popular|teaser|byline|author|caption|credit|meta$|"
    r"masthead|disclaimer|rating|login|register|skip|reply|replies|respond|discuss|disqus|talkback"
)
_POSITIVE_RE = re.compile(r"article|content|story|entry|post|body|text|main|prose|blog|news|paragraph|rich")
_MAX_NAMES = 512
#: class/id string -> verdict, shared across pages (sites repeat their templates), bounded
_VERDICTS: dict[str, int] = {}
_MAX_VERDICTS = 50_000
_NAME_SPLIT_RE = re.compile(r"[\s_\-:./]+")
_PUNCT_RE = re.compile(r"[.,;:!?\u3002\uff0c\u3001\uff01\uff1f\u061f\u060c]")
_SENTENCE_END_RE = re.compile(r"[.!?\u3002\uff01\uff1f](?:\s|$)")
_DIGITS = str.maketrans("", "", "0123456789")
_UPPER = str.maketrans(
    "", "", "ABCDEFGHIJKLMNOPQRSTUVWXYZÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
)
_SAMPLE = 400  # characters of a paragraph read for digit and capital shares

# structural context bits, inherited by descendants
_NEG, _POS, _ARTICLE, _MAIN, _CHROME, _FIGURE, _LIST, _TABLE, _FORM, _QUOTE, _COMMENTS = (1 << i for i in range(11))
#: class/id words of reader-comment threads (a subset of the boilerplate words, kept apart: the
#: comments can be given separately)
_COMMENTS_RE = re.compile(r"comment|reply|replies|respond|discuss|disqus|talkback|leserbrief|kommentar")
_TAG_BITS = {
    "article": _ARTICLE,
    "main": _MAIN,
    "nav": _CHROME,
    "aside": _CHROME,
    "footer": _CHROME,
    "header": _CHROME,
    "figure": _FIGURE,
    "figcaption": _FIGURE,
    "li": _LIST,
    "dd": _LIST,
    "dt": _LIST,
    "table": _TABLE,
    "form": _FORM,
    "select": _FORM,
    "button": _FORM,
    "blockquote": _QUOTE,
}
#: tags whose class/id are read (inline formatting tags are skipped: cheap and rarely informative)
_NAMED_TAGS = frozenset(
    "div section article main aside nav footer header ul ol li p table td tr figure figcaption "
    "form span dl blockquote".split()
)
_INLINE = frozenset(
    "a abbr b bdi bdo cite code data dfn em font i kbd mark q s samp small span strong sub sup time u var wbr br "
    "img".split()
)
#: containers that may be the records of a comment thread or a teaser list
_RECORD_TAGS = frozenset("div li article section tr dl".split())


@dataclass(slots=True)
class Paragraphs:
    """Per-paragraph columns of one page (paragraph ``i`` is the slot range ``starts[i]:ends[i]``)."""

    starts: list[int]
    ends: list[int]
    chars: list[int]
    link_chars: list[int]
    candidates: list[int]  # paragraphs with a feature row, ascending
    rows: Table  # one row of ``FEATURES`` per candidate
    chains: list[tuple[tuple[int, int], ...]]  # per candidate: paragraph ranges of its ancestors
    records: list[tuple[int, int]]  # per candidate: paragraph range of its repeated record, or (i, i+1)
    groups: tuple[np.ndarray, np.ndarray, np.ndarray]  # per candidate: its group's range and members (``groups``)
    anchor: int  # the heading that shows the page's title (``anchor``), -1: none
    furniture: frozenset[int]  # paragraphs that are page furniture whatever their scores (``is_furniture``)
    heading: list[bool]
    stop_density: list[float]  # per paragraph (0 for non-candidates)
    language: str | None
    best_node_p: float
    links: int  # <a> elements on the page


def paragraphs(doc: Document) -> Paragraphs:
    """Split the page into paragraphs and compute the feature row of every candidate."""
    breaks, texts, owners, tags, parents = doc.breaks, doc.texts, doc.owners, doc.tags, doc.parents
    slot_starts, slot_ends = doc.slot_starts, doc.slot_ends
    n_slots = len(texts)
    starts = [s for s in range(n_slots) if s == 0 or breaks[s] == 2]
    ends = starts[1:] + [n_slots]
    chars_prefix = doc.prefix("chars")
    link_prefix = doc.prefix("link_chars")
    chars = [chars_prefix[e] - chars_prefix[s] for s, e in zip(starts, ends)]
    links = [link_prefix[e] - link_prefix[s] for s, e in zip(starts, ends)]
    link_density = [linked / c if c else 1.0 for linked, c in zip(links, chars)]
    blocks = _blocks(doc, [owners[s] for s in starts])
    block_of = [blocks[owners[s]] for s in starts]
    heading = [tags[b] in HEADING_TAGS for b in block_of]
    candidates = [i for i, density in enumerate(link_density) if density < MAX_LINK_DENSITY]
    n = len(starts)

    language = detect_language(doc)
    split = splitter(language)
    stop_words = stopwords(language).__contains__ if language else None
    tag_prefix = [0, *accumulate(doc.tags_before)]
    bits = _context_bits(doc, [owners[starts[i]] for i in candidates])
    best_node, best_p = _best_node(doc, bits)
    best_lo, best_hi = (slot_starts[best_node], slot_ends[best_node]) if best_node >= 0 else (0, 0)
    linked = [
        i
        for i, (s, density) in enumerate(zip(starts, link_density))
        if density >= MAX_LINK_DENSITY and chars[i] and best_lo <= s < best_hi
    ]
    if linked:  # link-only lines inside the best node: a linked heading or list item of the article
        candidates = sorted(candidates + linked)
        bits.update(_context_bits(doc, [owners[starts[i]] for i in linked]))
    page_valid = max(1, chars_prefix[-1] - link_prefix[-1])

    segments = {}
    kinds = {}
    for i in candidates:
        s, e = starts[i], ends[i]
        segment = segments[i] = texts[s] if e == s + 1 else _joined(texts, breaks, s, e)
        kinds[i] = line_kinds(segment.strip()) if chars[i] <= 160 else None
    header = KINDS.index("comments_header")
    comments_start = next((i for i in candidates if kinds[i] and kinds[i][header]), n)
    ranges = _ParagraphRanges(doc, starts)
    records = _Records(doc, ranges, kinds)

    stop_density = [0.0] * n
    stops, punct, tag_density, region_valid, region_links, ends_punct, digits, upper, sentences = ([] for _ in range(9))
    repeats_found, dated, kind_rows, blocks_of = [], [], [], []
    chains: list[tuple[tuple[int, int], ...]] = []
    record_ranges: list[tuple[int, int]] = []
    no_kinds = (0.0,) * len(KINDS)
    for done, i in enumerate(candidates):
        if not done % 1024:
            doc.check_time()
        s, e = starts[i], ends[i]
        segment = segments[i]
        words = split(segment.lower())
        n_tokens = len(words) or 1
        stops.append(sum(map(stop_words, words)) / n_tokens if stop_words else 0.0)
        stripped = segment.rstrip()
        tail = stripped[-1:]
        block = block_of[i]
        blocks_of.append(block)
        region = parents[block]  # the parent of the paragraph's block: its neighbourhood
        lo, hi = (slot_starts[region], slot_ends[region]) if region >= 0 else (0, n_slots)
        region_total = chars_prefix[hi] - chars_prefix[lo]
        region_link = link_prefix[hi] - link_prefix[lo]
        sample = stripped[:_SAMPLE]
        sample_length = len(sample) or 1
        repeats, record = records.of(block, i)
        punct.append(min(len(_PUNCT_RE.findall(segment)) / n_tokens, 1.0))
        tag_density.append(min((tag_prefix[e] - tag_prefix[s + 1]) / n_tokens, 3.0))
        region_valid.append(math.log1p(region_total - region_link) - math.log1p(page_valid))
        region_links.append(region_link / region_total if region_total else 1.0)
        ends_punct.append(1.0 if tail and _PUNCT_RE.match(tail) else 0.0)
        digits.append((sample_length - len(sample.translate(_DIGITS))) / sample_length)
        upper.append((sample_length - len(sample.translate(_UPPER))) / sample_length)
        sentences.append(math.log1p(len(_SENTENCE_END_RE.findall(segment))))
        repeats_found.append(math.log1p(repeats))
        dated.append(1.0 if repeats and records.dated(record) else 0.0)
        kind_rows.append(kinds[i] or no_kinds)
        chains.append(ranges.chain(parents[block]))
        record_ranges.append(record if repeats else (i, i + 1))
    for i, value in zip(candidates, stops):
        stop_density[i] = value
    rows = _table(
        doc,
        candidates,
        starts,
        chars,
        links,
        link_density,
        heading,
        bits,
        blocks_of,
        best_lo,
        best_hi,
        language,
        comments_start,
        {
            "stop_density": stops,
            "punct_density": punct,
            "tag_density": tag_density,
            "region_log_valid": region_valid,
            "region_link_density": region_links,
            "ends_with_punct": ends_punct,
            "digit_share": digits,
            "upper_share": upper,
            "log_sentences": sentences,
            "log_record_repeats": repeats_found,
            "record_dated": dated,
            **dict(zip(KINDS, zip(*kind_rows) if kind_rows else ((),) * len(KINDS))),
        },
    )
    furniture = frozenset(i for i in candidates if kinds[i] and is_furniture(kinds[i], segments[i]))
    return Paragraphs(
        starts,
        ends,
        chars,
        links,
        candidates,
        rows,
        chains,
        record_ranges,
        groups.group_ranges(doc, starts, blocks_of),
        title_anchor(doc, candidates, heading, segments),
        furniture,
        heading,
        stop_density,
        language,
        best_p,
        tags.count("a"),
    )


#: the structural bits behind the features of that name
_BIT_FEATURES = {
    "neg_class": _NEG,
    "pos_class": _POS,
    "in_article": _ARTICLE,
    "in_main": _MAIN,
    "in_chrome": _CHROME,
    "in_figure": _FIGURE,
    "in_list": _LIST,
    "in_table": _TABLE,
    "in_form": _FORM,
    "in_quote": _QUOTE,
    "in_comments": _COMMENTS,
}


def _table(
    doc: Document,
    candidates: list[int],
    starts: list[int],
    chars: list[int],
    links: list[int],
    link_density: list[float],
    heading: list[bool],
    bits: dict[int, int],
    blocks: list[int],
    best_lo: int,
    best_hi: int,
    language: str | None,
    comments_start: int,
    measured: dict[str, list[float]],
) -> Table:
    """The ``FEATURES`` table of the candidates: the columns ``measured`` from their text in
    ``paragraphs`` and the ones read off the page's columns here, each by name."""
    n, m, n_slots = len(starts), len(candidates), len(doc.texts)
    para_chars = [0, *accumulate(chars)]
    para_links = [0, *accumulate(links)]
    own_chars = [chars[i] for i in candidates]
    first_slots = [starts[i] for i in candidates]
    neighbour_chars, neighbour_links = [], []
    for i, c in zip(candidates, own_chars):
        lo, hi = max(0, i - 2), min(n, i + 3)
        neighbour_chars.append(para_chars[hi] - para_chars[lo] - c)
        neighbour_links.append(para_links[hi] - para_links[lo] - links[i])
    owners, tags, depths = doc.owners, doc.tags, doc.depths
    own_bits = np.array([bits[owners[s]] for s in first_slots], np.int64)
    indices = np.array(candidates, np.int64)
    slots = np.array(first_slots, np.int64)
    columns: dict[str, Sequence[float] | np.ndarray] = {
        "log_chars": list(map(math.log1p, own_chars)),
        "link_density": [link_density[i] for i in candidates],
        "no_language": np.full(m, 1.0 if language is None else 0.0),
        "heading": [heading[i] for i in candidates],
        "h1": [tags[block] == "h1" for block in blocks],
        "short": [c < 40 for c in own_chars],
        **{name: (own_bits & bit) != 0 for name, bit in _BIT_FEATURES.items()},
        "in_best_node": (slots >= best_lo) & (slots < best_hi),
        "position": slots / n_slots if n_slots else slots * 0.0,
        "neighbour_link_density": [linked / c if c else 1.0 for linked, c in zip(neighbour_links, neighbour_chars)],
        "neighbour_log_chars": [math.log1p(c / 4) for c in neighbour_chars],
        "log_depth": [math.log1p(depths[block]) for block in blocks],
        "after_comments_header": indices > comments_start,
        **measured,
    }
    return Table.of(columns, FEATURES, m, "paragraph features")


_FURNITURE_KINDS = tuple(KINDS.index(kind) for kind in ("whole_prompt", "label", "counter", "comments_header"))
_COPYRIGHT, _CREDIT = KINDS.index("copyright"), KINDS.index("credit")


def is_furniture(kinds: tuple[float, ...], text: str) -> bool:
    """Lines that are never main text: a prompt alone ("Share this story", "Advertisement"), a lone
    label, a gallery counter, a comment-thread header, a short copyright line and a picture credit
    ("Photo: Jane Doe")."""
    if any(kinds[index] for index in _FURNITURE_KINDS):
        return True
    spaces = text.count(" ")
    return bool(kinds[_COPYRIGHT] and spaces < 25 or kinds[_CREDIT] and spaces < 6)


def _joined(texts: list[str], breaks: list[int], start: int, end: int) -> str:
    """The text of slots ``start:end``, table cells separated by a space."""
    return "".join(f" {texts[slot]}" if breaks[slot] else texts[slot] for slot in range(start, end))


class _ParagraphRanges:
    """Paragraph index ranges of elements, and the chains of ranges of a block's ancestors."""

    def __init__(self, doc: Document, starts: list[int]):
        self.doc = doc
        self.starts = starts
        self.cache: dict[int, tuple[tuple[int, int], ...]] = {}

    def of(self, element: int) -> tuple[int, int]:
        """Paragraphs whose first slot lies inside ``element``'s subtree."""
        doc = self.doc
        return (bisect_left(self.starts, doc.slot_starts[element]), bisect_left(self.starts, doc.slot_ends[element]))

    def chain(self, element: int) -> tuple[tuple[int, int], ...]:
        """Distinct paragraph ranges of ``element`` and its ancestors, innermost first."""
        found = self.cache.get(element)
        if found is not None:
            return found
        if element < 0:
            found = ()
        else:
            here = self.of(element)
            above = self.chain(self.doc.parents[element])
            found = above if above and above[0] == here else (here, *above)
            found = found[:CHAIN_LEVELS] if len(found) > CHAIN_LEVELS else found
        self.cache[element] = found
        return found


class _Records:
    """Repeated records around a paragraph: the nearest ancestor (a few levels up) that holds several
    lines and has at least ``REPEATS`` siblings of the same tag and class, like the entries of a
    comment thread or a teaser list (a paragraph alone is not a record: articles repeat those)."""

    LEVELS = 4

    def __init__(self, doc: Document, ranges: _ParagraphRanges, kinds: dict[int, tuple[float, ...] | None]):
        self.doc = doc
        self.ranges = ranges
        self.kinds = kinds
        self.counts: dict[int, dict[tuple[str, str], int]] = {}
        self.found: dict[int, tuple[int, tuple[int, int]]] = {}
        self.dated_cache: dict[tuple[int, int], bool] = {}
        self.date_index = KINDS.index("dateline")
        self.byline_index = KINDS.index("byline")

    def signature(self, element: int) -> tuple[str, str]:
        return self.doc.tags[element], self.doc.elements[element].get("class") or ""

    def sibling_counts(self, parent: int) -> dict[tuple[str, str], int]:
        counts = self.counts.get(parent)
        if counts is None:
            counts = {}
            doc = self.doc
            child, end = parent + 1, doc.ends[parent]
            while child < end:
                key = self.signature(child)
                counts[key] = counts.get(key, 0) + 1
                child = doc.ends[child]
            self.counts[parent] = counts
        return counts

    def of(self, block: int, paragraph: int) -> tuple[int, tuple[int, int]]:
        """(number of same-shaped siblings, paragraph range) of the record around ``block``; (0, ...)
        when there is none."""
        found = self.found.get(block)
        if found is None:
            found = (0, (paragraph, paragraph + 1))
            doc = self.doc
            element = block
            for _ in range(self.LEVELS):
                parent = doc.parents[element]
                if parent < 0:
                    break
                if doc.tags[element] in _RECORD_TAGS:
                    lo, hi = self.ranges.of(element)
                    if hi - lo >= 2:  # a record holds several lines (a header and a text)
                        repeats = self.sibling_counts(parent).get(self.signature(element), 0)
                        if repeats >= REPEATS:
                            found = (repeats, (lo, hi))
                            break
                element = parent
            self.found[block] = found
        return found

    def dated(self, record: tuple[int, int]) -> bool:
        """True when a short line of the record is a date or an author line (a comment's header)."""
        cached = self.dated_cache.get(record)
        if cached is None:
            cached = False
            for i in range(*record):
                kinds = self.kinds.get(i)
                if kinds and (kinds[self.date_index] or kinds[self.byline_index]):
                    cached = True
                    break
            self.dated_cache[record] = cached
        return cached


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
    """Structural and class/id context bits of the ``wanted`` elements (computed only along their
    ancestor paths; pages and sites repeat the same class strings, so verdicts on them are cached).
    Tags are inherited from every ancestor, as are the class/id words of a comment thread; the other
    class/id words count from the ``NEAR_LEVELS`` nearest ancestors-or-self only, and never from
    above the ``<article>`` or ``<main>`` around them (a theme wrapper's ``no-sidebar`` or
    ``widget-area`` says nothing of the paragraphs deep inside it). The ``<header>`` of an
    ``<article>`` or ``<main>`` is the article's own (its headline and standfirst), not page chrome."""
    inherited: dict[int, int] = {-1: 0}
    windows: dict[int, tuple[int, ...]] = {-1: ()}
    bits: dict[int, int] = {-1: 0}
    verdicts = _VERDICTS
    if len(verdicts) > _MAX_VERDICTS:  # bounded: a long crawl meets endless class strings
        verdicts.clear()
    elements, tags, parents = doc.elements, doc.tags, doc.parents
    near = _NEG | _POS
    for element in wanted:
        path = []
        while element not in bits:
            path.append(element)
            element = parents[element]
        bit, window = inherited[element], windows[element]
        for element in reversed(path):
            tag = tags[element]
            tag_bit = _TAG_BITS.get(tag, 0)
            if tag_bit == _CHROME and tag == "header" and bit & (_ARTICLE | _MAIN):
                tag_bit = 0
            bit |= tag_bit
            if tag == "article" or tag == "main":
                window = ()
            verdict = 0
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
            bit |= verdict & _COMMENTS
            window = (verdict & near, *window[: NEAR_LEVELS - 1])
            inherited[element], windows[element] = bit, window
            name_bits = 0
            for value in window:
                name_bits |= value
            bits[element] = bit | name_bits
    return bits


def _name_verdict(names: str) -> int:
    """_NEG when a class/id token starts with a boilerplate word (and _COMMENTS too for a comment
    thread's), else _POS for a content word."""
    tokens = _NAME_SPLIT_RE.split(names.lower())
    if any(_NEGATIVE_RE.match(token) for token in tokens):
        return _NEG | (_COMMENTS if any(_COMMENTS_RE.match(token) for token in tokens) else 0)
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
