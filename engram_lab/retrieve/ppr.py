"""Personalized PageRank on a scipy.sparse graph.

``scores = (1 - damping) * reset + damping * (P^T scores)`` with P the row-normalised
weighted adjacency. Mass on nodes without out-edges returns through the reset
vector, as in networkx, so the result sums to one. Differentially tested
against ``networkx.pagerank(personalization=...)``.

A graph whose edges go both ways (the search's) is walked by Chebyshev semi-iteration: ``P^T = A D^-1`` is then
similar to the symmetric ``D^-1/2 A D^-1/2``, so ``damping * P^T`` has real eigenvalues in
``[-damping, damping]``, and the Chebyshev recurrence shrinks the error by ~0.27 per step at damping 0.5 whatever
the eigenvalues, where power iteration shrinks it by ``damping`` times the largest the error holds. Vault graphs
hold eigenvalues near 1 and -1 (notes and their entities form a near-bipartite graph): to a change of 1e-4, 9
products instead of 12 on rust-rfcs, MuSiQue and the 100,000-note benchmark (each one pass over ten million
entries there). A random expander graph, whose eigenvalues sit near 0, is the case power iteration wins (9
products against 11, ``benchmarks/ppr_bench.py``). Other graphs are walked by power iteration.

A large two-way graph may be walked locally instead (``local_pagerank``): residual mass is pushed from the nodes
holding much of it to their neighbours only, so the work follows where the seeds' mass goes, not the graph's size.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import scipy.sparse as sp

# Above this many stored edges a single-precision step may be split into row blocks multiplied on all
# cores (scipy's sparse product releases the GIL): on 2 cores and 2.4 M entries, 1.9 -> ~1.4 ms per
# step, auto p50 22 -> 19 ms. A walk right after the query encoder stays whole: the encoder's threads
# still hold the cores, and `full` measured slower split (p50 120 -> 133 ms, in double precision).
PARALLEL_MIN_NNZ = 500_000


@lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="engram-ppr")


SINGLE_PRECISION_FLOOR = 1e-6  # a float32 walk cannot resolve changes much below this: tighter stops walk float64


@dataclass(frozen=True)
class WalkGraph:
    """A transposed transition matrix and its dangling nodes, computed once per graph, not once per query."""

    transition_t: sp.csr_matrix
    dangling: np.ndarray  # indices of nodes without out-edges
    splits: bool = False  # a large float32 graph: steps may run in row blocks on all cores
    symmetric: bool = False  # made from an adjacency equal to its transpose: real spectrum, Chebyshev walks
    weight: np.ndarray | None = None  # each node's summed edge weight (two-way graphs): what a local walk pushes by

    def step(self, scores: np.ndarray, parallel: bool = True) -> np.ndarray:
        """``transition_t @ scores``, on all cores when the graph is large and ``parallel``."""
        if not (parallel and self.splits) or len(self.blocks) < 2:
            return self.transition_t @ scores
        return np.concatenate(list(_pool().map(lambda block: block @ scores, self.blocks)))

    @cached_property
    def blocks(self) -> tuple[sp.csr_matrix, ...]:
        """Row blocks of ``transition_t`` (copies), made on the first parallel step: a process whose walks all
        follow the query encoder never holds them."""
        return _row_blocks(self.transition_t) if self.splits else ()

    @property
    def size(self) -> int:
        return int(self.transition_t.shape[0])

    def single_precision(self) -> WalkGraph:
        """The same graph in float32: a quarter less memory traffic per step, for walks stopped early (1e-3, 1e-4)."""
        return WalkGraph(self.transition_t.astype(np.float32), self.dangling, splits=True, symmetric=self.symmetric,
                         weight=self.weight)


def transition_matrix(adjacency: sp.spmatrix, symmetric: bool = False) -> WalkGraph:
    """Row-normalised transpose, ready for ``P^T @ x``; rows without edges stay zero (dangling).

    ``symmetric``: the caller guarantees ``adjacency`` equals its transpose; then ``P^T = (D^-1 A)^T = A D^-1``,
    each entry divided by its column's weight, with no product and no transpose (at 100,000 notes those two
    conversions of four million entries were ~1 s of every edit)."""
    adjacency = sp.csr_matrix(adjacency, dtype=np.float64)
    out_weight = np.asarray(adjacency.sum(axis=1)).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    if symmetric:
        transition_t = sp.csr_matrix((adjacency.data * inverse[adjacency.indices], adjacency.indices, adjacency.indptr),
                                     shape=adjacency.shape)
    else:
        transition_t = sp.csr_matrix(sp.diags(inverse) @ adjacency).T.tocsr()
    return WalkGraph(transition_t, np.flatnonzero(out_weight == 0), symmetric=symmetric,
                     weight=out_weight if symmetric else None)


def _row_blocks(matrix: sp.csr_matrix) -> tuple[sp.csr_matrix, ...]:
    """Row blocks holding about equal numbers of entries, one per core, or none for a small graph."""
    workers = os.cpu_count() or 1
    if workers < 2 or matrix.nnz < PARALLEL_MIN_NNZ:
        return ()
    cuts = np.searchsorted(matrix.indptr, np.linspace(0, matrix.nnz, workers + 1)[1:-1])
    bounds = [0, *(int(c) for c in cuts), matrix.shape[0]]
    return tuple(matrix[a:b] for a, b in zip(bounds, bounds[1:]) if b > a)


def personalized_pagerank(
    graph: WalkGraph,
    reset: np.ndarray,
    damping: float = 0.5,
    tol: float = 1e-10,
    max_iter: int = 200,
    parallel: bool = True,
) -> np.ndarray:
    """Stationary scores for restart distribution ``reset`` (normalised here); ``damping`` = 1 - restart probability.

    Computed in the matrix's precision: a float32 graph cannot resolve changes much below 1e-6. ``parallel``: steps
    may use the graph's row blocks (not right after the query encoder, ``PARALLEL_MIN_NNZ``).
    """
    scaled = _scaled_reset(graph, reset, damping)
    if scaled is None:
        return np.zeros(graph.size)
    walk = _chebyshev if graph.symmetric else _power_iteration
    return walk(graph, scaled, damping, tol, max_iter, parallel).astype(np.float64, copy=False)


def _scaled_reset(graph: WalkGraph, reset: np.ndarray, damping: float) -> np.ndarray | None:
    """``reset`` scaled to sum one, a new array in the matrix's precision, or None when it holds no mass; a damping
    outside [0, 1) is refused."""
    if not 0.0 <= damping < 1.0:
        raise ValueError("damping must be in [0, 1)")
    total = float(reset.sum())
    if total <= 0:
        return None
    return (reset / total).astype(graph.transition_t.dtype, copy=False)


def local_pagerank(graph: WalkGraph, reset: np.ndarray, damping: float = 0.5, epsilon: float = 1e-7) -> np.ndarray:
    """``personalized_pagerank`` by pushing residual mass (Andersen, Chung and Lang), in rounds: every node holding
    more than ``epsilon`` times its edge weight keeps ``1 - damping`` of it and passes the rest to its neighbours,
    all such nodes at once, until none does. The pushes read edges weighing less than ``1 / ((1 - damping) *
    epsilon)`` in all, whatever the graph's size (each round also passes over the node vector a few times): a query
    seeding a few hundred nodes of a 100,000-note graph reads a fraction of its ten million entries, where each
    Chebyshev step reads them all.

    Two-way graphs only. What is left unpushed changes no node's score by more than ``epsilon`` times its edge
    weight (before the scores are scaled to sum one): by detailed balance, ``v``'s inflow from a residual ``r[u]``
    is ``w(v) / w(u)`` times ``v``'s own walk's share of ``u``, and ``r[u] <= epsilon * w(u)``. The far reaches of
    the graph are what it leaves out, not the nodes near the seeds that a search ranks. Computed in the matrix's
    precision, as ``personalized_pagerank``: a float32 graph adds rounding of about 1e-7 of each score, which can
    outweigh that bound on a node of small weight.
    """
    if not graph.symmetric or graph.weight is None:
        raise ValueError("a local walk needs a two-way graph (transition_matrix(..., symmetric=True))")
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError("epsilon must be a positive number (0 would push forever)")
    scaled = _scaled_reset(graph, reset, damping)
    if scaled is None:
        return np.zeros(graph.size)
    kept, residual = _push(graph, scaled, damping, epsilon)
    estimate = kept + (1.0 - damping) * residual  # the restart share of what stays unpushed: its first step
    return (estimate / (kept.sum() + residual.sum())).astype(np.float64, copy=False)


def _push(graph: WalkGraph, residual: np.ndarray, damping: float, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The scores kept by the pushes and the residual left (``residual`` is consumed)."""
    weight = graph.weight.astype(residual.dtype, copy=False)  # type: ignore[union-attr]
    inverse = np.divide(1.0, weight, out=np.zeros_like(weight), where=weight > 0)
    # Never below the smallest normal number: a denormal residual times the damping can round back to itself, and a
    # threshold of 0 would push it forever.
    threshold = np.maximum(epsilon * weight, np.finfo(residual.dtype).tiny)
    kept = np.zeros_like(residual)
    while (active := np.flatnonzero(residual > threshold)).size:  # strict: a node without edges pushes once
        mass = residual[active]
        residual[active] = 0
        kept[active] += (1.0 - damping) * mass
        # Column u of P^T = A D^-1 is row u of the two-way A over w(u), and row u of P^T is that row over each
        # neighbour's weight: so the push reads the active rows of P^T itself, with no transposed copy.
        residual += damping * weight * (graph.transition_t[active].T @ (mass * inverse[active]))
    return kept, residual


