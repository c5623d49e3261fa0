"""A site's furniture lines: lines of main text that recur on many of the site's stored articles
(a share and a count, ``Weights.boilerplate_share`` and ``boilerplate_count``) are taken out of its
later articles, except a line inside a run of article prose (docs/site-memory.md#site-boilerplate)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

#: the stored articles of a site whose lines are counted (enough to see what recurs; bounds memory)
SAMPLE_ARTICLES = 100
#: lines longer than this are prose, never furniture, and are not counted
MAX_LINE_CHARS = 300
#: lines counted per article at most, from each end (furniture sits at the ends of the text)
LINES_PER_END = 40


def line_key(line: str) -> str:
    """The field of a line (whitespace and case folded)."""
    folded = " ".join(line.split()).casefold()
    return "bl:" + hashlib.blake2b(folded.encode("utf-8", "replace"), digest_size=8).hexdigest()


def counted_lines(text: str) -> list[str]:
    """The distinct fields of the lines of ``text`` that are counted (short lines near either end)."""
    lines = [line for line in text.splitlines() if line.strip()]
    ends = lines if len(lines) <= 2 * LINES_PER_END else lines[:LINES_PER_END] + lines[-LINES_PER_END:]
    return sorted({line_key(line) for line in ends if len(line.strip()) <= MAX_LINE_CHARS})


def furniture_lines(lines: Sequence[str], recurring: Sequence[bool]) -> list[bool]:
    """Which lines are taken out: recurring ones, unless both neighbours are lines that do not recur
    (the line sits inside a run of the article's own prose)."""
    found = []
    for i, line_recurs in enumerate(recurring):
        inside = 0 < i < len(lines) - 1 and not recurring[i - 1] and not recurring[i + 1]
        found.append(line_recurs and not inside)
    return found


def is_recurring(count: int, stored: int, share: float, minimum: int) -> bool:
    """A line seen on ``count`` of ``stored`` counted articles is the site's furniture."""
    return count >= minimum and count >= share * min(stored, SAMPLE_ARTICLES)
