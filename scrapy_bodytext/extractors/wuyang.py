"""Wu & Yang (IIAI-AAI 2012; Wu, JIIS 2016): candidate blocks scored by a stop-word language model
times HTML penalty functions; the best block is accepted above a threshold.

RECONSTRUCTION: only the abstracts are reachable, which name the ingredients but not the formulas,
the candidate detector, the weights or the threshold. This module implements the reconstruction of
docs/methods.md#wuyang (built from jusText's stop-word density and CETD/P value's link penalty), not
the authors' published formulas.

For a block b with n tokens, s of them stop words of the page's language (``language.py``), link
density ld (anchor characters / characters) and tag density td (tag tokens / tokens):

    Score(b) = LM(b) · pen(b),   LM(b) = s · d = s²/n  with d = s/n,
    pen(b)   = (1 − ld) · 1/(1 + γ·td) · (0.5 if b holds a form control else 1)

Candidates are ``body article main section div td table blockquote ul ol`` elements with at least
``min_chars`` characters and one paragraph (a run of text between block boundaries) of at least
``paragraph_tokens`` tokens; nested candidates compete, ties go to the deeper one. The best block is
accepted iff d ≥ θ_d, s ≥ θ_s and ld ≤ ``max_link_density``; its text is returned either way, and
the article probability is the logistic σ(a·(d − θ_d) + b·ln(s/θ_s) − c·ld), at most 0.49 when the
threshold rejects the block. Pages without stop-word evidence (no language found) fall back to the
candidate of largest region P (docs/methods.md#region-p), whose region P is then the probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import accumulate

from ..page import language
from ..page.document import VOID_TAGS, Document
from . import Extraction
from .options import check_choice, check_number
from .probability import sigmoid
from .regionp import element_region_p

NAME = "wuyang"

CANDIDATE_TAGS = frozenset("body article main section div td table blockquote ul ol".split())
#: a block holding one of these gets the form penalty (docs/methods.md#wuyang-score)
FORM_TAGS = frozenset(("form", "input", "select", "button", "textarea"))

#: logistic weights of the article probability (first guesses a=20, b=1, c=4:
#: docs/methods.md#wuyang-decision-and-probability), refitted on the dev corpus labels by
#: ``python scripts/calibrate_wuyang.py`` (class-balanced logistic regression, no intercept). b came
#: out negative: the best blocks of the dev non-articles (section pages, legal pages) hold more stop
#: words than the typical article, so only d and ld carry the evidence there.
LOGISTIC_A = 5.0500
LOGISTIC_B = -0.2654
LOGISTIC_C = 4.4281
#: probability ceiling of a block the threshold rejects
REJECTED_MAX = 0.49


@dataclass(frozen=True)
class Options:
    """Options of the Wu & Yang reconstruction (every value is the reconstruction's:
    docs/methods.md#wuyang-options).

    - ``min_chars`` (100) / ``min_chars_cjk`` (50): characters a candidate block needs; the CJK value
      applies to Chinese and Japanese pages.
    - ``paragraph_tokens`` (20): a candidate holds a paragraph of at least this many tokens.
    - ``gamma`` (0.5): weight γ of the tag density in the penalty.
    - ``form_penalty`` (0.5): factor for a block holding form controls.
    - ``theta_d`` (0.20): minimum stop-word density d of the accepted block.
    - ``theta_s`` (15) / ``theta_s_cjk`` (30): minimum number of stop words s of the accepted block.
    - ``max_link_density`` (0.5): maximum link density of the accepted block.
    - ``language`` (None: chosen from the page by ``language.detect_language``): an ISO 639-1 code
      with a stop-word list, to force the language.
    """

    min_chars: int = 100
    min_chars_cjk: int = 50
    paragraph_tokens: int = 20
    gamma: float = 0.5
    form_penalty: float = 0.5
    theta_d: float = 0.20
    theta_s: int = 15
    theta_s_cjk: int = 30
    max_link_density: float = 0.5
    language: str | None = None

    def __post_init__(self) -> None:
        check_number(
            self, "min_chars", "min_chars_cjk", "paragraph_tokens", "theta_s", "theta_s_cjk", integer=True, minimum=0
        )
        check_number(self, "gamma", minimum=0)
        check_number(self, "form_penalty", "theta_d", "max_link_density", minimum=0, maximum=1)
        check_choice(self, "language", language.supported(), optional=True)


def block_score(n: int, s: int, link_density: float, tag_density: float, has_form: bool, options: Options) -> float:
    """Score(b) = s²/n · (1 − ld) · 1/(1 + γ·td) · (form penalty if b holds a form control)."""
    if n <= 0:
        return 0.0
    penalty = (1 - link_density) / (1 + options.gamma * tag_density)
    return s * s / n * penalty * (options.form_penalty if has_form else 1.0)


def article_probability(d: float, s: int, link_density: float, theta_d: float, theta_s: int) -> float:
    """σ(a·(d − θ_d) + b·ln(s/θ_s) − c·ld) with the fitted module constants."""
    z = LOGISTIC_A * (d - theta_d) + LOGISTIC_B * math.log(max(s, 1) / theta_s) - LOGISTIC_C * link_density
    return sigmoid(z)


def extract(doc: Document, options: Options) -> Extraction:
    lang = options.language or language.detect_language(doc)
    cjk = lang in language.CHARACTER_LANGUAGES
    min_chars = options.min_chars_cjk if cjk else options.min_chars
    theta_s = options.theta_s_cjk if cjk else options.theta_s
    tokens = [0, *accumulate(language.token_counts(doc, lang))]
    stops = [0, *accumulate(language.stopword_counts(doc, lang))]
    chars, links = doc.prefix("chars"), doc.prefix("link_chars")
    tags, ends, starts, slot_ends = doc.tags, doc.ends, doc.slot_starts, doc.slot_ends
    tag_tokens = [0, *accumulate(1 if tag in VOID_TAGS else 2 for tag in tags)]
    forms = [0, *accumulate(tag in FORM_TAGS for tag in tags)]
    paragraph_end = _first_long_paragraph_end(doc, tokens, options.paragraph_tokens)
    doc.check_time()

    best, best_score = -1, -1.0
    for e, tag in enumerate(tags):
        if tag not in CANDIDATE_TAGS:
            continue
        first, end = starts[e], slot_ends[e]
        c = chars[end] - chars[first]
        if c < min_chars or paragraph_end[first] > end:
            continue
        if lang is None:  # no stop-word evidence: region P decides (docs/methods.md#wuyang-without-stop-words)
            score = element_region_p(doc, e)
        else:
            n = tokens[end] - tokens[first]
            score = block_score(
                n,
                stops[end] - stops[first],
                (links[end] - links[first]) / c,
                (tag_tokens[ends[e]] - tag_tokens[e]) / max(n, 1),
                forms[ends[e]] > forms[e],
                options,
            )
        if score >= best_score:  # pre-order: on equal scores the deeper block wins
            best, best_score = e, score
    if best < 0:
        return Extraction((), 0.0, f"no candidate block (language {lang})", language=lang)
    slots = range(starts[best], slot_ends[best])
    region = element_region_p(doc, best)
    if lang is None:
        return Extraction(
            slots, region, f"<{tags[best]}>, no stop-word language: region P={region:.2f}", debug={"region_p": region}
        )
    first, end = starts[best], slot_ends[best]
    n, s = tokens[end] - tokens[first], stops[end] - stops[first]
    d = s / n if n else 0.0
    ld = (links[end] - links[first]) / max(chars[end] - chars[first], 1)
    accepted = d >= options.theta_d and s >= theta_s and ld <= options.max_link_density
    probability = article_probability(d, s, ld, options.theta_d, theta_s)
    if not accepted:  # the threshold rejected the block: not an article at the default threshold
        probability = min(probability, REJECTED_MAX)
    return Extraction(
        slots,
        probability,
        f"<{tags[best]}> {'accepted' if accepted else 'rejected'}: language {lang}, d={d:.2f}, s={s}, ld={ld:.2f}",
        language=lang,
        debug={
            "region_p": region,
            "d": d,
            "s": s,
            "ld": ld,
            "accepted": accepted,
            "theta_d": options.theta_d,
            "theta_s": theta_s,
        },
    )


def _first_long_paragraph_end(doc: Document, tokens: list[int], minimum: int) -> list[int]:
    """For each slot i, the end (exclusive slot index) of the first paragraph of ≥ ``minimum`` tokens
    starting at or after i (len(slots) + 1 when there is none). Paragraphs break at block and cell
    boundaries."""
    breaks = doc.breaks
    count = len(breaks)
    result = [count + 1] * (count + 1)
    end = count
    following = count + 1
    for slot in range(count - 1, -1, -1):
        if slot == 0 or breaks[slot]:  # a paragraph spans slot .. end-1
            if tokens[end] - tokens[slot] >= minimum:
                following = end
            result[slot] = following
            end = slot
        else:
            result[slot] = following
    return result
