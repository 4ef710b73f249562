"""Retrieval metrics and the paired sign test. Pure functions over ranked ids and gold sets."""

from __future__ import annotations

import math
from collections.abc import Sequence


def recall_at(ranked: Sequence[int], gold: set[int], k: int) -> float:
    """|gold ∩ top-k| / |gold| (0 for a question without gold)."""
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


def all_at(ranked: Sequence[int], gold: set[int], k: int) -> float:
    """1 when every gold passage is in the top k."""
    return 1.0 if gold and gold <= set(ranked[:k]) else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100])."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test p-value (ties dropped): P(X <= min(w, l)) * 2 under Binomial(n, 1/2)."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired(mode_scores: Sequence[float], reference: Sequence[float]) -> tuple[int, int, int]:
    """(wins, losses, ties) of a mode against the reference, question by question."""
    wins = sum(1 for a, b in zip(mode_scores, reference) if a > b)
    losses = sum(1 for a, b in zip(mode_scores, reference) if a < b)
    return wins, losses, len(reference) - wins - losses


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """Area under the ROC curve: the chance that a random positive scores above a random negative (ties count half).

    0.5 when either class is empty (nothing can be told apart).
    """
    if not positives or not negatives:
        return 0.5
    above = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return above / (len(positives) * len(negatives))
