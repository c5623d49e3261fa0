"""What the pipeline decided for one judged page, read once from its final result, so that its log
line, its stats, its review-feed record and its stored item say the same: the final article
probability, the threshold it was compared with, the outcome, and which judge decided (the page
alone, or the page with its site's evidence, and why)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: judges of a page: its own verdict, or its own weighed with its site's evidence (BODYTEXT_SITE_MEMORY)
PAGE, SITE = "page", "site"
#: probabilities closer than this are the same (``site_evidence`` keeps the page's own to 4 digits)
SAME_PROBABILITY = 5e-5
#: |probability - threshold| within the review band, give or take the rounding of a float
BAND_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Decision:
    """One page's decision: ``article_probability`` (final) against ``threshold``; ``is_article``
    the verdict; ``decided_by`` "page" or "site"; ``why`` the site's evidence when the site decided
    ("" otherwise)."""

    article_probability: float
    threshold: float
    is_article: bool
    decided_by: str = PAGE
    why: str = ""

    @classmethod
    def of(cls, result: Any, threshold: float) -> Decision:
        """The decision a (judged) result holds: ``debug["site_evidence"]["decided_by"]`` names the
        judge; without it, the site decided when its evidence moved the page's probability."""
        evidence = result.debug.get("site_evidence") if isinstance(result.debug, dict) else None
        decided_by, why = PAGE, ""
        if isinstance(evidence, dict):
            named = evidence.get("decided_by")
            if named in (PAGE, SITE):
                decided_by = named
            else:
                own = evidence.get("page_probability", result.article_probability)
                moved = isinstance(own, (int, float)) and abs(own - result.article_probability) > SAME_PROBABILITY
                decided_by = SITE if moved else PAGE
            if decided_by == SITE:
                why = str(evidence.get("why") or "")
        return cls(float(result.article_probability), float(threshold), bool(result.is_article), decided_by, why)

    @property
    def comparison(self) -> str:
        """``0.13 < 0.50`` or ``0.72 >= 0.50``: the sign the two figures have (more digits where two
        decimals would show them equal on the wrong side)."""
        probability, threshold = self.article_probability, self.threshold
        sign = ">=" if probability >= threshold else "<"
        digits = 2
        while digits < 6 and probability != threshold and f"{probability:.{digits}f}" == f"{threshold:.{digits}f}":
            digits += 1
        return f"{probability:.{digits}f} {sign} {threshold:.{digits}f}"

    @property
    def judge(self) -> str:
        """Who decided, in words: ``the page`` or ``the page with its site: <why>``."""
        if self.decided_by == SITE:
            return "the page with its site" + (f": {self.why}" if self.why else "")
        return "the page"

    def near(self, band: float) -> bool:
        """Whether the final probability lies within ``band`` of the threshold (listed for review)."""
        return abs(self.article_probability - self.threshold) <= band + BAND_TOLERANCE
