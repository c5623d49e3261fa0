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
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

import numpy as np

from ...page.document import HEADING_TAGS, Document
from ...page.language import CHARACTER_LANGUAGES, count_stopwords, detect_language
from ...page.tokens import counts_per_text, joined_words
from . import groups
from .anchor import title_anchor
from .table import Table
from .vocabulary import KINDS, MAX_LINE, line_kinds

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
#: punctuation marks (``punct_density``, ``ends_with_punct``) and the marks that end a sentence
_PUNCTUATION = ".,;:!?\u3002\uff0c\u3001\uff01\uff1f\u061f\u060c"
_SENTENCE_ENDS = ".!?\u3002\uff01\uff1f"
#: capital letters counted by ``upper_share``
_CAPITALS = "ABCDEFGHIJKLMNOPQRSTUVWXYZÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
_SAMPLE = 400  # characters of a paragraph read for digit and capital shares

# structural context bits, inherited by descendants
(
    _NEG,
    _POS,
    _ARTICLE,
    _MAIN,
    _CHROME,
    _FIGURE,
    _LIST,
    _TABLE,
    _FORM,
    _QUOTE,
    _COMMENTS,
    _CAPTION,
    _LEAD,
    _BYLINE,
    _FIGCAPTION,
    _CREDIT_NAME,
) = (1 << i for i in range(16))
#: class/id words (at the start of a token) of a picture's caption, of its credit, and of a byline:
#: the policy's evidence that a line is not main text (docs/methods.md#what-main-text-is); no feature
_CAPTION_RE = re.compile(r"caption|figcaption")
_CREDIT_NAME_RE = re.compile(r"credit|photographer|photo-?credit")
_BYLINE_RE = re.compile(r"byline|author")
#: class/id words of the lead under the headline (standfirst, summary, dek): the article's own
_LEAD_RE = re.compile(r"lead$|lede$|standfirst|summary|intro$|dek$|deck$|excerpt|abstract|subhead|subtitle|sapo$")
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
    "figcaption": _FIGURE | _FIGCAPTION,
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
    captions: frozenset[int]  # candidates that are captions or picture credits on their own evidence (``_captions``)
    bylines: frozenset[int]  # candidates that are bylines on their own evidence
    widgets: frozenset[int]  # candidates in a box built as a widget (``_widgets``)
    leads: frozenset[int]  # candidates in a container named as the lead (standfirst, summary)
    heading: list[bool]
    stop_density: list[float]  # per paragraph (0 for non-candidates)
    language: str | None
    best_node_p: float
    links: int  # <a> elements on the page


