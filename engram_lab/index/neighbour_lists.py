"""Each vector's nearest other vectors (up to ``k``), kept so that an edit patches them instead of recomputing all.

A local density (CSLS) is the mean of a row's top cosines and a synonym pair is a
top-list entry above a threshold, so both follow from these lists. The cold build
makes them here, over rows; an edit patches them over the vectors' store slots,
which do not move when rows do (``slot_lists``). Lists are padded with index -1
and cosine -inf where they hold fewer than ``k`` rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engram_lab.index.vector_reuse import old_to_new
from engram_lab.retrieve.csls import DEFAULT_K, nearest_neighbours

BATCH = 1024
# A recomputed batch holds its rows' similarities to every vector twice over (the product and its transpose): rows
# per batch are cut so that stays near this (1,024 rows against 580,000 entities was 4.7 GB).
RECOMPUTE_BYTES = 256 * 2**20
# A list entry's row: int32 halves what the lists of 580,000 entities cost to gather and write on every edit (148 ->
# 74 MB) and to hold while building; two billion rows of one kind is far past any vault.
ROW = np.int32
APPROXIMATE_FROM = 20_000  # rows of one kind; from here the exact pass (quadratic) gives way to an HNSW graph


@dataclass(frozen=True)
class NeighbourLists:
    """Row i's nearest other rows (``indices``, -1 padded), as many as ``k`` or fewer (``patch_neighbour_lists``), and
    their cosines (-inf padded), best first."""

    indices: np.ndarray  # ROW (int32; older folders int64), n x k
    cosines: np.ndarray  # float32, n x k

    @property
    def k(self) -> int:
        return int(self.indices.shape[1])

    def densities(self, k: int = DEFAULT_K) -> np.ndarray:
        """Mean cosine of each row's ``k`` nearest rows (all it has, when fewer); 0 for a row with none."""
        k = min(k, self.k)
        top = self.cosines[:, :k]
        valid = np.isfinite(top)
        counts = valid.sum(axis=1)
        sums = np.where(valid, top, 0.0).sum(axis=1, dtype=np.float64)
        return np.where(counts > 0, sums / np.maximum(counts, 1), 0.0).astype(np.float32)

    def pairs_above(self, threshold: float, rows: np.ndarray | None = None) -> Pairs:
        """Pairs (a < b) where one is in the other's list with cosine >= ``threshold``, deduplicated and sorted
        (only those from the lists of ``rows``, when given)."""
        if rows is None:
            return pairs_in(self.indices, self.cosines, None, threshold, self.indices.shape[0])
        return pairs_in(self.indices[rows], self.cosines[rows], rows, threshold, self.indices.shape[0])


Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]  # a < b (row indices) and their cosine (float64)


ListsOf = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]  # rows -> their lists (indices naming rows, cosines)


def pairs_in(indices: np.ndarray, cosines: np.ndarray, rows: np.ndarray | None, threshold: float, n: int) -> Pairs:
    """The pairs (a < b) of the lists of ``rows`` (all ``n`` rows, in order, when None) at ``threshold`` and above,
    deduplicated and sorted."""
    at, cols = np.nonzero((cosines >= threshold) & (indices >= 0))
    own = at if rows is None else rows[at]
    other = indices[at, cols]  # ``own`` is int64: the pair keys below are too
    return _sorted_unique(np.minimum(own, other), np.maximum(own, other), cosines[at, cols], n)


