"""How a site's evidence and a page's own probability combine: a small logistic model whose features
are read by name and whose weights and thresholds are in ``weights.json`` beside this module, fitted
by ``python -m scrapy_bodytext.training.site_memory`` leaving one site out (docs/site-memory.md)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..config import DEFAULT_THRESHOLD
from ..extractors.probability import logit, sigmoid
from ..page.signature import SIGNALS

WEIGHTS_FILE = Path(__file__).with_name("weights.json")

#: the features of the combination, in the order of the weights file, each with the sign its weight
#: is held to in the fit (+1: never negative, -1: never positive, 0: free): more confident articles
#: of a page's shape, date-anchored shape or template never lower its probability, evidence against
#: (non-articles of its keys, none of its keys among many articles, a signal its site's articles
#: lack) never raises it
FEATURES = (
    "page_logit",  # the page's own article probability, as a logit
    "shape_articles",  # log(1 + confident articles of the site with the page's URL shape)
    "coarse_articles",  # the same for the coarse shape (every word segment alike)
    "dated_articles",  # ... for the date-anchored shape (from the year on; 0 without a date)
    "template_articles",  # ... and for the page's template signature
    "shape_share",  # log(1 + the site's confident articles) times the share of them with the page's shape
    "coarse_share",  # ... with its coarse shape
    "dated_share",  # ... with its date-anchored shape
    "template_share",  # ... with its template
    "shape_others",  # log(1 + confident non-articles of the page's shape)
    "coarse_others",
    "dated_others",
    "template_others",
    "unmatched",  # log(1 + the site's confident articles) when none has its shape, coarse or dated shape, template
    "novel_shape",  # log(1 + confident articles of the site) when none of them has the page's shape, else 0
    "novel_template",  # ... none has its template
    "signal_lacking",  # log(1 + the site's confident articles) times the signals the page shows they lack
    "signal_missing",  # ... times the signals nearly all of them show that the page lacks
    "article_links",  # log(1 + links of the selection to URLs of the site's article shapes)
)
SIGNS = {
    "page_logit": 0,
    "shape_articles": 1,
    "coarse_articles": 1,
    "dated_articles": 1,
    "template_articles": 1,
    "shape_share": 1,
    "coarse_share": 1,
    "dated_share": 1,
    "template_share": 1,
    "shape_others": -1,
    "coarse_others": -1,
    "dated_others": -1,
    "template_others": -1,
    "unmatched": -1,
    "novel_shape": -1,
    "novel_template": -1,
    "signal_lacking": -1,
    "signal_missing": -1,
    "article_links": 0,
}
#: a page-level signal is judged against a site from this many confident articles; the site's
#: articles lack it when at most ``SIGNAL_RARE`` of them show it, and nearly all show it when at
#: least ``SIGNAL_COMMON`` do
SIGNAL_ARTICLES, SIGNAL_RARE, SIGNAL_COMMON = 10, 0.1, 0.9
#: the even odds of the site's article probability: the fitted combination's decision point is moved
#: there, and a page the memory knows nothing of keeps its own probability; whether a page is an
#: article is then ``probability >= threshold`` with the caller's threshold
DECISION = DEFAULT_THRESHOLD
#: the page's probability is kept inside [EPSILON, 1 - EPSILON] before its logit is taken
EPSILON = 1e-3


@dataclass(frozen=True, slots=True)
class Counts:
    """What a site's memory holds about one page, the page itself never counted: confident articles
    and non-articles of the site, of its shape, coarse shape and template, and the selection's
    links to the site's article shapes."""

    site: tuple[int, int] = (0, 0)
    shape: tuple[int, int] = (0, 0)
    coarse: tuple[int, int] = (0, 0)
    template: tuple[int, int] = (0, 0)
    links: int = 0
    dated: tuple[int, int] = (0, 0)  # of the date-anchored shape ((0, 0) for a page without a date)
    shown: tuple[bool, ...] = ()  # per signal of ``page.signature.SIGNALS``: whether the page shows it
    signals: tuple[int, ...] = ()  # per signal: the site's confident articles that show it


