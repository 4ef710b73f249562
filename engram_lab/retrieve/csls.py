"""Hubness correction for dense seeding (CSLS, Lample et al. 2018), as pure numpy.

A vector that sits in a dense region (a table row among near-identical rows, a
catalog entry) is close to every query and would take every seed slot. CSLS
scores ``2 cos(q, x) - r(x)``, where ``r(x)`` is the mean cosine of ``x`` to its k
nearest neighbours, computed once at index time (the query's own density is the
same for every candidate, so it drops out of the ranking).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

DEFAULT_K = 10


def nearest_neighbours(vectors: np.ndarray, k: int, batch: int = 1024) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Per block of rows: (first row, indices of each row's ``k`` nearest other rows, their cosines).

    One blocked pass of ``vectors @ vectors.T``: callers that need several neighbourhood
    figures (density, synonym pairs) take them from the same pass.
    """
    n = vectors.shape[0]
    k = min(k, n - 1)
    if k <= 0:
        return
    for start in range(0, n, batch):
        sims = vectors[start : start + batch] @ vectors.T
        rows = np.arange(sims.shape[0])
        sims[rows, start + rows] = -np.inf  # not its own neighbour
        nearest = np.argpartition(sims, -k, axis=1)[:, -k:]
        yield start, nearest, np.take_along_axis(sims, nearest, axis=1)


def density_of(cosines: np.ndarray, k: int = DEFAULT_K) -> np.ndarray:
    """Mean of each row's ``k`` largest neighbour cosines (rows hold at least ``k`` neighbours, or all there are)."""
    k = min(k, cosines.shape[1])
    return np.partition(cosines, -k, axis=1)[:, -k:].mean(axis=1)


def local_density(vectors: np.ndarray, k: int = DEFAULT_K, batch: int = 1024,
                  on_block: Callable[[int], None] | None = None) -> np.ndarray:
    """Mean cosine of each row to its ``k`` nearest other rows (rows are unit vectors); ``on_block(rows)`` after each block."""
    out = np.zeros(vectors.shape[0], dtype=np.float32)
    for start, _, cosines in nearest_neighbours(vectors, k, batch):
        out[start : start + cosines.shape[0]] = density_of(cosines, k)
        if on_block is not None:
            on_block(cosines.shape[0])
    return out


def csls_scores(cosines: np.ndarray, density: np.ndarray) -> np.ndarray:
    return 2.0 * cosines - density


def top_candidates(cosines: np.ndarray, density: np.ndarray | None, k: int) -> np.ndarray:
    """Indices of the ``k`` best candidates by CSLS (or raw cosine when ``density`` is None).

    The raw-cosine top-1 is always admitted (the floor), so a query that names a
    hub exactly still reaches it.
    """
    if cosines.size == 0 or k <= 0:
        return np.zeros(0, dtype=np.int64)
    scores = cosines if density is None else csls_scores(cosines, density)
    k = min(k, cosines.size)
    best = np.argpartition(-scores, k - 1)[:k]
    best = best[np.argsort(-scores[best])]
    floor = int(np.argmax(cosines))
    if floor not in best:
        best = np.concatenate([best[:-1], [floor]])
    return best
