"""Each row's nearest other rows by an HNSW graph (faiss), for kinds too large for the exact blocked pass.

The exact pass compares every row with every other: 89,000 entity labels of the
10,000-note benchmark took about 175 s of its 286 s neighbour stage, and the cost
grows with the square of the rows (a 100,000-note vault would take hours). An HNSW
graph finds the lists in time close to n log n: 14 s for those 89,000 labels, with
97 % of the exact top-32 found, densities within 0.001 on average and 99.4 % of the
synonym pairs (BENCHMARKS.md, issue 18). Small kinds keep the exact pass, so small
vaults and tests do not depend on an approximation; edits patch the lists exactly
either way (``slot_lists.patch_slot_lists``: exact nearest rows, to each list's length).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engram_lab.index.neighbour_lists import ROW

LINKS = 16  # HNSW's M: links per node (measured: 32 links found 98.8 % for 1.5 times the time)
BUILD_BREADTH = 80  # efConstruction
SEARCH_BREADTH = 96  # efSearch, at least 2 k
BLOCK = 8192


def approximate_lists(vectors: np.ndarray, k: int, on_block: Callable[[int], None] | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(indices, cosines), n x k, each row's ``k`` nearest other rows best first, -1 / -inf padded."""
    import faiss

    n, dimension = vectors.shape
    data = np.ascontiguousarray(vectors, dtype=np.float32)
    index = faiss.IndexHNSWFlat(dimension, LINKS, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = BUILD_BREADTH
    index.add(data)
    index.hnsw.efSearch = max(SEARCH_BREADTH, 2 * k)
    indices = np.full((n, k), -1, dtype=ROW)
    cosines = np.full((n, k), -np.inf, dtype=np.float32)
    for start in range(0, n, BLOCK):
        found_cos, found = index.search(data[start : start + BLOCK], k + 1)
        rows = np.arange(start, start + found.shape[0])
        other = (found != rows[:, None]) & (found >= 0)  # not its own neighbour; faiss pads with -1
        rank = np.cumsum(other, axis=1) - 1  # each kept entry's place in its row's list
        keep = other & (rank < k)
        r, c = np.nonzero(keep)
        indices[rows[r], rank[r, c]] = found[r, c]
        cosines[rows[r], rank[r, c]] = found_cos[r, c]
        if on_block is not None:
            on_block(found.shape[0])
    return indices, cosines
