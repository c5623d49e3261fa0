"""Text units: characters, the published methods' tokens (whitespace-delimited runs; one per CJK\ncharacter) and words, the one tokeniser of stop words, labels and metrics."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

#: scripts written without spaces between words; each character is a token there
CJK_RANGES = (
    "\u3040-\u30ff\u31f0-\u31ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\uac00-\ud7af"  # Hangul syllables
    "\U00020000-\U0002fa1f"  # Han extensions
)
_THAI = "\u0e00-\u0e7f"
#: scripts written without spaces between words (CJK, Thai)
UNSPACED_RANGES = CJK_RANGES + _THAI

#: a CJK character, a run of up to four Thai characters, or a whitespace-delimited run holding a word
#: character (pure punctuation is not a token); the lookbehind starts runs only at their first
#: character, so a long run without any word character costs linear, not quadratic, time
TOKEN_RE = re.compile(
    f"[{CJK_RANGES}]|[{_THAI}]{{1,4}}|(?<![^\\s{CJK_RANGES}{_THAI}])"
    f"[^\\s{CJK_RANGES}{_THAI}]*?[^\\W{CJK_RANGES}{_THAI}][^\\s{CJK_RANGES}{_THAI}]*"
)
CJK_RE = re.compile(f"[{CJK_RANGES}]")
#: words (stop words, labels, metrics): each CJK character on its own, else a run of word characters
#: with apostrophes inside it kept (``don't`` is one word)
WORD_RE = re.compile(f"[{CJK_RANGES}]|[^\\W{CJK_RANGES}]+(?:'[^\\W{CJK_RANGES}]+)*")
#: the same for the stop lists of languages written with spaces (Korean among them): a run of CJK
#: characters stays one word there
_SPACED_WORD_RE = re.compile(r"\w+(?:'\w+)*")


def count_tokens(text: str) -> int:
    """Number of tokens in ``text`` (see ``TOKEN_RE``)."""
    return len(TOKEN_RE.findall(text))


def words(text: str, *, split_cjk: bool = True) -> list[str]:
    """The words of ``text`` as they are written (see ``WORD_RE``); ``split_cjk=False`` keeps runs of
    CJK characters whole, as the stop lists of languages written with spaces expect."""
    return word_finder(split_cjk)(text)


def word_finder(split_cjk: bool = True) -> Callable[[str], list[str]]:
    """The bound ``findall`` behind ``words``, for loops over many texts."""
    return word_pattern(split_cjk).findall


def word_pattern(split_cjk: bool = True) -> re.Pattern:
    """The pattern of a word as ``words`` finds it (for matching many texts joined into one)."""
    return WORD_RE if split_cjk else _SPACED_WORD_RE


def cjk_share(text: str) -> float:
    """Share of the non-space characters of ``text`` that are CJK."""
    compact = len(text) - sum(map(text.count, (" ", "\n", "\t", "\r")))
    return len(CJK_RE.findall(text)) / compact if compact > 0 else 0.0


#: word pattern -> the same with a NUL as a word of its own (the separator of ``joined_words``)
_SEPARATED: dict[re.Pattern, re.Pattern] = {}


def joined_words(
    texts: Sequence[str], *, split_cjk: bool = True, prepare: Callable[[str], str] = str.lower
) -> tuple[list[str], np.ndarray]:
    """The words (``words``) of every text of ``texts`` after ``prepare`` (lower-casing), found in
    one pass over the texts joined by NULs, and per text the index in that list just past its last
    word. A NUL is never inside a word, so each text's words are those found in it alone; each NUL
    is an entry of the list, so text ``k`` has ``ends[k] - ends[k - 1] - 1`` words (``ends[0]``
    for the first)."""
    pattern = word_pattern(split_cjk)
    finder = _SEPARATED.get(pattern)
    if finder is None:
        finder = _SEPARATED[pattern] = re.compile("\\0|" + pattern.pattern, pattern.flags)
    joined = "\0".join(texts)
    if joined.count("\0") > len(texts) - 1:  # a NUL inside a text: another character of no word
        joined = "\0".join(text.replace("\0", "\1") for text in texts)
    found = finder.findall(prepare(joined))
    separators = np.flatnonzero(np.fromiter(map("\0".__eq__, found), bool, len(found)))
    return found, np.append(separators, len(found))[: len(texts)]


def counts_per_text(ends: np.ndarray, hits: Sequence[bool] | None = None) -> np.ndarray:
    """Per text of a ``joined_words`` result (``ends``): its number of words, or of the words
    ``hits`` marks (one value per entry of the word list)."""
    if hits is None:
        return np.diff(ends, prepend=-1) - 1
    prefix = np.concatenate(([0], np.cumsum(hits, dtype=np.int64)))
    return np.diff(prefix[ends], prepend=0)
