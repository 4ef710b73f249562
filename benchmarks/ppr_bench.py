"""PPR alone on a random graph of 1,000,000 edges (target <= 100 ms), by power iteration and by Chebyshev
semi-iteration (the search's walk on a graph whose edges go both ways), counting the sparse products each takes.

A random graph is an expander: its eigenvalues sit near 0, where power iteration converges fast, so here Chebyshev
takes more products; vault graphs (eigenvalues near 1 and -1) are the other way round (BENCHMARKS.md, issue 18).

    python -m benchmarks.ppr_bench
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import scipy.sparse as sp

from engram_lab.retrieve.ppr import WalkGraph, personalized_pagerank, transition_matrix


class CountedWalk(WalkGraph):
    """A walk graph that counts its products (in ``CountedWalk.products``, across instances)."""

    products = 0

    def step(self, scores: np.ndarray, parallel: bool = True) -> np.ndarray:
        type(self).products += 1
        return super().step(scores, parallel)


def _timed(walk: WalkGraph, resets: list[np.ndarray], tol: float) -> tuple[float, float]:
    """Median milliseconds and mean products per walk."""
    counted = CountedWalk(walk.transition_t, walk.dangling, walk.splits, walk.symmetric)
    CountedWalk.products = 0
    times = []
    for reset in resets:
        started = time.perf_counter()
        personalized_pagerank(counted, reset, damping=0.5, tol=tol)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000, CountedWalk.products / len(resets)


def main(nodes: int = 110_000, edges: int = 1_000_000, runs: int = 7) -> None:
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
    adjacency = sp.coo_matrix((np.ones(edges), (rows, cols)), shape=(nodes, nodes)).tocsr()
    adjacency = adjacency + adjacency.T
    started = time.perf_counter()
    power = transition_matrix(adjacency)
    build = time.perf_counter() - started
    chebyshev = transition_matrix(adjacency, symmetric=True)
    resets = []
    for _ in range(runs):
        reset = np.zeros(nodes)
        reset[rng.integers(0, nodes, 20)] = rng.random(20)
        resets.append(reset)
    print(f"PPR on {nodes:,} nodes, {edges:,} random edges (symmetrised), damping 0.5, {runs} resets of 20 seeds")
    print("| measure | power iteration | Chebyshev |\n|---|---|---|")
    print(f"| transition matrix build (once per index) | {build * 1000:.0f} ms | |")
    for label, tol, single in (("tol 1e-8, float64", 1e-8, False), ("tol 1e-4, float32 (as `full`)", 1e-4, True)):
        figures = [_timed(walk.single_precision() if single else walk, resets, tol) for walk in (power, chebyshev)]
        cells = " | ".join(f"{ms:.0f} ms, {products:.1f} products" for ms, products in figures)
        print(f"| PPR, median, {label} | {cells} |")


if __name__ == "__main__":
    main()
