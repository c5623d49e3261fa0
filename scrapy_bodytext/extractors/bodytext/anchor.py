"""The title anchor: the heading that shows the page's title, where a reader starts the article.

A page names its article twice, in ``<title>`` (or ``og:title``) and in the heading above the body;
the heading that shows that title is the anchor, and the region around it that holds prose is the
article's. A comment thread or a sidebar may hold more prose than a short post, but it is not under
the post's title. The headline itself is the ``title`` field of the result, not main text (most gold
texts leave it out): the second pass knows which heading it is (``context``).
"""

from __future__ import annotations

from ...metadata.title import MIN_HEADLINE_SHARE, letters, shows_title
from ...page.document import Document


def title_anchor(doc: Document, candidates: list[int], heading: list[bool], texts: list[str]) -> int:
    """The first heading paragraph among ``candidates`` whose text (``texts``, one per candidate) shows the page's
    ``og:title`` or ``<title>`` and is not a small part of it (a site's name in a heading is not
    the headline); -1 when none does."""
    keys = [key for key in (letters(doc.og_title), letters(doc.title)) if key]
    if not keys:
        return -1
    for i, text in zip(candidates, texts):
        if heading[i]:
            shown = letters(text)
            if any(shows_title(shown, key) and len(shown) >= MIN_HEADLINE_SHARE * len(key) for key in keys):
                return i
    return -1
