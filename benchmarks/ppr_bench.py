"""PPR alone on a random graph of 1,000,000 edges (target <= 100 ms).

    python -m benchmarks.ppr_bench
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import scipy.sparse as sp

from engram_lab.retrieve.ppr import personalized_pagerank, transition_matrix


def main(nodes: int = 110_000, edges: int = 1_000_000, runs: int = 7) -> None:
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
    adjacency = sp.coo_matrix((np.ones(edges), (rows, cols)), shape=(nodes, nodes)).tocsr()
    adjacency = adjacency + adjacency.T
    started = time.perf_counter()
    walk = transition_matrix(adjacency)
    build = time.perf_counter() - started
    times = []
    for _ in range(runs):
        reset = np.zeros(nodes)
        reset[rng.integers(0, nodes, 20)] = rng.random(20)
        started = time.perf_counter()
        personalized_pagerank(walk, reset, damping=0.5, tol=1e-8)
        times.append(time.perf_counter() - started)
    print(f"PPR on {nodes:,} nodes, {edges:,} random edges (symmetrised), damping 0.5, tol 1e-8")
    print("| measure | value |\n|---|---|")
    print(f"| transition matrix build (once per index) | {build * 1000:.0f} ms |")
    print(f"| PPR, median of {runs} | {statistics.median(times) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
