"""TTR — Text-to-Tag Ratio (Weninger & Hsu 2008) and its 2-D successor CETR (Weninger, Hsu & Han 2010)
(docs/methods.md#ttr).

For each non-empty source line k, with x_k its non-whitespace text characters and y_k the tags that
start on it:

    TTR_k = x_k / y_k  (y_k > 0),   TTR_k = x_k  (y_k = 0)

smoothed with a Gaussian kernel exp(−j²/2σ²), j ∈ [−r, r] (renormalised at the edges) into T'_k.
Content lines are then chosen by ``method``:

* ``threshold``: T'_k > λ·σ(T')  (the paper's best recall);
* ``kmeans``, ``em``, ``farthest_first``: k clusters of T' (1-D k-means, Gaussian mixture,
  farthest-first); every line outside the cluster with the lowest centre is content;
* ``cetr_kmeans``: CETR's 2-D points (T'_k, G'_k), G_k = |mean(T'_{k+1..k+α}) − T'_k| smoothed into
  G', clustered by k-means with one centroid pinned at (0, 0): lines of the origin cluster are not
  content;
* ``cetr_threshold``: T'_k > λ·σ(T') or G'_k > λ·σ(G').

If σ(T')/mean(T') < ``cv_guard`` the page is uniformly text-like and every line is content
(docs/methods.md#ttr-uniform-pages).

Lines come from the shared document, not a second parse: element start tags carry their source line
(``lines``) and text slots theirs (``slot_lines``; a slot spanning lines is split at its newlines).
Only start tags are located by the parser, so y_k counts start tags (end tags would scale the ratio
of one-line elements by about 2 everywhere, which the relative selections above do not see).
Minified pages (median estimated line length > ``rewrap_median`` or a source shorter than
``rewrap_min_lines`` lines) are re-wrapped with one element start tag per line. The output is the
text slots on content lines (a slot counts when any of its lines is content).

Article probability (TTR has none; docs/methods.md#ttr-article-probability): the region P of the
content slots, 0 unless ``min_run`` consecutive lines are content, mapped by the method's
``CALIBRATION`` — the chance that a page with that region P is an article, fitted on the dev corpus
with articles and non-articles weighted as equally common.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from operator import mul

from ..page.document import Document
from . import Extraction
from .calibration import LogitMap
from .options import check_choice, check_flag, check_number
from .regionp import slot_ranges_region_p

NAME = "ttr"

METHODS = ("threshold", "kmeans", "em", "farthest_first", "cetr_kmeans", "cetr_threshold")

#: raw region P of the content lines -> article probability, per method; fitted on the dev corpus
#: (1269 pages) with ``python scripts/calibrate_ttr.py`` (class-balanced logistic regression on logit(P)).
CALIBRATION = {
    "threshold": LogitMap(0.8731, 0.4318),
    "kmeans": LogitMap(0.9001, 0.6797),
    "em": LogitMap(0.9420, 1.1870),
    "farthest_first": LogitMap(0.9831, 0.3213),
    "cetr_kmeans": LogitMap(1.0739, 0.9065),
    "cetr_threshold": LogitMap(1.1512, 0.9866),
}

#: EM variance floor (docs/methods.md#ttr-selection) and convergence tolerance on the mean
#: log-likelihood per line
VARIANCE_FLOOR = 1e-3
EM_TOLERANCE = 1e-3


@dataclass(frozen=True)
class Options:
    """Options of TTR/CETR (docs/methods.md#ttr-options).

    * ``method`` = "threshold": one of ``METHODS`` (TTR paper; ``cetr_*`` from CETR).
    * ``sigma`` = 1.0, ``radius`` = 3: Gaussian smoothing σ and half-width in lines (dragnet's values;
      the CETR ports use 2.0 / 2). ``radius`` 0 turns smoothing off.
    * ``threshold_lambda`` = 1.0: λ in τ = λσ (TTR, CETR) for the threshold methods.
    * ``clusters`` = 3: k of k-means, EM, farthest-first and CETR k-means (TTR slides, CETR).
    * ``max_iterations`` = 100: bound on k-means and EM iterations (docs/methods.md#ttr-selection).
    * ``alpha`` = 3: CETR derivative window in lines (dragnet, pycetr).
    * ``standardize`` = False: CETR k-means on T'/σ(T') and G'/σ(G') (not in the paper,
      docs/methods.md#cetr).
    * ``cv_guard`` = 0.5: below this coefficient of variation of T' every line is content
      (docs/methods.md#ttr-uniform-pages); 0 disables the guard.
    * ``rewrap_median`` = 200, ``rewrap_min_lines`` = 20: re-wrap minified pages, whose non-empty lines
      have a median length above the first or whose source has fewer lines than the second
      (docs/methods.md#ttr-line-ratio; our rule).
    * ``min_run`` = 3: the probability is 0 without a run of this many consecutive content lines
      (docs/methods.md#ttr-article-probability: isolated spikes are usually menus with long labels).
    """

    method: str = "threshold"
    sigma: float = 1.0
    radius: int = 3
    threshold_lambda: float = 1.0
    clusters: int = 3
    max_iterations: int = 100
    alpha: int = 3
    standardize: bool = False
    cv_guard: float = 0.5
    rewrap_median: int = 200
    rewrap_min_lines: int = 20
    min_run: int = 3

    def __post_init__(self) -> None:
        check_choice(self, "method", METHODS)
        check_number(self, "sigma", positive=True)
        check_number(self, "threshold_lambda", "cv_guard", minimum=0)
        for name, minimum in (
            ("radius", 0),
            ("clusters", 2),
            ("max_iterations", 1),
            ("alpha", 1),
            ("rewrap_median", 1),
            ("rewrap_min_lines", 0),
            ("min_run", 1),
        ):
            check_number(self, name, integer=True, minimum=minimum)
        check_flag(self, "standardize")


# --------------------------------------------------------------------------------------------- lines
def _nonspace(text: str) -> int:
    return len(text) - text.count(" ") - text.count("\n") - text.count("\t") - text.count("\r")


def source_lines(doc: Document) -> tuple[list[int], list[int], list[tuple[int, int]], list[int]]:
    """Per source line: ``(x, y, slot_lines, length)``; ``slot_lines[s]`` is the first and last line of
    slot s, ``length`` an estimate of the line's source length (text plus canonical tag lengths)."""
    texts, first_lines = doc.texts, doc.slot_lines
    last_line = max(doc.lines, default=0)
    spans = []
    for text, line in zip(texts, first_lines):
        end = line + text.count("\n")
        spans.append((line, end))
        last_line = max(last_line, end)
    x = [0] * (last_line + 1)
    y = [0] * (last_line + 1)
    length = [0] * (last_line + 1)
    markup = doc.prefix("markup")
    for element, line in enumerate(doc.lines):
        y[line] += 1
        length[line] += markup[element + 1] - markup[element]
    for text, (line, end), chars in zip(texts, spans, doc.chars):
        if line == end:
            x[line] += _nonspace(text)
            length[line] += chars
        else:
            for offset, part in enumerate(text.split("\n")):
                x[line + offset] += _nonspace(part)
                length[line + offset] += len(part.strip())
    return x, y, spans, length


def element_lines(doc: Document) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    """The re-wrapped form: one line per element start tag; a slot is on the line of the last
    element that started before it."""
    count = len(doc.tags)
    x = [0] * count
    starts = doc.slot_starts
    spans = []
    for slot, text in enumerate(doc.texts):
        line = bisect_right(starts, slot) - 1
        x[line] += _nonspace(text)
        spans.append((line, line))
    return x, [1] * count, spans


def line_ratios(doc: Document, options: Options) -> tuple[list[float], list[tuple[int, int]], bool]:
    """TTR of the non-empty lines in order, each slot's (first, last) index into them, re-wrapped?"""
    x, y, spans, length = source_lines(doc)
    kept = [k for k in range(len(x)) if x[k] or y[k]]
    lengths = sorted(length[k] for k in kept)
    rewrap = len(x) - 1 < options.rewrap_min_lines or (  # x[0] is unused: lines count from 1
        bool(lengths) and lengths[len(lengths) // 2] > options.rewrap_median
    )
    if rewrap:
        x, y, spans = element_lines(doc)
        kept = [k for k in range(len(x)) if x[k] or y[k]]
    position = {line: index for index, line in enumerate(kept)}
    ratios = [x[k] / y[k] if y[k] else float(x[k]) for k in kept]
    slot_spans = []
    for first, last in spans:
        # empty lines inside a slot were dropped: map to the nearest kept line at or after/before
        lo = position.get(first)
        hi = position.get(last)
        if lo is None:
            lo = bisect_right(kept, first)
        if hi is None:
            hi = bisect_right(kept, last) - 1
        slot_spans.append((lo, hi))
    return ratios, slot_spans, rewrap


def smooth(values: list[float], sigma: float, radius: int) -> list[float]:
    """Gaussian smoothing, kernel exp(−j²/2σ²) for |j| ≤ radius, renormalised at the edges."""
    n = len(values)
    if radius == 0 or n < 2:
        return list(values)
    kernel = [math.exp(-j * j / (2 * sigma * sigma)) for j in range(-radius, radius + 1)]
    total = sum(kernel)
    out = []
    for k in range(n):
        lo, hi = k - radius, k + radius + 1
        if lo >= 0 and hi <= n:
            out.append(sum(map(mul, kernel, values[lo:hi])) / total)
        else:
            lo_, hi_ = max(0, lo), min(n, hi)
            weights = kernel[lo_ - lo : len(kernel) - (hi - hi_)]
            out.append(sum(map(mul, weights, values[lo_:hi_])) / sum(weights))
    return out


def derivative(values: list[float], alpha: int) -> list[float]:
    """CETR's absolute smoothed derivative G_k = |mean(T'_{k+1..k+α}) − T'_k| (docs/methods.md#cetr);
    near the end the available lines are used, and the last line uses the mean of the last two."""
    n = len(values)
    out = []
    for k in range(n):
        ahead = values[k + 1 : k + 1 + alpha] or values[max(0, k - 1) : k + 1]
        out.append(abs(sum(ahead) / len(ahead) - values[k]))
    return out


# --------------------------------------------------------------------------------------------- selection
Check = Callable[[], None]


def _no_check() -> None:
    pass


def mean_std(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / n)


def _initial_centres(distinct: list[float], k: int) -> list[float]:
    """min, evenly spaced quantiles, max (min / median / max for k = 3)."""
    n = len(distinct)
    return [distinct[round(i * (n - 1) / (k - 1))] for i in range(k)]


def kmeans_1d(values: list[float], k: int, iterations: int, check: Check = _no_check) -> list[float]:
    """Lloyd's k-means in one dimension from min / median / max; returns the sorted centres.

    Clusters of sorted values are intervals, so each step is a few bisections on prefix sums.
    """
    ordered = sorted(values)
    prefix = [0.0]
    for v in ordered:
        prefix.append(prefix[-1] + v)
    centres = sorted(_initial_centres(ordered, k))
    for _ in range(iterations):
        check()
        cuts = [0] + [bisect_right(ordered, (a + b) / 2) for a, b in zip(centres, centres[1:])] + [len(ordered)]
        updated = [
            (prefix[hi] - prefix[lo]) / (hi - lo) if hi > lo else centre
            for lo, hi, centre in zip(cuts, cuts[1:], centres)
        ]
        updated.sort()
        if updated == centres:
            break
        centres = updated
    return centres


def lowest_boundary(centres: list[float]) -> float:
    """Values above this are nearer to a higher centre than to the lowest one."""
    lowest = min(centres)
    higher = [c for c in centres if c > lowest]
    return (lowest + min(higher)) / 2 if higher else math.inf


def em_1d(values: list[float], k: int, iterations: int, check: Check = _no_check) -> list[bool]:
    """1-D Gaussian mixture by EM, started from the k-means clusters (as scikit-learn does); a value
    is content unless its most likely component is the one with the lowest mean.

    Stops when the mean log-likelihood per line gains less than ``EM_TOLERANCE`` (scikit-learn's
    default criterion) or after ``iterations`` rounds.
    """
    counts = Counter(values)  # EM over distinct values with multiplicities: same fixed point, less work
    points = sorted(counts)
    weights = [counts[v] for v in points]
    n = len(values)
    centres = kmeans_1d(values, k, iterations, check)
    nearest = [min(range(k), key=lambda j: abs(v - centres[j])) for v in points]
    resp = [[1.0 if j == c else 0.0 for c in nearest] for j in range(k)]
    means, variances, mix = list(centres), [VARIANCE_FLOOR] * k, [1.0 / k] * k
    exp = math.exp

    def maximisation() -> None:
        for j, column in enumerate(resp):
            mass = list(map(mul, column, weights))
            nj = sum(mass)
            if nj <= 1e-12:
                mix[j] = 0.0
                continue
            mu = sum(map(mul, mass, points)) / nj
            means[j] = mu
            variances[j] = max(sum(m * (v - mu) * (v - mu) for m, v in zip(mass, points)) / nj, VARIANCE_FLOOR)
            mix[j] = nj / n

    def expectation() -> tuple[list[list[float]], float]:
        densities = []
        for share, mu, var in zip(mix, means, variances):
            scale, inv = share / math.sqrt(2 * math.pi * var), -0.5 / var
            densities.append([scale * exp(inv * (v - mu) * (v - mu)) for v in points])
        totals = [sum(column) or 1e-300 for column in zip(*densities)]
        loglik = sum(map(mul, weights, map(math.log, totals))) / n
        return [[d / t for d, t in zip(column, totals)] for column in densities], loglik

    maximisation()
    resp, loglik = expectation()
    for _ in range(iterations):
        check()
        maximisation()
        resp, updated = expectation()
        if updated - loglik < EM_TOLERANCE:
            break
        loglik = updated
    lowest = min((j for j in range(k) if mix[j] > 0), key=means.__getitem__)
    content = {v: max(range(k), key=lambda j: resp[j][i]) != lowest for i, v in enumerate(points)}
    return [content[v] for v in values]


def farthest_first_1d(values: list[float], k: int) -> list[bool]:
    """Farthest-first centres (first the maximum, then the value farthest from those chosen); a value
    is content unless its nearest centre is the lowest one."""
    distinct = sorted(set(values))
    centres = [distinct[-1]]
    while len(centres) < min(k, len(distinct)):
        centres.append(max(distinct, key=lambda v: min(abs(v - c) for c in centres)))
    boundary = lowest_boundary(centres)
    return [v > boundary for v in values]


def cetr_kmeans(points: list[tuple[float, float]], k: int, iterations: int, check: Check = _no_check) -> list[bool]:
    """k-means on 2-D points with one centroid pinned at the origin; True = not in the origin cluster.

    The free centroids start at the point of largest T', the point of largest G', then (k > 3) the
    points farthest from those already chosen.
    """
    counts = Counter(points)
    distinct = list(counts)
    seeds = [max(distinct, key=lambda p: (p[0], p[1])), max(distinct, key=lambda p: (p[1], p[0]))]
    centres = [(0.0, 0.0)]
    for seed in seeds:
        if seed not in centres and len(centres) < k:
            centres.append(seed)
    while len(centres) < min(k, len(distinct) + 1):
        far = max(distinct, key=lambda p: min((p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2 for c in centres))
        if far in centres:
            break
        centres.append(far)
    xs = [p[0] for p in distinct]
    ys = [p[1] for p in distinct]
    weights = [counts[p] for p in distinct]
    indices = range(len(centres))
    labels: list[int] = []
    for _ in range(iterations):
        check()
        distances = [[(a - ca) * (a - ca) + (b - cb) * (b - cb) for a, b in zip(xs, ys)] for ca, cb in centres]
        labels = [min(zip(column, indices))[1] for column in zip(*distances)]  # ties: lower index
        updated = [(0.0, 0.0)]
        for j in indices[1:]:
            mass = [w if label == j else 0 for w, label in zip(weights, labels)]
            total = sum(mass)
            updated.append((sum(map(mul, mass, xs)) / total, sum(map(mul, mass, ys)) / total) if total else centres[j])
        if updated == centres:
            break
        centres = updated
    outside = {p: label != 0 for p, label in zip(distinct, labels)}
    return [outside[p] for p in points]


def select(ratios: list[float], options: Options, check: Check = _no_check) -> list[bool]:
    """Content flag per line, by ``options.method`` on the smoothed ratios; ``check`` runs once per
    clustering iteration (the page's time budget)."""
    smoothed = smooth(ratios, options.sigma, options.radius)
    mean, std = mean_std(smoothed)
    if mean <= 0:
        return [False] * len(smoothed)
    if std < options.cv_guard * mean:
        return [True] * len(smoothed)
    method, k, lam = options.method, options.clusters, options.threshold_lambda
    if method == "threshold":
        return [v > lam * std for v in smoothed]
    if method == "kmeans":
        boundary = lowest_boundary(kmeans_1d(smoothed, k, options.max_iterations, check))
        return [v > boundary for v in smoothed]
    if method == "em":
        return em_1d(smoothed, k, options.max_iterations, check)
    if method == "farthest_first":
        return farthest_first_1d(smoothed, k)
    gradient = smooth(derivative(smoothed, options.alpha), options.sigma, options.radius)
    if method == "cetr_threshold":
        g_std = mean_std(gradient)[1]
        return [t > lam * std or g > lam * g_std for t, g in zip(smoothed, gradient)]
    if options.standardize:
        g_std = mean_std(gradient)[1] or 1.0
        points = [(t / std, g / g_std) for t, g in zip(smoothed, gradient)]
    else:
        points = list(zip(smoothed, gradient))
    return cetr_kmeans(points, k, options.max_iterations, check)


# --------------------------------------------------------------------------------------------- output
def _has_run(flags: list[bool], length: int) -> bool:
    run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        if run >= length:
            return True
    return False


def _ranges(slots: list[int]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for slot in slots:
        if ranges and ranges[-1][1] == slot:
            ranges[-1] = (ranges[-1][0], slot + 1)
        else:
            ranges.append((slot, slot + 1))
    return ranges


def extract(doc: Document, options: Options) -> Extraction:
    ratios, slot_spans, rewrapped = line_ratios(doc, options)
    if not ratios:
        return Extraction((), 0.0, "no lines")
    doc.check_time()
    content = select(ratios, options, doc.check_time)
    doc.check_time()
    slots = [s for s, (lo, hi) in enumerate(slot_spans) if any(content[lo : hi + 1])]
    if not slots:
        return Extraction((), 0.0, f"no content lines among {len(ratios)}")
    raw = slot_ranges_region_p(doc, _ranges(slots)) if _has_run(content, options.min_run) else 0.0
    probability = CALIBRATION[options.method](raw)
    lines = sum(content)
    return Extraction(
        slots,
        probability,
        f"{lines} of {len(ratios)} {'element ' if rewrapped else ''}lines are content ({options.method}),"
        f" region P={raw:.2f}",
        debug={"region_p": raw, "lines": len(ratios), "content_lines": lines, "rewrapped": rewrapped},
    )
