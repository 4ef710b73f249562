"""Reciprocal-rank fusion: combine ranked lists by rank, not by score. Pure numpy.

Scores of BM25 and of cosine similarity live on scales that no fixed weight
reconciles from one query to the next; ranks do. ``rrf`` mode is the plain
fusion of BM25 and dense chunk rankings: the anchor real notes are measured
against (``engram eval vault``).
"""

from __future__ import annotations

import numpy as np

RRF_K = 60  # the constant of Cormack et al. (2009), used as is


def ranks(scores: np.ndarray, positive_only: bool = False) -> np.ndarray:
    """1-based rank of every item by descending score (ties in index order); 0 for items left out.

    ``positive_only``: items scoring 0 or less are left out (a BM25 miss is not a rank).
    """
    out = np.zeros(scores.size, dtype=np.int64)
    candidates = np.flatnonzero(scores > 0) if positive_only else np.arange(scores.size)
    if candidates.size == 0:
        return out
    order = candidates[np.lexsort((candidates, -scores[candidates]))]
    out[order] = np.arange(1, order.size + 1)
    return out


def reciprocal(rank: np.ndarray, k: int = RRF_K) -> np.ndarray:
    """1 / (k + rank) where ranked (rank >= 1), else 0."""
    return np.where(rank > 0, 1.0 / (k + np.maximum(rank, 1)), 0.0)

