"""P value (Lv, Cao, Wang, Yin & Zheng, EMIM 2017), docs/methods.md#pvalue.

Every element e is a candidate for "the element holding the main text" with probability

    P(e) = (l_t / l_s) · (l_vt / L_VT)

l_t: text length of e, l_s: length of e's markup (its tags and everything inside), l_vt: l_t minus the
text of ``<a>`` elements, L_VT: l_vt of the whole page. The answer is the text of argmax P (first in
document order on ties: the outermost), and page P = max P is the probability that the page has an
article (is_article iff P ≥ 0.5).

Preprocessing as published (docs/methods.md#p-value-preprocessing), applied as exclusions instead
of edits: the elements of ``REMOVED_TAGS`` (and ``img``) count for nothing, attributes ``id``,
``class`` and ``style`` are ignored, and the reference code's cleaning drops elements without text
(except ``br``, ``img``, ``p``, ``div`` and what lies inside a ``p`` or ``div``, which its walk does
not enter). Candidates are all remaining elements except ``a``, ``br`` and what lies inside them. All
sums come from prefix sums over the document's columns in a few linear passes, not the reference's
``get_text()`` per node.

Lengths: canonical by default (docs/methods.md#canonical-lengths: whitespace-collapsed text,
``<name attr="value">`` tags); ``faithful=True`` counts raw text lengths, keeps ``id`` and escapes
``& < >`` as the reference's serialiser does (the front end has already dropped whitespace-only text
nodes, so those still differ). The document starts at ``<body>`` (``<head>`` is removed anyway), so
``<html>`` is not a candidate; it can only tie with ``<body>``, never beat it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from ..output.text import clean_texts
from ..page.document import VOID_TAGS, Document
from ..page.tokens import cjk_share
from . import Extraction
from .options import check_flag, check_number

NAME = "pvalue"

#: removed with their content before anything is counted [PVAL paper and code]; the front end has
#: already removed script, noscript, style and head
REMOVED_TAGS = frozenset(
    "script noscript style embed label form input iframe head meta link object aside channel".split()
)
#: attributes deleted before measuring markup (paper: id, class, style; the code keeps id)
IGNORED_ATTRIBUTES = frozenset(("id", "class", "style"))
#: the cleaning step keeps these even without text [PVAL code: clean()]
KEPT_EMPTY = frozenset(("br", "img", "p", "div"))
#: not candidates, nor anything inside them [PVAL code: dfs()]
SKIPPED = frozenset(("a", "br"))
#: recommended ``min_valid_chars``: the value maximising balanced accuracy on the dev corpus (0.762 ->
#: 0.776), ``python scripts/calibrate_pvalue.py``; 250 was first proposed
#: (docs/methods.md#p-value-guard)
RECOMMENDED_MIN_VALID_CHARS = 410
#: recommended ``min_valid_chars_cjk``: the first proposal (docs/methods.md#p-value-guard), kept
#: because the dev corpus has 4 CJK non-articles only (too few to fit; the sweep leaves the guard off
#: there)
RECOMMENDED_MIN_VALID_CHARS_CJK = 120


@dataclass(frozen=True)
class Options:
    """Options of the P value method.

    - ``faithful`` (default False): True measures lengths as the reference code does (raw text
      length, serialised markup with escapes, ``id`` kept); False uses the canonical lengths
      (docs/methods.md#canonical-lengths) with the paper's attribute removal
      (docs/methods.md#p-value-preprocessing). Page P is as published either way.
    - ``remove_img`` (default True, as the reference code): ``<img>`` counts for nothing.
    - ``min_valid_chars`` (default 0 = as published; not in the paper, docs/methods.md#p-value-guard;
      recommended ``RECOMMENDED_MIN_VALID_CHARS``): when the chosen element has fewer valid (non-link)
      characters, the page is not an article: probability min(P, 0.5·l_vt/min_valid_chars), below 0.5.
    - ``min_valid_chars_cjk`` (default 0; recommended ``RECOMMENDED_MIN_VALID_CHARS_CJK``): the same for
      an answer that is at least 30 % CJK characters (one CJK character carries about a word).
    """

    faithful: bool = False
    remove_img: bool = True
    min_valid_chars: int = 0
    min_valid_chars_cjk: int = 0

    def __post_init__(self) -> None:
        check_flag(self, "faithful", "remove_img")
        check_number(self, "min_valid_chars", "min_valid_chars_cjk", integer=True, minimum=0)


def p_value(text: int, valid: int, markup: int, page_valid: int) -> float:
    """P = (l_t / l_s) · (l_vt / L_VT) with l_s = markup + text; 0 without valid text."""
    if text <= 0 or valid <= 0 or page_valid <= 0:
        return 0.0
    return (text / (markup + text)) * (valid / page_valid)


def extract(doc: Document, options: Options) -> Extraction:
    tags, ends, owners = doc.tags, doc.ends, doc.owners
    starts, slot_ends = doc.slot_starts, doc.slot_ends
    n = len(tags)
    gone = _removed(doc, REMOVED_TAGS | {"img"} if options.remove_img else REMOVED_TAGS)
    if options.faithful:
        texts = [len(t) for t in doc.texts]
        serialised = [len(t) + 4 * t.count("&") + 3 * (t.count("<") + t.count(">")) for t in doc.texts]
    else:
        texts = serialised = doc.chars
    text_prefix = [0, *accumulate(0 if gone[o] else length for length, o in zip(texts, owners))]
    link_prefix = [
        0,
        *accumulate(length if link and not gone[o] else 0 for length, o, link in zip(texts, owners, doc.links)),
    ]
    extra_prefix = [
        0,
        *accumulate(  # what escaping adds to the text inside the markup string
            0 if gone[o] else s - t for s, t, o in zip(serialised, texts, owners)
        ),
    ]
    _clean(doc, gone, text_prefix)
    markup_prefix = [
        0,
        *accumulate(0 if dropped else length for dropped, length in zip(gone, _tag_lengths(doc, options))),
    ]
    doc.check_time()

    page_valid = text_prefix[-1] - link_prefix[-1]
    best, best_score = -1, 0.0
    e = 0
    while e < n:
        if gone[e] or tags[e] in SKIPPED:
            e = ends[e]  # not a candidate, nor anything inside it
            continue
        first, end = starts[e], slot_ends[e]
        text = text_prefix[end] - text_prefix[first]
        valid = text - (link_prefix[end] - link_prefix[first])
        markup = markup_prefix[ends[e]] - markup_prefix[e] + extra_prefix[end] - extra_prefix[first]
        score = p_value(text, valid, markup, page_valid)
        if score > best_score:  # strict: the first (outermost) of equal values, as the reference
            best, best_score = e, score
        e += 1
    if best < 0:
        return Extraction((), 0.0, "no text outside links")
    first, end = starts[best], slot_ends[best]
    answer = [slot for slot in range(first, end) if not gone[owners[slot]]]
    valid = text_prefix[end] - text_prefix[first] - (link_prefix[end] - link_prefix[first])
    texts = clean_texts(doc)  # the share among the characters the answer's text shows
    cjk = cjk_share(" ".join(" ".join(texts[slot] for slot in answer).split())) >= 0.3
    minimum = options.min_valid_chars_cjk if cjk else options.min_valid_chars
    probability = min(best_score, 0.5 * valid / minimum) if valid < minimum else best_score
    return Extraction(
        answer,
        probability,
        f"<{tags[best]}> P={best_score:.2f}, {valid} valid characters",
        debug={"region_p": best_score, "valid_chars": valid, "cjk": cjk},
    )


def _removed(doc: Document, removed: frozenset[str]) -> bytearray:
    """Preprocessing step 1: the removed elements and everything inside them (1 = gone)."""
    tags, parents = doc.tags, doc.parents
    gone = bytearray(len(tags))
    for e, tag in enumerate(tags):
        if tag in removed or (parents[e] >= 0 and gone[parents[e]]):
            gone[e] = 1
    return gone


def _clean(doc: Document, gone: bytearray, text_prefix: list[int]) -> None:
    """The reference code's ``clean()``: from the top, an element without text is deleted unless it
    is br, img, p or div; the walk does not enter br, img, p or div, so what lies inside a paragraph
    or a div is left alone."""
    tags, ends, starts, slot_ends = doc.tags, doc.ends, doc.slot_starts, doc.slot_ends
    e, n = 0, len(tags)
    while e < n:
        if gone[e]:
            e = ends[e]
        elif tags[e] in KEPT_EMPTY:
            e = ends[e]  # kept, and not entered
        elif text_prefix[slot_ends[e]] == text_prefix[starts[e]]:
            gone[e : ends[e]] = b"\x01" * (ends[e] - e)
            e = ends[e]
        else:
            e += 1


def _tag_lengths(doc: Document, options: Options) -> list[int]:
    """Per element, the length of its own tags, canonical or as the reference serialises them."""
    measure = _serialised_tag_length if options.faithful else _canonical_tag_length
    return [measure(el, tag) for el, tag in zip(doc.elements, doc.tags)]


def _canonical_tag_length(el, tag: str) -> int:
    """``<name attr="value">`` + ``</name>`` with id, class and style ignored
    (docs/methods.md#p-value-preprocessing)."""
    length = len(tag) + 2 if tag in VOID_TAGS else 2 * len(tag) + 5
    for name, value in el.items():
        if name not in IGNORED_ATTRIBUTES:
            length += len(name) + len(value) + 4
    return length


def _serialised_tag_length(el, tag: str) -> int:
    """Length of the tags as the reference code serialises them: class and style deleted (``id``
    kept), ``&``, ``<`` and ``>`` in values escaped, void elements written ``<br/>``."""
    length = len(tag) + 2
    for name, value in el.items():
        if name not in ("class", "style"):
            length += len(name) + len(value) + 4 + 4 * value.count("&") + 3 * (value.count("<") + value.count(">"))
    return length + 1 if tag in VOID_TAGS else length + len(tag) + 3
