"""Maximum-sum contiguous subsequence (Kadane), the core of BTE and of any token-scoring method
(Pasternack & Roth's MSS, of which BTE is the ±1 special case:
docs/methods.md#bte-as-a-maximum-subarray).

With prefix sums S, the best span ending at ``e`` starts at the earliest minimum of S before ``e``.
Ties (docs/methods.md#bte-ties): the highest score, then the longest span, then the earliest start.
"""

from __future__ import annotations

from collections.abc import Sequence


def max_subarray(weights: Sequence[float], lengths: Sequence[int] | None = None) -> tuple[int, int, float]:
    """``(start, end, score)`` of the best non-empty half-open span ``weights[start:end]``.

    ``lengths`` gives each item's length for the "longest span" tie rule (default 1 each; BTE passes
    the token count of each run so that run-level ties are broken as token-level ones). An empty
    ``weights`` gives ``(0, 0, 0)``.
    """
    if not weights:
        return 0, 0, 0
    best_start, best_end, best_score, best_length = 0, 1, weights[0], lengths[0] if lengths else 1
    total = 0  # prefix sum S[i] before item i
    covered = 0  # prefix of lengths before item i
    low, low_at, low_covered = 0, 0, 0  # earliest minimum of S seen so far (the running start)
    for i, weight in enumerate(weights):
        total += weight
        covered += lengths[i] if lengths else 1
        score = total - low
        length = covered - low_covered
        if score > best_score or (score == best_score and length > best_length):
            best_start, best_end, best_score, best_length = low_at, i + 1, score, length
        if total < low:  # reset only on a strictly lower prefix: zero-sum detours are kept
            low, low_at, low_covered = total, i + 1, covered
    return best_start, best_end, best_score
