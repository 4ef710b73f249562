"""Personalized PageRank by power iteration on a scipy.sparse graph.

``scores = (1 - damping) * reset + damping * (P^T scores)`` with P the row-normalised
weighted adjacency. Mass on nodes without out-edges returns through the reset
vector, as in networkx, so the result sums to one. Differentially tested
against ``networkx.pagerank(personalization=...)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class WalkGraph:
    """A transposed transition matrix and its dangling nodes, computed once per graph, not once per query."""

    transition_t: sp.csr_matrix
    dangling: np.ndarray  # indices of nodes without out-edges

    @classmethod
    def of(cls, transition_t: sp.csr_matrix) -> WalkGraph:
        out_weight = np.asarray(transition_t.sum(axis=0)).ravel()
        return cls(transition_t, np.flatnonzero(out_weight == 0))

    @property
    def size(self) -> int:
        return int(self.transition_t.shape[0])


def transition_matrix(adjacency: sp.spmatrix) -> WalkGraph:
    """Row-normalised transpose, ready for ``P^T @ x``; rows without edges stay zero (dangling)."""
    adjacency = sp.csr_matrix(adjacency, dtype=np.float64)
    out_weight = np.asarray(adjacency.sum(axis=1)).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    transition_t = sp.csr_matrix(sp.diags(inverse) @ adjacency).T.tocsr()
    return WalkGraph(transition_t, np.flatnonzero(out_weight == 0))


def personalized_pagerank(
    graph: WalkGraph,
    reset: np.ndarray,
    damping: float = 0.5,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> np.ndarray:
    """Stationary scores for restart distribution ``reset`` (normalised here); ``damping`` = 1 - restart probability."""
    if not 0.0 <= damping < 1.0:
        raise ValueError("damping must be in [0, 1)")
    total = float(reset.sum())
    if total <= 0:
        return np.zeros(graph.size)
    reset = reset / total
    restart = (1.0 - damping) * reset
    scores = reset.copy()
    for _ in range(max_iter):
        spread = graph.transition_t @ scores
        lost = scores[graph.dangling].sum()
        new = restart + damping * (spread + lost * reset)
        if np.abs(new - scores).sum() < tol:
            return new
        scores = new
    return scores
