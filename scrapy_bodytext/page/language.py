"""Page language and stop words, for the methods that score text by its share of function words.

Stop-word lists come from the maintained ``stopwordsiso`` package (58 languages), loaded on first use
and kept as frozensets. The page language is chosen from the page:

1. on a CJK page (>= 30 % of the sampled characters are CJK): a declared ``zh``/``ja``/``ko``, else
   Japanese if kana make up >= 10 % of the CJK characters, Korean if Hangul is the majority, else
   Chinese;
2. otherwise the declared language (``<html lang>``, then ``<meta http-equiv="content-language">``)
   when a list exists for it and it is plausible: its stop words cover at least half as many sample
   tokens as the best list's (templates often declare a wrong language);
3. otherwise the language whose list covers the largest share of a sample of the page's word tokens
   (its longest non-link texts), given at least ``MIN_HIT_RATE`` and ``MIN_HITS``; else ``None``.

Tokens, lower-cased: Chinese and Japanese are written without word spaces, so there every CJK
character is a token (as in ``tokens.py``) and only the lists' single-character entries can match:
particles and function characters such as 的 了 是 在 和 / は が を に の. Every other language,
Korean included (it separates words with spaces), is split into ``\\w`` words (apostrophes kept inside
a word, so "don't" matches).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from ..metadata.language_tag import ALIASES
from .document import Document
from .tokens import CJK_RE, counts_per_text, joined_words, word_finder, words

#: languages written in CJK scripts ...
CJK_LANGUAGES = frozenset(("zh", "ja", "ko"))
#: ... and those of them written without word spaces: one token per CJK character
CHARACTER_LANGUAGES = frozenset(("zh", "ja"))
#: a page is CJK when at least this share of its non-space characters is CJK
CJK_PAGE_SHARE = 0.3
#: detection by stop words needs this share of the sampled tokens in one list ...
MIN_HIT_RATE = 0.05
#: ... and at least this many hits
MIN_HITS = 5
#: about this many tokens are sampled for detection (the longest non-link texts)
SAMPLE_TOKENS = 1000

_KANA_RE = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
_HANGUL_RE = re.compile("[\uac00-\ud7af]")
#: Norwegian's two written forms share one stop list
_STOP_LIST_OF = {"nb": "no", "nn": "no"}

_LISTS: dict[str, frozenset[str]] = {}
_INDEX: dict[str, tuple[str, ...]] | None = None


@cache
def supported() -> frozenset[str]:
    """Codes (ISO 639-1) of the languages with a stop-word list."""
    import stopwordsiso

    return frozenset(stopwordsiso.langs())


def stopwords(lang: str) -> frozenset[str]:
    """Lower-cased stop words of ``lang`` (empty for an unknown code); loaded once per language.

    Entries without a letter (digits, punctuation, which some lists carry) are left out."""
    found = _LISTS.get(lang)
    if found is None:
        import stopwordsiso

        words = stopwordsiso.stopwords(lang) if lang in supported() else set()
        found = _LISTS[lang] = frozenset(w.lower().replace("\u2019", "'") for w in words if any(map(str.isalpha, w)))
    return found


def normalize_code(code: str | None) -> str | None:
    """Primary subtag of a language tag, lower-cased, old codes mapped (``en-US`` -> ``en``)."""
    if not code:
        return None
    primary = re.split(r"[-_\s,;]", code.strip().lower(), maxsplit=1)[0]
    primary = ALIASES.get(primary, primary)
    return _STOP_LIST_OF.get(primary, primary) or None


def detect_language(doc: Document) -> str | None:
    """The page's language code among ``supported()``, or ``None`` (see the module docstring)."""
    memo = doc.memo
    key = (__name__, "language")
    if key not in memo:
        memo[key] = _detect(doc)
    return memo[key]


def stopword_counts(doc: Document, lang: str | None) -> list[int]:
    """Per text slot of ``doc``, the number of its tokens that are stop words of ``lang``: the one
    count of stop words (the Wu & Yang method and the default method's ``stop_density`` read it)."""
    return _counts(doc, lang)[1]


