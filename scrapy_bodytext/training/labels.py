"""Which paragraphs of a page are main text, according to the page's gold text.

The page's paragraphs (in document order) and the gold text are aligned token by token
(``difflib``'s longest-matching-blocks alignment, order-aware): a paragraph's label is the share of
its tokens that the alignment matches to gold tokens. Order matters: a "Share" or a repeated
headline elsewhere on the page is not main text just because the same word occurs in the gold.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from ..page.rendering import rendered
from ..page.tokens import words

#: matching runs shorter than this many tokens are ignored unless they cover a whole paragraph
MIN_RUN = 3


def paragraph_labels(texts: list[str], gold: str) -> list[float]:
    """Per paragraph of ``texts``: the share of its tokens aligned to ``gold`` (0 when gold is empty)."""
    if not gold.strip():
        return [0.0] * len(texts)
    tokens: list[str] = []
    owners: list[int] = []
    sizes = []
    for index, text in enumerate(texts):
        found = words(text.lower())
        tokens.extend(found)
        owners.extend([index] * len(found))
        sizes.append(len(found))
    gold_tokens = words(rendered(gold).lower())
    matched = [0] * len(texts)
    matcher = SequenceMatcher(None, tokens, gold_tokens, autojunk=False)
    for start, _, size in matcher.get_matching_blocks():
        if not size:
            continue
        if size < MIN_RUN and not _whole_paragraphs(owners, sizes, start, size):
            continue
        for position in range(start, start + size):
            matched[owners[position]] += 1
    return [m / s if s else 0.0 for m, s in zip(matched, sizes)]


def _whole_paragraphs(owners: list[int], sizes: list[int], start: int, size: int) -> bool:
    """True when the run ``start:start+size`` covers whole paragraphs (a short heading, a label)."""
    first, last = owners[start], owners[start + size - 1]
    if start > 0 and owners[start - 1] == first:
        return False
    end = start + size
    return end == len(owners) or owners[end] != last
