"""Each vector's nearest other vectors (up to ``k``), kept so that an edit patches them instead of recomputing all.

A local density (CSLS) is the mean of a row's top cosines and a synonym pair is a
top-list entry above a threshold, so both follow from these lists. After an edit,
a row whose vector is new or changed gets its list from one product with every
vector; any other row can only gain new rows in its list (one product of all
vectors with the new ones finds them). A row that had a removed vector in its
list keeps the rest: the nearest rows minus some are still the nearest rows,
only fewer, and what came after the last entry was not kept, so the list stays
shorter until it is recomputed, when it falls below the depth its readers need.
Lists are built deeper than that (``k`` above ``depth``) so a removal seldom
costs a pass over every vector: removing one note's vectors broke 463 lists at
100,000 notes, 18 s of recomputing. Lists are padded with index -1 and cosine
-inf where they hold fewer than ``k`` rows. A patch may also widen the lists (an
index built when they were shallower): what is there stays, the rest is padding,
and each list gains depth when it is next recomputed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engram_lab.index.row_vectors import RowVectors
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
        indices, cosines = (self.indices, self.cosines) if rows is None else (self.indices[rows], self.cosines[rows])
        at, cols = np.nonzero((cosines >= threshold) & (indices >= 0))
        own = at if rows is None else rows[at]
        other = indices[at, cols]  # ``own`` is int64: the pair keys below are too
        return _sorted_unique(np.minimum(own, other), np.maximum(own, other), cosines[at, cols], self.indices.shape[0])


Pairs = tuple[np.ndarray, np.ndarray, np.ndarray]  # a < b (row indices) and their cosine (float64)


def _sorted_unique(a: np.ndarray, b: np.ndarray, cos: np.ndarray, n: int) -> Pairs:
    order = np.argsort(a * n + b, kind="stable")  # as lexsort((b, a)), in half the time
    a, b, cos = a[order], b[order], cos[order]
    first = np.ones(a.shape[0], dtype=bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return a[first], b[first], cos[first].astype(np.float64)


def patch_pairs(old_pairs: Pairs, old: NeighbourLists, origin: np.ndarray, new: NeighbourLists, threshold: float) -> Pairs:
    """``new.pairs_above(threshold)`` from ``old_pairs`` (``old.pairs_above(threshold)``), ``new`` being ``old``
    patched by ``origin`` (``patch_neighbour_lists``): only the lists that moved are read (at 89,000 entities the
    full pass sorted two million list entries on every edit).

    A pair of two rows whose lists did not move stands as it was; a pair with one such row stands when that row's
    list still holds the other; every other pair comes from the moved lists."""
    n = new.indices.shape[0]
    remap = old_to_new(origin, old.indices.shape[0])
    kept = np.flatnonzero(origin >= 0)
    moved = np.ones(n, dtype=bool)
    moved[kept] = (remap[old.indices[origin[kept]]] != new.indices[kept]).any(axis=1)
    a, b, cos = old_pairs
    a, b = remap[a].astype(np.int64), remap[b].astype(np.int64)  # pair keys are a * n + b
    alive = (a >= 0) & (b >= 0)
    a, b, cos = np.minimum(a[alive], b[alive]), np.maximum(a[alive], b[alive]), cos[alive]
    stands = ~moved[a] & ~moved[b]
    one = np.flatnonzero(moved[a] ^ moved[b])
    still = np.where(moved[a[one]], b[one], a[one])
    other = np.where(moved[a[one]], a[one], b[one])
    stands[one] = ((new.indices[still] == other[:, None]) & (new.cosines[still] >= threshold)).any(axis=1)
    a, b, cos = a[stands], b[stands], cos[stands]
    fresh_a, fresh_b, fresh_cos = new.pairs_above(threshold, np.flatnonzero(moved))
    if a.size > 1 and not (np.diff(a * n + b) > 0).all():  # the remap kept no order (a regrouped row may keep an old row elsewhere)
        return _sorted_unique(np.concatenate([a, fresh_a]), np.concatenate([b, fresh_b]), np.concatenate([cos, fresh_cos]), n)
    keys, fresh = a * n + b, fresh_a * n + fresh_b
    at = np.searchsorted(keys, fresh)
    new_pair = keys[np.minimum(at, keys.size - 1)] != fresh if keys.size else np.ones(fresh.size, dtype=bool)
    at, fresh_a, fresh_b, fresh_cos = at[new_pair], fresh_a[new_pair], fresh_b[new_pair], fresh_cos[new_pair]
    return np.insert(a, at, fresh_a), np.insert(b, at, fresh_b), np.insert(cos, at, fresh_cos)


def _best_first(indices: np.ndarray, cosines: np.ndarray, k: int) -> NeighbourLists:
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
        block = _best_first(nearest.astype(ROW), cosines.astype(np.float32), k)
        lists.indices[start : start + nearest.shape[0]] = block.indices
        lists.cosines[start : start + nearest.shape[0]] = block.cosines
        if on_block is not None:
            on_block(nearest.shape[0])
    return lists


def _full_rows(vectors: np.ndarray | RowVectors, rows: np.ndarray, k: int) -> NeighbourLists:
    """The lists of ``rows`` against every vector (their own excluded)."""
    sims = np.ascontiguousarray((vectors @ vectors[rows].T).T, dtype=np.float32)
    sims[np.arange(rows.shape[0]), rows] = -np.inf
    candidates = np.broadcast_to(np.arange(vectors.shape[0], dtype=ROW), sims.shape)
    return _best_first(candidates, sims, k)


def patch_neighbour_lists(old: NeighbourLists, origin: np.ndarray, vectors: np.ndarray | RowVectors,
                          depth: int | None = None, floor: float | None = None, k: int | None = None) -> NeighbourLists:
    """The lists over ``vectors``, patched from ``old``.

    ``origin[i]``: the old row whose vector new row ``i`` keeps unchanged, or -1 for a new or changed vector
    (each old row the origin of at most one new row). ``k``: the lists' width (at least ``old.k``, the default;
    wider, the old lists' entries are kept and the new columns are padding). Each list holds the nearest other rows,
    best first: as many as ``build_neighbour_lists(vectors, k)`` would (up to the order of equal cosines), or fewer,
    but at least ``depth`` (default ``k``) unless fewer other rows exist. ``floor``: a list shorter than ``k`` whose
    last cosine reaches it is recomputed too, since pairs at or above the floor (``pairs_above``) may lie past its
    end; so densities of up to ``depth`` rows and pairs above ``floor`` equal a build's. A list with fewer than
    ``depth`` rows because fewer other rows exist is recomputed each time (tiny kinds only).
    """
    n, k = vectors.shape[0], max(old.k, k or 0)
    depth = k if depth is None else min(depth, k)
    remap = old_to_new(origin, old.indices.shape[0])
    kept = np.flatnonzero(origin >= 0)
    indices = remap[old.indices[origin[kept]]]
    cosines = old.cosines[origin[kept]]
    lost = np.flatnonzero(((indices < 0) & (old.indices[origin[kept]] >= 0)).any(axis=1))
    if k > old.k:
        indices = np.hstack([indices, np.full((kept.size, k - old.k), -1, dtype=indices.dtype)])
        cosines = np.hstack([cosines, np.full((kept.size, k - old.k), -np.inf, dtype=cosines.dtype)])
    if lost.size:  # what is left, moved up: still the nearest rows, only fewer
        cosines[lost] = np.where(indices[lost] >= 0, cosines[lost], -np.inf)
        left = _best_first(indices[lost], cosines[lost], k)
        indices[lost], cosines[lost] = left.indices, left.cosines
    count = (indices >= 0).sum(axis=1)
    last = np.take_along_axis(cosines, np.maximum(count - 1, 0)[:, None], 1)  # -inf for an empty list
    short = count < depth
    if floor is not None:
        short |= (count < k) & (last[:, 0] >= floor)
    added = np.flatnonzero(origin < 0)
    redo = np.concatenate([added, kept[short]])
    if added.size and kept.size:
        # Every row against the new vectors, then the kept rows: gathering the kept rows first copied the whole
        # matrix (136 MB for the 10,000-note benchmark's entities) and took 0.1-0.5 s of every edit.
        sims = (vectors @ vectors[added].T).astype(np.float32)[kept]
        gains = np.flatnonzero((sims > last).any(axis=1) & ~short)  # a new row enters a list only above its last entry
        if gains.size:
            entering = np.where(sims[gains] > last[gains], sims[gains], -np.inf)
            merged = _best_first(np.hstack([indices[gains], np.broadcast_to(added, (gains.size, added.size))]),
                                 np.hstack([cosines[gains], entering]), k)
            indices[gains], cosines[gains] = merged.indices, merged.cosines
    out = NeighbourLists(np.empty((n, k), dtype=ROW), np.empty((n, k), dtype=np.float32))  # every row is kept or redone
    if kept.size:
        out.indices[kept], out.cosines[kept] = indices, cosines
    batch = max(1, min(BATCH, RECOMPUTE_BYTES // (8 * max(n, 1))))
    for start in range(0, redo.shape[0], batch):
        rows = redo[start : start + batch]
        fresh = _full_rows(vectors, rows, k)
        out.indices[rows], out.cosines[rows] = fresh.indices, fresh.cosines
    return out
