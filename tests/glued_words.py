"""Glued words: a capitalised word stuck to the word before it in extracted text (``focusedNotion``,
``MeinungHandelspolitik``) where the page holds the two as separate text nodes but never together.

Defined from the page alone, whatever the renderer does: the output word is in no text node of the
page, it splits into a part ending in a letter or digit and a part starting with an uppercase
letter, and both parts are words of the page's text nodes.
"""

from __future__ import annotations

import re

from lxml import html

_WORD = re.compile(r"\w+")


def page_words(body: bytes) -> set[str]:
    """The words of every text node of the page, each node on its own."""
    words: set[str] = set()
    for text in html.fromstring(body).itertext():
        words.update(_WORD.findall(text))
    return words


def glued_words(text: str, words: set[str]) -> list[str]:
    """Words of ``text`` glued from two words of the page (see the module docstring)."""
    glued = []
    for word in _WORD.findall(text):
        if word in words:
            continue
        if any(
            word[i].isupper() and word[i - 1].isalnum() and word[:i] in words and word[i:] in words
            for i in range(1, len(word))
        ):
            glued.append(word)
    return glued
