"""The model of the default method and its file format, ``model.json``: the one owner of both.

The training harness (``python -m scrapy_bodytext.training``) fits these very classes and writes
them with ``to_json``; the method reads them back with ``from_json``. The file holds, by feature
name:

* ``first_pass``: logistic weights over ``units.FEATURES``;
* ``second_pass``: logistic weights and boosted oblivious trees (each a list of ``[feature,
  threshold]`` questions and ``2**depth`` leaf values) over ``units.FEATURES`` + ``context.FEATURES``;
  the paragraph probability is the mean of the two;
* ``selection``: the paragraph cut and the recall guard (``guard``: share, cut, prose_ratio, anchor_ratio);
* ``article``: the page-type judge, multinomial logistic weights over ``page.FEATURES`` per page
  type (``page.PAGE_TYPES``; the types it was fitted on); ``article_trees`` (where present): boosted
  trees of the article share over the same features (``judge.Forest``), whose share then replaces the
  logistic model's (the other types keep their order); ``calibration``: the Platt scaling of its
  article share into the article probability, and ``decision``: the article probability from which
  a page is typed an article (chosen out of fold so that at most 1 % of the articles are lost;
  pages typed so below 0.5 go to the review feed);
* ``about``: when and on what it was fitted, its settings, its out-of-fold figures, and the
  fingerprints of the corpus, of the source and of the features' values (``feature_fingerprint``,
  checked by the tests against the code: ``scrapy_bodytext.training.fingerprint``).

Names are checked against the features the code computes when the file is read, so a model and a
feature set that disagree fail loudly rather than score silently wrong; each part keeps its own
order of names and reads its columns from a feature ``Table`` by name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any, Self

import numpy as np

from ..probability import Platt, sigmoid, softmax
from . import context, page, units
from .judge import Forest, TypeShares
from .table import ModelError, Table, differences

MODEL_FILE = Path(__file__).with_name("model.json")
FIRST_FEATURES = units.FEATURES
SECOND_FEATURES = (*units.FEATURES, *context.FEATURES)
ARTICLE_FEATURES = page.FEATURES


@dataclass(frozen=True)
class Linear:
    """Logistic model: ``sigmoid(intercept + x · weights)``, one weight per feature of ``names``."""

    intercept: float
    weights: np.ndarray
    names: tuple[str, ...]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Probabilities of the rows of ``x`` (columns in the order of ``names``)."""
        return sigmoid(self.intercept + x @ self.weights)

    def probabilities(self, rows: Table) -> np.ndarray:
        return self.predict(rows.select(self.names))

    def to_json(self) -> dict[str, Any]:
        return {
            "intercept": float(self.intercept),
            "weights": {name: float(w) for name, w in zip(self.names, self.weights.tolist())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        weights = data["weights"]
        return cls(float(data["intercept"]), np.array([float(w) for w in weights.values()], float), tuple(weights))


@dataclass(frozen=True)
class Softmax(TypeShares):
    """Multinomial logistic model: one score ``intercepts[t] + x · weights[:, t]`` per type ``t`` of
    ``types``, the probabilities their softmax (one weight per feature of ``names`` and type)."""

    intercepts: np.ndarray  # (types,)
    weights: np.ndarray  # (features, types)
    names: tuple[str, ...]
    types: tuple[str, ...]

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Type probabilities (rows, types) of the rows of ``x`` (columns in the order of ``names``)."""
        return softmax(self.intercepts + x @ self.weights)

    def to_json(self) -> dict[str, Any]:
        return {
            "types": {
                kind: {
                    "intercept": float(self.intercepts[t]),
                    "weights": {name: float(w) for name, w in zip(self.names, self.weights[:, t].tolist())},
                }
                for t, kind in enumerate(self.types)
            }
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        types = tuple(data["types"])
        names = tuple(data["types"][types[0]]["weights"]) if types else ()
        if any(tuple(data["types"][kind]["weights"]) != names for kind in types):
            raise ModelError("article: the page types weigh different features")
        weights = np.array([[float(data["types"][kind]["weights"][name]) for kind in types] for name in names], float)
        intercepts = np.array([float(data["types"][kind]["intercept"]) for kind in types], float)
        return cls(intercepts, weights.reshape(len(names), len(types)), names, types)


@dataclass(frozen=True)
class Trees:
    """Boosted oblivious trees: ``raw(x) = base + sum_t leaves[t, index_t(x)]`` where bit ``k`` of
    ``index_t(x)`` answers question ``k`` of tree ``t``: ``x[features[t, k]] > thresholds[t, k]``."""

    base: float
    features: np.ndarray  # (trees, depth) column indices into ``names``
    thresholds: np.ndarray  # (trees, depth)
    leaves: np.ndarray  # (trees, 2**depth)
    names: tuple[str, ...]

    def raw(self, x: np.ndarray) -> np.ndarray:
        if not len(self.features):
            return np.full(len(x), self.base)
        bits = (x[:, self.features] > self.thresholds).astype(np.int64)  # (rows, trees, depth)
        index = bits @ (1 << np.arange(self.features.shape[1], dtype=np.int64))
        return self.base + self.leaves[np.arange(len(self.features)), index].sum(axis=1)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Probabilities of the rows of ``x`` (columns in the order of ``names``)."""
        return sigmoid(self.raw(x))

    def probabilities(self, rows: Table) -> np.ndarray:
        return self.predict(rows.select(self.names))

    def to_json(self) -> dict[str, Any]:
        return {
            "base": float(self.base),
            "trees": [
                {"questions": [[self.names[f], float(t)] for f, t in zip(fs, ts)], "leaves": [float(v) for v in leaves]}
                for fs, ts, leaves in zip(self.features.tolist(), self.thresholds.tolist(), self.leaves.tolist())
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], names: tuple[str, ...], part: str = "trees") -> Self:
        column = {name: index for index, name in enumerate(names)}
        features, thresholds, leaves = [], [], []
        for tree in data["trees"]:
            try:
                features.append([column[name] for name, _ in tree["questions"]])
            except KeyError as exc:
                message = f"{part}: a tree asks about {exc.args[0]!r}, which the code does not compute"
                raise ModelError(message) from None
            thresholds.append([float(value) for _, value in tree["questions"]])
            leaves.append([float(value) for value in tree["leaves"]])
        depth = len(features[0]) if features else 0
        if any(len(f) != depth for f in features) or any(len(v) != 1 << depth for v in leaves):
            raise ModelError(f"{part}: trees of unequal depth or with the wrong number of leaves")
        return cls(
            float(data["base"]),
            np.array(features, np.int64).reshape(-1, depth),
            np.array(thresholds, float).reshape(-1, depth),
            np.array(leaves, float).reshape(-1, 1 << depth),
            names,
        )


@dataclass(frozen=True)
class SecondPass:
    """The second pass: the mean of a logistic model's and the trees' probabilities."""

    linear: Linear
    trees: Trees

    def predict(self, x: np.ndarray) -> np.ndarray:
        return (self.linear.predict(x) + self.trees.predict(x)) / 2

    def probabilities(self, rows: Table) -> np.ndarray:
        return self.predict(rows.select(self.linear.names))

    def to_json(self) -> dict[str, Any]:
        return {"linear": self.linear.to_json(), "trees": self.trees.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any], part: str = "second_pass") -> Self:
        linear = Linear.from_json(data["linear"])
        return cls(linear, Trees.from_json(data["trees"], linear.names, f"{part}.trees"))


def _check(names: tuple[str, ...], expected: tuple[str, ...], part: str) -> None:
    if set(names) != set(expected) or len(names) != len(expected):
        raise ModelError(differences(names, expected, part))


@dataclass(frozen=True)
class Model:
    first: Linear
    second: SecondPass
    article: Softmax
    calibration: Platt
    cut: float
    relative_cut: float
    about: dict[str, Any]
    guard: Any = None  # the selection's recall guard (``bodytext.Guard``), None: off
    article_threshold: float = 0.5  # the article probability from which a page is typed an article
    article_trees: Forest | None = None  # boosted trees of the article share (None: the softmax's share)

    def first_pass(self, rows: Table) -> np.ndarray:
        return self.first.probabilities(rows)

    def second_pass(self, rows: Table) -> np.ndarray:
        return self.second.probabilities(rows)

    def article_probability(self, row: Mapping[str, float]) -> float:
        """The calibrated article probability (the judge's article share) of a page's
        ``page.FEATURES`` (name -> value)."""
        return self.judge(row)[1]

    def judge(self, row: Mapping[str, float], factor: float = 1.0) -> tuple[str, float, float]:
        """The page type, the calibrated article probability of a page's ``page.FEATURES`` (the
        probability multiplied by ``factor`` first) and the probability of that type: ``article``
        from ``article_threshold`` up (its probability the article probability), else the likeliest of
        the other types (its share among them of what is not the article's probability)."""
        table = Table.of_rows([row], ARTICLE_FEATURES, "article features")
        shares = self.article.probabilities(table)[0]
        types = self.article.types
        if self.article_trees is not None:
            score = float(self.article_trees.probabilities(table)[0, 1])
        else:
            score = float(shares[types.index("article")]) if "article" in types else 0.0
        probability = min(1.0, max(0.0, self.calibration(score))) * factor
        kind = page_type(types, shares, probability, self.article_threshold)
        if kind == "article":
            return kind, probability, probability
        others = {other: float(share) for other, share in zip(types, shares) if other != "article"}
        total = sum(others.values())
        share = others.get(kind, 0.0) / total if total > 0 else 1.0
        return kind, probability, share * (1.0 - probability)

    def to_json(self) -> dict[str, Any]:
        return {
            "about": self.about,
            "selection": {"cut": self.cut, "relative_cut": self.relative_cut}
            | ({"guard": asdict(self.guard)} if self.guard is not None else {}),
            "first_pass": self.first.to_json(),
            "second_pass": self.second.to_json(),
            "article": self.article.to_json(),
            **({"article_trees": self.article_trees.to_json()} if self.article_trees is not None else {}),
            "calibration": self.calibration.to_json(),
            "decision": {"article_threshold": self.article_threshold},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """The model of a model file's JSON object (``ModelError`` when it does not fit the code)."""
        try:
            model = cls(
                first=Linear.from_json(data["first_pass"]),
                second=SecondPass.from_json(data["second_pass"]),
                article=Softmax.from_json(data["article"]),
                calibration=Platt.from_json(data["calibration"]),
                cut=float(data["selection"]["cut"]),
                relative_cut=float(data["selection"]["relative_cut"]),
                about=dict(data.get("about", {})),
                guard=_guard(data["selection"].get("guard")),
                article_threshold=float(data["decision"]["article_threshold"]),
                article_trees=Forest.from_json(data["article_trees"], "article_trees")
                if "article_trees" in data
                else None,
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ModelError(f"model file lacks {exc}") from None
        _check(model.first.names, FIRST_FEATURES, "first_pass")
        _check(model.second.linear.names, SECOND_FEATURES, "second_pass.linear")
        _check(model.article.names, ARTICLE_FEATURES, "article")
        if model.article_trees is not None:
            _check(model.article_trees.names, ARTICLE_FEATURES, "article_trees")
            if model.article_trees.types[1:] != ("article",):
                raise ModelError("article_trees: the trees score another type than the article")
        unknown = set(model.article.types) - set(page.PAGE_TYPES)
        if unknown or "article" not in model.article.types:
            raise ModelError(f"article: page types {sorted(unknown)} unknown, or no article type")
        return model


def page_type(types: Sequence[str], shares: Sequence[float], probability: float, threshold: float) -> str:
    """``article`` when the article probability reaches ``threshold``, else the type of ``types``
    other than ``article`` with the largest share (``other`` when there is none)."""
    if probability >= threshold:
        return "article"
    others = [(share, kind) for kind, share in zip(types, shares) if kind != "article"]
    return max(others)[1] if others else "other"


#: a list holding no list or object (a tree's node, a pair of figures): written on one line
_INNERMOST_LIST_RE = re.compile(r"\[\s*([^\[\]{}]*?)\s*\]")

#: a ``Model`` from the JSON object of a model file (``ModelError`` when it does not fit the code)
read_model = Model.from_json


def write_model(model: Model, path: Path = MODEL_FILE) -> None:
    """Write ``model`` to ``path`` as the method reads it (checked by reading it back first)."""
    data = model.to_json()
    Model.from_json(json.loads(json.dumps(data)))
    text = _INNERMOST_LIST_RE.sub(
        lambda found: "[" + " ".join(found.group(1).split()) + "]", json.dumps(data, indent=1)
    )
    if json.loads(text) != json.loads(json.dumps(data)):  # a string with brackets in it would be changed
        text = json.dumps(data, indent=1)
    Path(path).write_text(text + "\n", encoding="utf-8")


def _guard(data: dict[str, Any] | None) -> Any:
    from . import Guard  # the guard is the selection's idea; read here only

    return Guard(**{key: float(value) for key, value in data.items()}) if data else None


@cache
def load_model(path: Path = MODEL_FILE) -> Model:
    """The model in ``path`` (read once per process)."""
    return Model.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
