"""Reader comments: the paragraphs of a comment thread, given apart from the main text.

A paragraph is a comment when it is not main text, comes after the main text's first paragraph,
and either sits in a container whose class/id names a comment thread, or follows a comment-thread
header ("20 Responses to …", "Kommentare") as part of a repeated record (one entry of a thread). Page
furniture (reply buttons, counters, the header itself), prompts, forms ("Leave a reply", the name
and e-mail boxes) and link lists are left out, and a thread with fewer than two paragraphs of prose (a
comment form and its notice, an empty "0 comments" box) gives nothing.

A selection that reached into the thread gives it back to the judge (``without_comments``): a page is
judged on its article, however long the thread below it. The main text keeps what the selection
chose: a thread told wrongly would take an article's own paragraphs with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from .units import Paragraphs

#: comment text with at least this share of link text is a link list, not a comment
MAX_LINK_SHARE = 0.5

#: a comment of prose has at least this many characters and ends a sentence
PROSE_CHARS = 20
#: a thread has at least this many paragraphs of prose (one alone is a form's notice)
PROSE_PARAGRAPHS = 2


def without_comments(paras: Paragraphs, selected: Sequence[int]) -> list[int]:
    """``selected`` without the paragraphs of a comment thread it reached into (the same test as
    ``comment_paragraphs``: after the first selected paragraph, in a comment container or a repeated
    record after a comment-thread header, and a thread of at least two paragraphs of prose)."""
    if len(selected) < 2 or not paras.candidates:
        return list(selected)
    first = min(selected)
    position = {i: k for k, i in enumerate(paras.candidates)}
    column = paras.rows.column
    in_comments, after_header, repeats, sentences = (
        column(name) for name in ("in_comments", "after_comments_header", "log_record_repeats", "log_sentences")
    )
    thread = set()
    prose = 0
    for i in selected:
        k = position.get(i)
        if i <= first or k is None:
            continue
        if in_comments[k] or (after_header[k] and repeats[k]):
            thread.add(i)
            prose += paras.chars[i] >= PROSE_CHARS and sentences[k] > 0
    if prose < PROSE_PARAGRAPHS:
        return list(selected)
    return [i for i in selected if i not in thread]


def comment_paragraphs(paras: Paragraphs, selected: Sequence[int]) -> list[int]:
    """Indices of the paragraphs that are reader comments, ascending (none when nothing is selected)."""
    if not selected:
        return []
    chosen = set(selected)
    first = min(chosen)
    found = []
    prose = 0
    column = paras.rows.column
    in_form, prompt, in_comments, after_header, repeats, sentences = (
        column(name).tolist()
        for name in ("in_form", "prompt", "in_comments", "after_comments_header", "log_record_repeats", "log_sentences")
    )
    for k, i in enumerate(paras.candidates):
        if i <= first or i in chosen or i in paras.furniture or in_form[k] or prompt[k]:
            continue
        if paras.link_chars[i] > MAX_LINK_SHARE * max(paras.chars[i], 1):
            continue
        if in_comments[k] or (after_header[k] and repeats[k]):
            found.append(i)
            prose += paras.chars[i] >= PROSE_CHARS and sentences[k] > 0
    return found if prose >= PROSE_PARAGRAPHS else []
