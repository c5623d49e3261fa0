"""How a site's evidence and a page's own probability combine: a small logistic model whose features
are read by name and whose weights and thresholds are in ``weights.json`` beside this module, fitted
by ``python -m scrapy_bodytext.training.site_memory`` leaving one site out (docs/site-memory.md)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..config import DEFAULT_THRESHOLD
from ..extractors.probability import logit, sigmoid

WEIGHTS_FILE = Path(__file__).with_name("weights.json")

#: the features of the combination, in the order of the weights file
FEATURES = (
    "page_logit",  # the page's own article probability, as a logit
    "shape_articles",  # log(1 + confident articles of the site with the page's URL shape)
    "shape_others",  # log(1 + confident non-articles of that shape)
    "coarse_articles",  # the same for the coarse shape (every word segment alike)
    "coarse_others",
    "template_articles",  # ... and for the page's template signature
    "template_others",
    "novel_shape",  # log(1 + confident articles of the site) when none of them has the page's shape, else 0
    "novel_coarse",  # ... none has its coarse shape
    "novel_template",  # ... none has its template
    "shape_share",  # log(1 + the site's confident articles) times the share of them with the page's shape
    "coarse_share",  # ... with its coarse shape
    "template_share",  # ... with its template
    "article_links",  # log(1 + links of the selection to URLs of the site's article shapes)
)
#: the site's article probability from which a page is an article (the plugin's default threshold)
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


def features(page_probability: float, counts: Counts) -> dict[str, float]:
    """The named features of a page given its site's counts."""
    site = math.log1p(counts.site[0])
    articles = max(1, counts.site[0])
    return {
        "page_logit": logit(page_probability, EPSILON),
        "shape_articles": math.log1p(counts.shape[0]),
        "shape_others": math.log1p(counts.shape[1]),
        "coarse_articles": math.log1p(counts.coarse[0]),
        "coarse_others": math.log1p(counts.coarse[1]),
        "template_articles": math.log1p(counts.template[0]),
        "template_others": math.log1p(counts.template[1]),
        "novel_shape": site if not counts.shape[0] else 0.0,
        "novel_coarse": site if not counts.coarse[0] else 0.0,
        "novel_template": site if not counts.template[0] else 0.0,
        "shape_share": site * counts.shape[0] / articles,
        "coarse_share": site * counts.coarse[0] / articles,
        "template_share": site * counts.template[0] / articles,
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
        probability by how much the site has taught, ``known`` confident verdicts out of
        ``min_evidence``. A site the memory knows nothing of leaves the page's own probability as it
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
    """A page's verdict after its site's evidence.

    ``probability``: the article probability with the site's evidence; ``page_probability``: the
    page's own; ``is_article``: ``probability`` at or above ``DECISION``; ``settled``: False
    when the page is not a confident non-article and its site has too little evidence yet (fewer than
    ``Weights.min_evidence`` confident verdicts): a caller may hold it and ``judge`` it again later;
    ``evidence``: what was weighed and why (the item's ``site_evidence``).
    """

    probability: float
    page_probability: float
    is_article: bool
    settled: bool
    evidence: dict = field(default_factory=dict, hash=False)