def _power_iteration(graph: WalkGraph, reset: np.ndarray, damping: float, tol: float, max_iter: int,
                     parallel: bool) -> np.ndarray:
    """Steps until the L1 change is below ``tol`` (then at most ``damping / (1 - damping)`` times it is left)."""
    restart = (1.0 - damping) * reset
    scores = reset.copy()
    for _ in range(max_iter):
        new = graph.step(scores, parallel)
        new += scores[graph.dangling].sum() * reset  # mass on dead ends restarts
        new *= damping
        new += restart
        change = float(np.abs(new - scores).sum())
        scores = new
        if change < tol:
            break
    return scores


def _chebyshev(graph: WalkGraph, reset: np.ndarray, damping: float, tol: float, max_iter: int,
               parallel: bool) -> np.ndarray:
    """Chebyshev semi-iteration (Golub and Varga) for ``y = damping * P^T y + (1 - damping) * reset``.

    Without the dead ends' restart the system is linear with a spectrum in ``[-damping, damping]``; its solution,
    normalised to sum one, is the walk's scores (dead ends restarting through ``reset`` only rescale it). Stops when
    one step changes the scores by less than ``tol`` times their total (1, less the restart share of any seed
    without edges) in L1, and returns that step's scores, so what is left is at most
    ``damping / (1 - damping)`` times the change, as for power iteration."""
    restart = (1.0 - damping) * reset
    previous, current = reset, reset.copy()
    weight = 1.0
    stepped = current
    for step in range(max_iter):
        stepped = graph.step(current, parallel)
        stepped *= damping
        stepped += restart
        if float(np.abs(stepped - current).sum()) < tol * float(np.abs(stepped).sum()):
            break
        weight = _chebyshev_weight(step, damping, weight)
        following = stepped - previous  # x_{k+1} = w (F(x_k) - x_{k-1}) + x_{k-1}
        following *= weight
        following += previous
        previous, current = current, following
    np.maximum(stepped, 0, out=stepped)  # an overshoot of the recurrence could leave an entry below zero
    return stepped / stepped.sum()


def _chebyshev_weight(step: int, bound: float, last: float) -> float:
    """The recurrence's weight for step ``step`` (0-based) on a spectrum within ``[-bound, bound]``: 1 first (a plain
    step), then ``1 / (1 - bound^2 / 2)``, then ``1 / (1 - bound^2 * last / 4)``; it tends to
    ``2 / (1 + sqrt(1 - bound^2))``."""
    if step == 0:
        return 1.0
    if step == 1:
        return 1.0 / (1.0 - bound * bound / 2.0)
    return 1.0 / (1.0 - bound * bound * last / 4.0)
