"""A site's furniture lines: lines of main text that recur on many of the site's stored articles
(a share and a count, ``Weights.boilerplate_share`` and ``boilerplate_count``) are taken out of its
later articles where they open or close the text, never between lines of the article's own (docs/site-memory.md#site-boilerplate)."""

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
    """Which lines are taken out: the recurring lines that open or close the text (every line before
    them, or every line after them, recurs too); a recurring line with article text on both sides
    is inside the article and stays."""
    n = len(recurring)
    head = next((i for i, line_recurs in enumerate(recurring) if not line_recurs), n)
    tail = next((i for i in range(n - 1, -1, -1) if not recurring[i]), -1)
    return [i < head or i > tail for i in range(n)]


def is_recurring(count: int, stored: int, share: float, minimum: int) -> bool:
    """A line seen on ``count`` of ``stored`` counted articles is the site's furniture."""
    return count >= minimum and count >= share * min(stored, SAMPLE_ARTICLES)
