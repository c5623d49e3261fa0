"""bodytext: the recommended default method (first version: best node by non-link text density)."""

from __future__ import annotations

from dataclasses import dataclass

from ..document import Document
from ..render import render_elements
from . import Extraction

NAME = "bodytext"


@dataclass(frozen=True)
class Options:
    """Options of the default method."""


def extract(doc: Document, options: Options) -> Extraction:
    chars = doc.prefix("chars")
    links = doc.prefix("link_chars")
    markup = doc.prefix("markup")
    starts, ends, slot_ends = doc.slot_starts, doc.ends, doc.slot_ends
    total_valid = chars[-1] - links[-1]
    if total_valid <= 0:
        return Extraction("", 0.0, "no text outside links")
    best, best_score = -1, 0.0
    for e in range(len(doc.tags)):
        t = chars[slot_ends[e]] - chars[starts[e]]
        if t == 0:
            continue
        vt = t - (links[slot_ends[e]] - links[starts[e]])
        s = markup[ends[e]] - markup[e] + t
        score = t * vt / s
        if score > best_score:
            best, best_score = e, score
    if best < 0:
        return Extraction("", 0.0, "no text")
    t = chars[slot_ends[best]] - chars[starts[best]]
    vt = t - (links[slot_ends[best]] - links[starts[best]])
    s = markup[ends[best]] - markup[best] + t
    p = (t / s) * (vt / total_valid)
    return Extraction(render_elements(doc, [best]), p, f"node <{doc.tags[best]}> P={p:.2f}")