def paragraphs(doc: Document) -> Paragraphs:
    """Split the page into paragraphs and compute the feature row of every candidate.

    The columns are computed for all candidates at once: lengths, links, tags and regions from the
    page's prefix sums, stop words from the one count of them per slot (``page.language``),
    the other text cues (words, punctuation, digits, capitals, sentence ends) from one pass over the
    candidates' text joined into one string (``_TextCues``)."""
    breaks, texts, owners, tags, parents = doc.breaks, doc.texts, doc.owners, doc.tags, doc.parents
    n_slots = len(texts)
    starts = [s for s, kind in enumerate(breaks) if kind == 2 or not s]
    ends = starts[1:] + [n_slots]
    chars_prefix = doc.prefix("chars")
    link_prefix = doc.prefix("link_chars")
    chars_at = np.array(chars_prefix, np.int64)
    links_at = np.array(link_prefix, np.int64)
    first, after = np.array(starts, np.int64), np.array(ends, np.int64)
    chars_array = chars_at[after] - chars_at[first]
    links_array = links_at[after] - links_at[first]
    chars, links = chars_array.tolist(), links_array.tolist()
    link_density = [linked / c if c else 1.0 for linked, c in zip(links, chars)]
    blocks = _blocks(doc, [owners[s] for s in starts])
    block_of = [blocks[owners[s]] for s in starts]
    heading = [tags[b] in HEADING_TAGS for b in block_of]
    candidates = [i for i, density in enumerate(link_density) if density < MAX_LINK_DENSITY]
    n = len(starts)

    language = detect_language(doc)
    bits = _context_bits(doc, [owners[starts[i]] for i in candidates])
    best_node, best_p = _best_node(doc, bits)
    best_lo, best_hi = (doc.slot_starts[best_node], doc.slot_ends[best_node]) if best_node >= 0 else (0, 0)
    linked = [
        i
        for i, (s, density) in enumerate(zip(starts, link_density))
        if density >= MAX_LINK_DENSITY and chars[i] and best_lo <= s < best_hi
    ]
    if linked:  # link-only lines inside the best node: a linked heading or list item of the article
        candidates = sorted(candidates + linked)
        bits.update(_context_bits(doc, [owners[starts[i]] for i in linked]))

    segments = _segments(texts, breaks, [starts[i] for i in candidates], [ends[i] for i in candidates])
    kinds = {i: _line_kinds(segment) for i, segment in zip(candidates, segments) if chars[i] <= MAX_LINE}
    header = KINDS.index("comments_header")
    comments_start = next((i for i in candidates if i in kinds and kinds[i][header]), n)
    doc.check_time()
    ranges = _ParagraphRanges(doc, starts)
    records = _Records(doc, ranges, kinds)  # type: ignore[arg-type]  # a paragraph missing: no kinds

    blocks_of = [block_of[i] for i in candidates]
    repeats_found, dated, chains, record_ranges = [], [], [], []
    for i, block in zip(candidates, blocks_of):
        repeats, record = records.of(block, i)
        repeats_found.append(repeats)
        dated.append(1.0 if repeats and records.dated(record) else 0.0)
        chains.append(ranges.chain(parents[block]))
        record_ranges.append(record if repeats else (i, i + 1))
    doc.check_time()

    cues = _TextCues(segments, language)
    stops = _stop_density(doc, language, [starts[i] for i in candidates], [ends[i] for i in candidates])
    stop_density = [0.0] * n
    for i, value in zip(candidates, stops.tolist()):
        stop_density[i] = value
    tokens = cues.tokens
    slot_first = first[candidates] if candidates else first[:0]
    tag_at = np.array([0, *accumulate(doc.tags_before)], np.int64)
    slot_starts, slot_ends = doc.slot_starts, doc.slot_ends
    regions = [parents[block] for block in blocks_of]  # the parent of a paragraph's block: its neighbourhood
    region_lo = np.array([slot_starts[region] if region >= 0 else 0 for region in regions], np.int64)
    region_hi = np.array([slot_ends[region] if region >= 0 else n_slots for region in regions], np.int64)
    region_total = chars_at[region_hi] - chars_at[region_lo]
    region_link = links_at[region_hi] - links_at[region_lo]
    page_valid = max(1, chars_prefix[-1] - link_prefix[-1])
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
            "punct_density": np.minimum(cues.punctuation / tokens, 1.0),
            "tag_density": np.minimum((tag_at[after[candidates]] - tag_at[slot_first + 1]) / tokens, 3.0),
            "region_log_valid": np.array(list(map(math.log1p, (region_total - region_link).tolist())))
            - math.log1p(page_valid),
            "region_link_density": np.divide(
                region_link, region_total, out=np.ones(len(candidates)), where=region_total != 0
            ),
            "ends_with_punct": cues.ends_with_punctuation,
            "digit_share": cues.digit_share,
            "upper_share": cues.upper_share,
            "log_sentences": list(map(math.log1p, cues.sentences.tolist())),
            "log_record_repeats": list(map(math.log1p, repeats_found)),
            "record_dated": dated,
            **dict(
                zip(KINDS, zip(*[kinds.get(i, _NO_KINDS) for i in candidates]) if candidates else ((),) * len(KINDS))
            ),
        },
    )
    furniture = frozenset(
        i for i, segment in zip(candidates, segments) if i in kinds and is_furniture(kinds[i], segment)
    )
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
        _captions(
            doc,
            candidates,
            [owners[starts[i]] for i in candidates],
            [bits[owners[starts[i]]] for i in candidates],
            [tags[b] for b in blocks_of],
            kinds,
            chars,
        ),
        _bylines(doc, candidates, starts, ends, blocks_of, kinds, chars),
        _widgets(candidates, [bits[owners[starts[i]]] for i in candidates], segments, chars, links),
        frozenset(i for i in candidates if bits[owners[starts[i]]] & _LEAD),
        heading,
        stop_density,
        language,
        best_p,
        tags.count("a"),
    )


_BYLINE_KIND = KINDS.index("byline")
#: a byline is a short line (an author's name, a date, a role)
MAX_BYLINE = 120