def _sorted_unique(a: np.ndarray, b: np.ndarray, cos: np.ndarray, n: int) -> Pairs:
    order = np.argsort(a * n + b, kind="stable")  # as lexsort((b, a)), in half the time
    a, b, cos = a[order], b[order], cos[order]
    first = np.ones(a.shape[0], dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return a[first], b[first], cos[first].astype(np.float64)


def patch_pairs(old_pairs: Pairs, old_rows: int, origin: np.ndarray, moved: np.ndarray, lists_of: ListsOf,
                threshold: float) -> Pairs:
    """The pairs above ``threshold`` of the new lists, from ``old_pairs`` (the old lists' pairs, over ``old_rows``
    rows): only the lists that moved are read (at 89,000 entities the full pass sorted two million list entries on
    every edit). ``origin``: per new row, the old row it keeps (-1: none); ``moved``: per new row, whether its list
    may differ from its old list's rows as renumbered (a superset does no harm); ``lists_of(rows)``: new lists.

    A pair of two rows whose lists did not move stands as it was; a pair with one such row stands when that row's
    list still holds the other; every other pair comes from the moved lists."""
    n = moved.shape[0]
    remap = old_to_new(origin, old_rows)
    a, b, cos = old_pairs
    a, b = remap[a].astype(np.int64), remap[b].astype(np.int64)  # pair keys are a * n + b
    alive = (a >= 0) & (b >= 0)
    a, b, cos = np.minimum(a[alive], b[alive]), np.maximum(a[alive], b[alive]), cos[alive]
    stands = ~moved[a] & ~moved[b]
    one = np.flatnonzero(moved[a] ^ moved[b])
    still = np.where(moved[a[one]], b[one], a[one])
    other = np.where(moved[a[one]], a[one], b[one])
    indices, cosines = lists_of(still)
    stands[one] = ((indices == other[:, None]) & (cosines >= threshold)).any(axis=1)
    a, b, cos = a[stands], b[stands], cos[stands]
    rows = np.flatnonzero(moved)
    fresh_a, fresh_b, fresh_cos = pairs_in(*lists_of(rows), rows, threshold, n)
    if a.size > 1 and not (np.diff(a * n + b) > 0).all():  # the remap kept no order (a regrouped row may keep an old row elsewhere)
        return _sorted_unique(np.concatenate([a, fresh_a]), np.concatenate([b, fresh_b]), np.concatenate([cos, fresh_cos]), n)
    keys, fresh = a * n + b, fresh_a * n + fresh_b
    at = np.searchsorted(keys, fresh)
    new_pair = keys[np.minimum(at, keys.size - 1)] != fresh if keys.size else np.ones(fresh.size, dtype=bool)
    at, fresh_a, fresh_b, fresh_cos = at[new_pair], fresh_a[new_pair], fresh_b[new_pair], fresh_cos[new_pair]
    return np.insert(a, at, fresh_a), np.insert(b, at, fresh_b), np.insert(cos, at, fresh_cos)


def best_first(indices: np.ndarray, cosines: np.ndarray, k: int) -> NeighbourLists:
    """The ``k`` best candidates of each row, best first, padded to ``k`` columns."""
    n, width = cosines.shape
    if width > k:
        keep = np.argpartition(-cosines, k - 1, axis=1)[:, :k]
        indices, cosines = np.take_along_axis(indices, keep, 1), np.take_along_axis(cosines, keep, 1)
    order = np.argsort(-cosines, axis=1, kind="stable")
    indices, cosines = np.take_along_axis(indices, order, 1), np.take_along_axis(cosines, order, 1)
    if cosines.shape[1] < k:
        pad = k - cosines.shape[1]
        indices = np.hstack([indices, np.full((n, pad), -1, dtype=ROW)])
        cosines = np.hstack([cosines, np.full((n, pad), -np.inf, dtype=np.float32)])
    indices = np.where(np.isfinite(cosines), indices, -1)
    return NeighbourLists(indices.astype(ROW), cosines.astype(np.float32))


def build_neighbour_lists(vectors: np.ndarray, k: int, on_block: Callable[[int], None] | None = None,
                          approximate_from: int = APPROXIMATE_FROM) -> NeighbourLists:
    """Every row's list (the cold build): a blocked pass over all similarities, or for ``approximate_from`` rows
    and more an HNSW graph's (``approximate_neighbours``; the exact pass's cost grows with the square)."""
    n = vectors.shape[0]
    if n >= approximate_from:
        from engram_lab.index.approximate_neighbours import approximate_lists

        indices, cosines = approximate_lists(vectors, k, on_block)
        return NeighbourLists(indices, cosines)
    lists = NeighbourLists(np.full((n, k), -1, dtype=ROW), np.full((n, k), -np.inf, dtype=np.float32))
    for start, nearest, cosines in nearest_neighbours(vectors, k, BATCH):
        block = best_first(nearest.astype(ROW), cosines.astype(np.float32), k)
        lists.indices[start : start + nearest.shape[0]] = block.indices
        lists.cosines[start : start + nearest.shape[0]] = block.cosines
        if on_block is not None:
            on_block(nearest.shape[0])
    return lists