def signal_verdicts(counts: Counts) -> tuple[int, int]:
    """How many signals the page shows that its site's confident articles lack (at most
    ``SIGNAL_RARE`` of them show it), and how many nearly all of them show (at least
    ``SIGNAL_COMMON``) that the page lacks; none before the site has ``SIGNAL_ARTICLES`` articles."""
    articles = counts.site[0]
    if articles < SIGNAL_ARTICLES:
        return 0, 0
    lacking = missing = 0
    for shown, showing in zip(counts.shown, counts.signals):
        share = showing / articles
        if shown and share <= SIGNAL_RARE:
            lacking += 1
        elif not shown and share >= SIGNAL_COMMON:
            missing += 1
    return lacking, missing


def features(page_probability: float, counts: Counts) -> dict[str, float]:
    """The named features of a page given its site's counts."""
    site = math.log1p(counts.site[0])
    articles = max(1, counts.site[0])
    lacking, missing = signal_verdicts(counts)
    matched = counts.shape[0] or counts.coarse[0] or counts.dated[0] or counts.template[0]
    return {
        "page_logit": logit(page_probability, EPSILON),
        "shape_articles": math.log1p(counts.shape[0]),
        "coarse_articles": math.log1p(counts.coarse[0]),
        "dated_articles": math.log1p(counts.dated[0]),
        "template_articles": math.log1p(counts.template[0]),
        "shape_share": site * counts.shape[0] / articles,
        "coarse_share": site * counts.coarse[0] / articles,
        "dated_share": site * counts.dated[0] / articles,
        "template_share": site * counts.template[0] / articles,
        "shape_others": math.log1p(counts.shape[1]),
        "coarse_others": math.log1p(counts.coarse[1]),
        "dated_others": math.log1p(counts.dated[1]),
        "template_others": math.log1p(counts.template[1]),
        "unmatched": 0.0 if matched else site,
        "novel_shape": site if not counts.shape[0] else 0.0,
        "novel_template": site if not counts.template[0] else 0.0,
        "signal_lacking": site * lacking,
        "signal_missing": site * missing,
        "article_links": math.log1p(counts.links),
    }


@dataclass(frozen=True)
class Weights:
    """The fitted combination and the thresholds chosen with it.

    ``confident``: a page probability from which (and, for non-articles, up to one minus which) a
    verdict is evidence for the site (see ``SiteMemory.teaches``: ``teaching_links`` links to the site's
    pages at ``teaching_density`` per 1000 characters make a list); a non-article, when the site's
    evidence does not overturn it (the combined
    probability on the same side of ``agreement``, the even odds of the fit, each class weighing the
    same); ``threshold``: the combined probability from which a page is an
    article; ``min_evidence``: confident verdicts a site needs before an uncertain page is settled;
    ``boilerplate_share`` and ``boilerplate_count``: a line is the site's furniture when it recurs on
    at least that share and that number of the site's stored articles.
    """

    bias: float = 0.0
    weights: dict[str, float] = field(default_factory=lambda: {"page_logit": 1.0})
    threshold: float = 0.5
    confident: float = 0.9
    agreement: float = 0.5
    min_evidence: int = 20
    teaching_links: int = 10
    teaching_density: float = 3.0
    boilerplate_share: float = 0.5
    boilerplate_count: int = 10
    fitted: dict = field(default_factory=dict)

    def probability(self, named: dict[str, float]) -> float:
        """The fitted combination's own article probability (its decision point is ``threshold``)."""
        return float(sigmoid(self.bias + sum(w * named[name] for name, w in self.weights.items())))

    def site_probability(self, page_probability: float, named: dict[str, float], known: int) -> float:
        """The article probability after site evidence, decided at ``DECISION``: the fitted
        combination (moved so that its threshold falls on ``DECISION``) weighed with the page's own
        probability by how much the site has taught of its articles, ``known`` confident articles out
        of ``min_evidence`` (a site known by its lists alone says little of what its posts look like). A site the memory knows nothing of leaves the page's own probability as it
        is: the combination was fitted on pages of sites it knew, and the absence of evidence is no
        evidence against a page."""
        share = min(1.0, known / self.min_evidence) if self.min_evidence > 0 else 1.0
        if share <= 0.0:
            return float(page_probability)
        combined = logit(self.probability(named), EPSILON) - logit(self.threshold, EPSILON)
        own = logit(page_probability, EPSILON) - logit(DECISION, EPSILON)
        return float(sigmoid((1.0 - share) * own + share * combined + logit(DECISION, EPSILON)))

    def to_json(self) -> dict:
        return {
            "features": list(FEATURES),
            "bias": self.bias,
            "weights": {name: self.weights.get(name, 0.0) for name in FEATURES},
            "threshold": self.threshold,
            "confident": self.confident,
            "agreement": self.agreement,
            "min_evidence": self.min_evidence,
            "teaching_links": self.teaching_links,
            "teaching_density": self.teaching_density,
            "boilerplate_share": self.boilerplate_share,
            "boilerplate_count": self.boilerplate_count,
            "fitted": self.fitted,
        }

    @classmethod
    def from_json(cls, data: dict) -> Weights:
        unknown = set(data.get("weights", {})) - set(FEATURES)
        if unknown:
            raise ValueError(f"site-memory weights name unknown features: {', '.join(sorted(unknown))}")
        against = [name for name, value in data["weights"].items() if SIGNS[name] * float(value) < 0]
        if against:  # the combination would work against its own evidence
            raise ValueError(f"site-memory weights of the wrong sign (see verdict.SIGNS): {', '.join(sorted(against))}")
        return cls(
            bias=float(data["bias"]),
            weights={name: float(value) for name, value in data["weights"].items() if value},
            threshold=float(data["threshold"]),
            confident=float(data["confident"]),
            agreement=float(data["agreement"]),
            min_evidence=int(data["min_evidence"]),
            teaching_links=int(data["teaching_links"]),
            teaching_density=float(data["teaching_density"]),
            boilerplate_share=float(data["boilerplate_share"]),
            boilerplate_count=int(data["boilerplate_count"]),
            fitted=dict(data.get("fitted", {})),
        )