def _bylines(
    doc: Document,
    candidates: list[int],
    starts: list[int],
    ends: list[int],
    blocks: list[int],
    kinds: dict[int, tuple[float, ...]],
    chars: list[int],
) -> frozenset[int]:
    """Candidates that are bylines on the evidence of the line itself: its own element (the block
    its text belongs to) has a class/id word of a byline or an author, or, for a short line, an
    inline element of the line has one or its text reads as a byline ("By ..."). A wrapper's words
    say nothing of the lines inside it (a post classed ``author-jane`` holds the author's prose),
    unless a whole class name of it names a byline or an author box (``_in_author_box``)."""
    owners, parents = doc.owners, doc.parents
    found = set()
    for i, block in zip(candidates, blocks):
        if own_verdict(doc, block) & _BYLINE or _in_author_box(doc, block):
            found.add(i)
            continue
        if chars[i] >= MAX_BYLINE:
            continue
        if i in kinds and kinds[i][_BYLINE_KIND]:
            found.add(i)
            continue
        for slot in range(starts[i], ends[i]):
            element = owners[slot]
            while element != block and element >= 0:
                if own_verdict(doc, element) & _BYLINE:
                    found.add(i)
                    break
                element = parents[element]
            if i in found:
                break
    return frozenset(found)


#: a whole class/id name of a byline or an author box (``byline``, ``author-bio``, ``about-the-author``,
#: ``post-author``), not one that names an author (``author-jane``, ``author-12``)
_AUTHOR_BOX_RE = re.compile(
    r"(?:[a-z0-9]+[-_])*(?:byline|author)s?(?:[-_]?(?:box|bio|info|about|card|profile|details?|block|"
    r"wrap(?:per)?|container|area|section|meta|name|data|line))?"
)
_AUTHOR_BOXES: dict[str, bool] = {}


def _in_author_box(doc: Document, block: int) -> bool:
    """Whether one of the ``NEAR_LEVELS`` nearest ancestors of ``block`` (not above the ``article``
    or ``main``) has a class/id name that as a whole names a byline or an author box."""
    tags, parents, elements = doc.tags, doc.parents, doc.elements
    element = parents[block]
    for _ in range(NEAR_LEVELS - 1):
        if element < 0 or tags[element] in _ARTICLE_TAGS:
            return False
        if own_verdict(doc, element) & _BYLINE:
            el = elements[element]
            names = f"{el.get('class') or ''} {el.get('id') or ''}"[:_MAX_NAMES]
            found = _AUTHOR_BOXES.get(names)
            if found is None:
                if len(_AUTHOR_BOXES) > _MAX_VERDICTS:
                    _AUTHOR_BOXES.clear()
                found = _AUTHOR_BOXES[names] = any(_AUTHOR_BOX_RE.fullmatch(name) for name in names.lower().split())
            if found:
                return True
        element = parents[element]
    return False


#: inside a figure, a table, quote, list or code block is the article's own, not a caption
_CAPTION_CONTEXT = _TABLE | _QUOTE | _LIST
_CODE_TAGS = frozenset(("pre", "code"))


def _captions(
    doc: Document,
    candidates: list[int],
    owners: list[int],
    bits: list[int],
    block_tags: list[str],
    kinds: dict[int, tuple[float, ...]],
    chars: list[int],
) -> frozenset[int]:
    """Candidates whose own evidence marks them a caption or a picture credit: text attached to a
    figure or a picture. Inside a ``figcaption``, or a ``figure`` (not in a table, quote, list or
    code block it holds); under a near class/id word of a caption when that element is attached
    to a picture (``_attached``: a class word alone is no caption, a post may class its own
    paragraphs so); a short line under a near class/id word of a picture credit; or a credit line
    (``vocabulary``). Whether the captions are short beside
    the article is the selection's to weigh (``select``)."""
    found = set()
    memo: dict[int, bool] = {}
    for i, owner, bit, tag in zip(candidates, owners, bits, block_tags):
        line = kinds.get(i)
        if (
            bit & _FIGCAPTION
            or (bit & _FIGURE and not bit & _CAPTION_CONTEXT and tag not in _CODE_TAGS)
            or (line is not None and line[_CREDIT])
            or (bit & _CREDIT_NAME and chars[i] < MAX_BYLINE)
            or (bit & _CAPTION and _attached(doc, owner, memo))
        ):
            found.add(i)
    return frozenset(found)


#: elements that show a picture (the Document drops video, audio and frames with their fallback text)
_MEDIA_TAGS = ("img", "picture", "embed", "object", "video", "iframe")


