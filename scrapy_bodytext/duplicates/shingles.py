"""The fingerprint of one article: an exact hash of its normalised words and a MinHash signature of
its word shingles (datasketch's ``MinHash``), from the plain main text whatever the output format."""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from datasketch import MinHash

from ..page.tokens import words
from ..result import ExtractionResult

#: permutations of the MinHash signature: 64 estimate a similarity within about ±0.06 (one standard
#: deviation at 0.5), at half the cost of 128
NUM_PERM = 64
#: characters of the plain text fingerprinted (about 650 words): a story is known by its first
#: paragraphs, and a long page costs no more than that
MAX_CHARS = 4000
#: words per shingle: long enough that two distinct articles on one topic share few shingles
SHINGLE_WORDS = 5
#: seed of the permutations: every process and every machine must draw the same ones
SEED = 1
#: datasketch's permutation scheme (its default since 2.0): 32-bit values, so a signature packs in 4 bytes each
SCHEME = "affine32"
#: multiplier of the rolling shingle hash (an odd 32-bit constant; datasketch mixes the result again)
_ROLL = np.uint64(0x9E3779B1)
_MASK = np.uint64(0xFFFFFFFF)
#: code points of a word that its hash reads (longer words are told apart by their first 16)
WORD_CHARS = 16
#: weights of the code points in a word's polynomial hash (powers of a large odd number, mod 2**64)
_CHAR_WEIGHTS = np.array([pow(0x100000001B3, i, 2**64) for i in range(WORD_CHARS)], dtype=np.uint64)


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """``exact``: digest of the normalised words; ``minhash``: datasketch's signature of the word
    shingles; ``words``: how many words the text has (0: nothing to compare)."""

    exact: bytes
    minhash: MinHash
    words: int

    @property
    def signature(self) -> np.ndarray:
        """The MinHash values (``NUM_PERM`` unsigned 32-bit integers)."""
        return self.minhash.hashvalues

    def similarity(self, other: Fingerprint) -> float:
        """Estimated Jaccard similarity of the two texts' shingle sets (1.0 for the same words)."""
        if self.exact == other.exact:
            return 1.0
        return float(np.count_nonzero(self.signature == other.signature)) / len(self.signature)


def normalised_words(text: str) -> list[str]:
    """The words of ``text`` (the package's one tokeniser), NFKC-folded and case-folded: what two
    copies of a story share whatever their typography."""
    return words(unicodedata.normalize("NFKC", text).casefold())


def fingerprint(text: str) -> Fingerprint:
    """The fingerprint of an article's plain main text (its first ``MAX_CHARS`` characters)."""
    tokens = normalised_words(text[:MAX_CHARS])
    exact = hashlib.blake2b(" ".join(tokens).encode("utf-8"), digest_size=16).digest()
    shingles = _shingle_hashes(tokens)
    signature = MinHash(num_perm=NUM_PERM, seed=SEED, hashfunc=int, permutations=_permutations(), scheme=SCHEME)
    signature.update_batch(shingles.tolist())
    return Fingerprint(exact, signature, len(tokens))


def plain_text_of(result: ExtractionResult) -> str:
    """The result's main text as plain text (``plain_text`` holds it when the output format is another)."""
    return result.text if result.output_format == "text" else result.plain_text


def _shingle_hashes(tokens: list[str]) -> np.ndarray:
    """32-bit hashes of every run of ``SHINGLE_WORDS`` words (one run for a shorter text), in numpy:
    each word's first ``WORD_CHARS`` code points hashed as a polynomial, then the words of a run rolled
    together; stable across processes and machines, unlike Python's ``hash``."""
    if not tokens:
        return np.zeros(0, dtype=np.uint64)
    codes = np.array(tokens, dtype=f"<U{WORD_CHARS}").view(np.uint32).reshape(len(tokens), WORD_CHARS)
    hashed = (codes.astype(np.uint64) * _CHAR_WEIGHTS).sum(axis=1)
    hashed = (hashed ^ (hashed >> np.uint64(32))) & _MASK
    width = min(SHINGLE_WORDS, len(hashed))
    rolled = np.zeros(len(hashed) - width + 1, dtype=np.uint64)
    for offset in range(width):
        rolled = ((rolled * _ROLL) + hashed[offset : offset + len(rolled)]) & _MASK
    return rolled


@lru_cache(maxsize=1)
def _permutations() -> tuple[np.ndarray, np.ndarray]:
    """The permutations of ``NUM_PERM`` and ``SEED``, drawn once per process."""
    return MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME).permutations