@lru_cache(maxsize=1)
def load_weights() -> Weights:
    """The shipped weights (``weights.json``); the defaults when the file is missing."""
    if not WEIGHTS_FILE.is_file():
        return Weights()
    return Weights.from_json(json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class SiteVerdict:
    """A page's verdict after its site's evidence, typed: what the memory weighed is read from its
    fields, and the display ``evidence`` (the item's ``site_evidence``) is built from them.

    ``probability``: the article probability with the site's evidence (its even odds, 0.5, are the
    fitted decision point); ``page_probability``: the page's own; ``is_article``: ``probability`` at or
    above the caller's threshold; ``settled``: False when the page is not a confident non-article and
    its site has too little evidence yet (fewer than ``Weights.min_evidence`` confident verdicts): a
    caller may hold it and judge it again later; ``site``: the memory's key of its site; ``keys`` and
    ``counts``: what it is counted under and what its site holds of it (None: not weighed); ``capped``:
    why the site may not raise it ("" when it may); ``site_links``: links of its selection to other
    pages of its site; ``why``: one line saying what moved it; ``unavailable``: the store's failure
    when the memory could not be asked.
    """

    probability: float
    page_probability: float
    is_article: bool
    settled: bool
    site: str = ""
    keys: Any = field(default=None, compare=False, repr=False)  # evidence.PageKeys
    counts: Counts | None = None
    capped: str = ""
    site_links: int = 0
    why: str = ""
    unavailable: str = ""

    @property
    def evidence(self) -> dict:
        """What was weighed and why, as plain values (the item's ``site_evidence``)."""
        found: dict[str, Any] = {"site": self.site}
        if self.unavailable:
            found["unavailable"] = self.unavailable
        if self.counts is None or self.keys is None:
            return found
        counts, keys = self.counts, self.keys
        found.update(
            {
                "shape": keys.shape,
                "dated_shape": keys.dated,
                "template": keys.template,
                "counts": {
                    "site": list(counts.site),
                    "shape": list(counts.shape),
                    "coarse": list(counts.coarse),
                    "dated": list(counts.dated),
                    "template": list(counts.template),
                    "signals": dict(zip(SIGNALS, counts.signals)),
                },
                "signals": list(keys.signals),
                "links": counts.links,
                "site_links": self.site_links,
                "page_probability": round(self.page_probability, 4),
                "why": self.why,
            }
        )
        if self.capped:
            found["capped"] = self.capped
        return found