def _attached(doc: Document, owner: int, memo: dict[int, bool]) -> bool:
    """Whether an element named as a caption around ``owner`` (among its ``NEAR_LEVELS``
    ancestors-or-self, not above the ``article`` or ``main``, whose own class/id words say so)
    belongs to a picture (``_with_picture``)."""
    tags, parents = doc.tags, doc.parents
    element = owner
    for _ in range(NEAR_LEVELS):
        if element < 0:
            return False
        if own_verdict(doc, element) & _CAPTION:
            found = memo.get(element)
            if found is None:
                found = memo[element] = _with_picture(doc, element)
            if found:
                return True
        if tags[element] in _ARTICLE_TAGS:
            return False
        element = parents[element]
    return False


_ARTICLE_TAGS = frozenset(("article", "main", "body"))
#: text outside captions a picture's box may hold besides the caption (a gallery's counter, its title)
MAX_BESIDE_CAPTION = 2 * MAX_BYLINE
#: slots of a box read at most to weigh its text outside captions
_MAX_BOX_SLOTS = 2000


def _with_picture(doc: Document, caption: int) -> bool:
    """Whether the caption element ``caption`` holds a picture, follows one, or its nearest ancestor that holds
    one (a few levels up, not the ``article`` or ``main``: an image wrapper such as ``.wp-caption``,
    a photo box, a gallery) holds little text outside captions besides it: no more than the
    caption's own, or than ``MAX_BESIDE_CAPTION``. A post's paragraph classed as a caption is not
    attached so: the post's container holds its prose. Pictures hidden until a script shows them
    count (the tree, not the visible columns, is read)."""
    tags, parents, elements = doc.tags, doc.parents, doc.elements
    el = elements[caption]
    if _holds_picture(el):
        return True
    before = el.getprevious()
    while before is not None and not isinstance(before.tag, str):  # a comment or processing instruction
        before = before.getprevious()
    if before is not None and _holds_picture(before):  # a picture and the caption under it
        return True
    chars = doc.prefix("chars")
    own = chars[doc.slot_ends[caption]] - chars[doc.slot_starts[caption]]
    box = caption
    for _ in range(NEAR_LEVELS):
        box = parents[box]
        if box < 0 or tags[box] in _ARTICLE_TAGS:
            return False
        if _holds_picture(elements[box]):
            return _outside_captions(doc, box) <= max(own, MAX_BESIDE_CAPTION)
    return False


def _holds_picture(el) -> bool:
    """Whether the page element ``el`` is or holds a picture."""
    return next(el.iter(*_MEDIA_TAGS), None) is not None


def _outside_captions(doc: Document, box: int) -> int:
    """Characters of ``box``'s text outside the elements named as captions or credits within it."""
    lo, hi = doc.slot_starts[box], doc.slot_ends[box]
    if hi - lo > _MAX_BOX_SLOTS:
        return hi - lo  # a box of this many texts is no picture's
    owners, parents, texts = doc.owners, doc.parents, doc.texts
    named: dict[int, bool] = {box: False}
    outside = 0
    for slot in range(lo, hi):
        path, element = [], owners[slot]
        while element not in named:
            path.append(element)
            element = parents[element]
        inside = named[element]
        for element in reversed(path):
            inside = inside or bool(own_verdict(doc, element) & (_CAPTION | _CREDIT_NAME))
            named[element] = inside
        if not inside:
            outside += len(texts[slot].strip())
    return outside


#: a lead-in before a link ("Read more: ..."): at most this many characters of text outside the link
MAX_LEAD_IN = 30
_LEAD_IN_MARKS = frozenset(":»›|>→")


def _widgets(
    candidates: list[int], bits: list[int], segments: list[str], chars: list[int], links: list[int]
) -> frozenset[int]:
    """Candidates in a box built as a widget rather than as prose: inside a form, a button or a
    box around the content (``aside``, ``nav``, a ``footer`` or a page ``header``), or a link with a
    short lead-in (a related story: "Read more: <link>", "Also: <link>")."""
    found = set()
    for i, bit, segment in zip(candidates, bits, segments):
        if bit & (_FORM | _CHROME):
            found.add(i)
            continue
        plain = chars[i] - links[i]
        if (
            links[i]
            and plain <= MAX_LEAD_IN
            and links[i] >= plain
            and not _LEAD_IN_MARKS.isdisjoint(segment[: plain + 2])
        ):
            found.add(i)
    return frozenset(found)