def token_counts(doc: Document, lang: str | None) -> list[int]:
    """Per text slot, the number of tokens as ``stopword_counts`` splits them (the densities'
    denominator); ``doc.token_counts`` when ``lang`` is ``None``."""
    if lang is None:
        return doc.token_counts
    return _counts(doc, lang)[0]


def splitter(lang: str | None) -> Callable[[str], list[str]]:
    """``tokens.words`` as the stop list of ``lang`` expects it: CJK characters one by one for the
    languages written without spaces (their lists hold single characters), whole runs otherwise."""
    return word_finder(split_cjk=lang in CHARACTER_LANGUAGES)


def count_stopwords(texts: Sequence[str], lang: str) -> tuple[np.ndarray, np.ndarray]:
    """Per text: its number of words and of stop words of ``lang`` (the one count of stop words:
    ``stopword_counts`` reads it for every slot of a page, a method for the slots it weighs)."""
    found, ends = joined_words(texts, split_cjk=lang in CHARACTER_LANGUAGES, prepare=_prepared)
    hits = np.fromiter(map(stopwords(lang).__contains__, found), bool, len(found))
    return counts_per_text(ends), counts_per_text(ends, hits)


def _counts(doc: Document, lang: str | None) -> tuple[list[int], list[int]]:
    key = (__name__, "stopword_counts", lang)
    cached = doc.memo.get(key)
    if cached is None:
        if lang is None:
            cached = (doc.token_counts, [0] * len(doc.texts))
        else:
            tokens, hits = count_stopwords(doc.texts, lang)
            cached = (tokens.tolist(), hits.tolist())
        doc.memo[key] = cached
    return cached


def _prepared(text: str) -> str:
    """Text as the stop lists are written: lower case, typographic apostrophes as ASCII ones."""
    return text.lower().replace("\u2019", "'")


def _sample(doc: Document) -> str:
    """The longest non-link texts of the page (prose rather than menus), about SAMPLE_TOKENS words."""
    chars, texts = doc.chars, doc.texts
    order = sorted((s for s, link in enumerate(doc.links) if not link), key=chars.__getitem__, reverse=True)
    parts, size = [], 0
    for slot in order:
        parts.append(texts[slot])
        size += texts[slot].count(" ") + 1
        if size >= SAMPLE_TOKENS:
            break
    return " ".join(parts)


def _detect(doc: Document) -> str | None:
    sample = _sample(doc)
    compact = len(sample) - sample.count(" ")
    cjk = len(CJK_RE.findall(sample))
    declared = [code for code in (normalize_code(doc.lang), normalize_code(doc.meta_lang)) if code in supported()]
    if compact > 0 and cjk >= CJK_PAGE_SHARE * compact:
        for code in declared:
            if code in CJK_LANGUAGES:
                return code
        if len(_KANA_RE.findall(sample)) >= 0.1 * cjk:
            return "ja"
        if 2 * len(_HANGUL_RE.findall(sample)) > cjk:
            return "ko"
        return "zh"
    sampled = words(sample.lower().replace("\u2019", "'"), split_cjk=False)
    hits = _hits(sampled)
    best = max(hits.values(), default=0)
    evidence = best >= MIN_HITS and best >= MIN_HIT_RATE * len(sampled)
    for code in declared:
        if code in CJK_LANGUAGES:
            if cjk >= 0.05 * compact:
                return code
        elif not evidence or 2 * hits[code] >= best:
            return code
    if not evidence:
        return None
    return max(hits, key=lambda code: (hits[code], code == "en"))


def _hits(words: list[str]) -> Counter:
    """Stop-word hits of ``words`` per space-separated language."""
    hits: Counter = Counter()
    index = _word_index()
    for word, count in Counter(words).items():
        for lang in index.get(word, ()):
            hits[lang] += count
    return hits


def _word_index() -> dict[str, tuple[str, ...]]:
    """stop word -> languages listing it (space-separated languages only), built once."""
    global _INDEX
    if _INDEX is None:
        index: dict[str, list[str]] = {}
        for lang in sorted(supported() - CJK_LANGUAGES):
            for word in stopwords(lang):
                index.setdefault(word, []).append(lang)
        _INDEX = {word: tuple(langs) for word, langs in index.items()}
    return _INDEX