def _stop_density(doc: Document, language: str | None, firsts: list[int], lasts: list[int]) -> np.ndarray:
    """Per paragraph (slots ``first:last``): the share of its words that are stop words of the
    page's language (0 without one), from the one count of stop words per slot
    (``page.language.count_stopwords``), read for the paragraphs' slots only."""
    if language is None:
        return np.zeros(len(firsts))
    texts = doc.texts
    words, hits = count_stopwords(
        [texts[slot] for first, last in zip(firsts, lasts) for slot in range(first, last)], language
    )
    bounds = np.concatenate(([0], np.cumsum(np.array(lasts, np.int64) - np.array(firsts, np.int64))))
    hits_at = np.concatenate(([0], np.cumsum(hits)))
    words_at = np.concatenate(([0], np.cumsum(words)))
    lo, hi = bounds[:-1], bounds[1:]
    return (hits_at[hi] - hits_at[lo]) / np.maximum(words_at[hi] - words_at[lo], 1)


def _segments(texts: list[str], breaks: list[int], firsts: list[int], lasts: list[int]) -> list[str]:
    """The text of each paragraph (slots ``first:last``), table cells separated by a space (a
    paragraph of several slots starts with that space when its first slot has a break)."""
    spaced = None
    found = []
    for first, last in zip(firsts, lasts):
        if last == first + 1:
            found.append(texts[first])
        else:
            if spaced is None:
                spaced = [f" {text}" if kind else text for text, kind in zip(texts, breaks)]
            found.append("".join(spaced[first:last]))
    return found


_NO_KINDS = (0.0,) * len(KINDS)
#: stripped line -> its kinds, shared across pages (sites repeat their furniture lines), bounded
_KINDS_CACHE: dict[str, tuple[float, ...]] = {}


def _line_kinds(segment: str) -> tuple[float, ...]:
    """``vocabulary.line_kinds`` of a short paragraph's text, remembered across pages."""
    line = segment.strip()
    found = _KINDS_CACHE.get(line)
    if found is None:
        if len(_KINDS_CACHE) > _MAX_VERDICTS:
            _KINDS_CACHE.clear()
        found = _KINDS_CACHE[line] = line_kinds(line)
    return found


#: character classes of the text cues, by code point (code points past the table share its last entry)
_DIGIT, _CAPITAL, _PUNCT, _SENTENCE_END, _SPACE = (1 << i for i in range(5))
_TABLE_SIZE = 0x10000


@cache
def _character_classes() -> np.ndarray:
    """The class bits of every code point below ``_TABLE_SIZE`` (built once)."""
    table = np.zeros(_TABLE_SIZE + 1, np.uint8)
    for members, flag in (
        ("0123456789", _DIGIT),
        (_CAPITALS, _CAPITAL),
        (_PUNCTUATION, _PUNCT),
        (_SENTENCE_ENDS, _SENTENCE_END),
        ("".join(chr(c) for c in range(_TABLE_SIZE) if chr(c).isspace()), _SPACE),
    ):
        table[[ord(c) for c in members]] |= flag
    return table


class _TextCues:
    """The text cues of paragraphs, read in one pass over their texts joined into one string (a NUL
    between two paragraphs: no word, punctuation or sentence end spans it), their counts summed
    per paragraph from the offsets. The values are those of matching each paragraph on its own:
    words (``tokens.joined_words``, as the page language's stop list splits them), punctuation marks,
    digits and capitals among the first ``_SAMPLE`` characters, sentence ends (a mark followed by
    whitespace or the paragraph's end)."""

    def __init__(self, segments: list[str], language: str | None):
        self.segments = segments
        joined = "\0".join(segments)
        if joined.count("\0") > len(segments) - 1:  # a NUL in a text: another character of no class
            joined = "\0".join(segment.replace("\0", "\1") for segment in segments)
        table = _character_classes()
        points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), np.uint32)
        self.flags = table[np.minimum(points, _TABLE_SIZE)]
        lengths = np.fromiter(map(len, segments), np.int64, len(segments))
        self.starts = np.cumsum(lengths + 1) - (lengths + 1)
        self.ends = self.starts + lengths
        self.stripped = np.fromiter((len(segment.rstrip()) for segment in segments), np.int64, len(segments))
        self.words, self.word_ends = joined_words(segments, split_cjk=language in CHARACTER_LANGUAGES)
        self.tokens = np.maximum(counts_per_text(self.word_ends), 1)

    @staticmethod
    def _sums(mask: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Per paragraph: how many positions ``lo:hi`` of the joined text ``mask`` marks."""
        prefix = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
        return prefix[hi] - prefix[lo]

    @property
    def punctuation(self) -> np.ndarray:
        """Per paragraph: its punctuation marks."""
        return self._sums(self.flags & _PUNCT != 0, self.starts, self.ends)

    @property
    def sentences(self) -> np.ndarray:
        """Per paragraph: its sentence ends, marks followed by whitespace or the paragraph's end."""
        flags = self.flags
        follows = np.ones(len(flags), bool)
        follows[:-1] = flags[1:] & _SPACE != 0
        follows[np.maximum(self.ends - 1, 0)] = True  # each paragraph's last character
        return self._sums((flags & _SENTENCE_END != 0) & follows, self.starts, self.ends)

    @property
    def ends_with_punctuation(self) -> np.ndarray:
        """Per paragraph: 1 when its last character other than whitespace is a punctuation mark."""
        last = self.starts + self.stripped - 1
        has = self.stripped > 0
        found = np.zeros(len(self.segments))
        found[has] = (self.flags[last[has]] & _PUNCT != 0).astype(float)
        return found

    def _sample_share(self, flag: int) -> np.ndarray:
        """Share of the first ``_SAMPLE`` characters (trailing whitespace left out) ``flag`` marks."""
        sample = np.minimum(self.stripped, _SAMPLE)
        counts = self._sums(self.flags & flag != 0, self.starts, self.starts + sample)
        return counts / np.maximum(sample, 1)

    @property
    def digit_share(self) -> np.ndarray:
        """Per paragraph: the share of digits in its sample."""
        return self._sample_share(_DIGIT)

    @property
    def upper_share(self) -> np.ndarray:
        """Per paragraph: the share of capitals in its sample."""
        return self._sample_share(_CAPITAL)


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


class _ParagraphRanges:
    """Paragraph index ranges of elements, and the chains of ranges of a block's ancestors."""

    def __init__(self, doc: Document, starts: list[int]):
        self.doc = doc
        self.starts = starts
        first_slots = np.array(starts, np.int64)
        #: per element: the first paragraph starting inside it, and the first past its end
        self.lows = np.searchsorted(first_slots, doc.slot_starts).tolist()
        self.highs = np.searchsorted(first_slots, doc.slot_ends).tolist()
        self.cache: dict[int, tuple[tuple[int, int], ...]] = {}

    def of(self, element: int) -> tuple[int, int]:
        """Paragraphs whose first slot lies inside ``element``'s subtree."""
        return (self.lows[element], self.highs[element])

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
    tags, parents = doc.tags, doc.parents
    near = _NEG | _POS | _CAPTION | _CREDIT_NAME | _LEAD  # a byline's words count on its own line only (``_bylines``)
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
            verdict = own_verdict(doc, element) if tag in _NAMED_TAGS else 0
            bit |= verdict & _COMMENTS
            window = (verdict & near, *window[: NEAR_LEVELS - 1])
            inherited[element], windows[element] = bit, window
            name_bits = 0
            for value in window:
                name_bits |= value
            bits[element] = bit | name_bits
    return bits


def own_verdict(doc: Document, element: int) -> int:
    """The verdict (``_name_verdict``) of ``element``'s own class and id words (0 for a tag whose
    words are not read), cached across pages by the class/id string."""
    if doc.tags[element] not in _NAMED_TAGS:
        return 0
    el = doc.elements[element]
    names = el.get("class")
    ident = el.get("id")
    if ident:
        names = f"{names} {ident}" if names else ident
    if not names:
        return 0
    names = names[:_MAX_NAMES]  # a megabyte of class names must not cost seconds
    verdict = _VERDICTS.get(names)
    if verdict is None:
        if len(_VERDICTS) > _MAX_VERDICTS:  # bounded: a long crawl meets endless class strings
            _VERDICTS.clear()
        verdict = _VERDICTS[names] = _name_verdict(names)
    return verdict


def _name_verdict(names: str) -> int:
    """_NEG when a class/id token starts with a boilerplate word (and _COMMENTS too for a comment
    thread's), else _POS for a content word."""
    tokens = _NAME_SPLIT_RE.split(names.lower())
    policy = 0
    for bit, pattern in (
        (_CAPTION, _CAPTION_RE),
        (_CREDIT_NAME, _CREDIT_NAME_RE),
        (_LEAD, _LEAD_RE),
        (_BYLINE, _BYLINE_RE),
    ):
        if any(pattern.match(token) for token in tokens):
            policy |= bit
    if any(_NEGATIVE_RE.match(token) for token in tokens):
        return _NEG | policy | (_COMMENTS if any(_COMMENTS_RE.match(token) for token in tokens) else 0)
    if any(_POSITIVE_RE.match(token) for token in tokens):
        return _POS | policy
    return policy


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
