"""PPR against networkx on random graphs (differential), plus the edge cases."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from benchmarks.ppr_bench import CountedWalk
from engram_lab.retrieve.ppr import WalkGraph, _push, local_pagerank, personalized_pagerank, transition_matrix


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_matches_networkx_on_random_weighted_graphs(seed, damping):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    graph = nx.gnp_random_graph(n, 0.1, seed=seed, directed=bool(seed % 2))
    graph.add_nodes_from(range(n))
    for u, v in graph.edges:
        graph[u][v]["weight"] = float(rng.uniform(0.1, 3.0))
    reset = {i: float(rng.uniform(0, 1)) if rng.uniform() < 0.3 else 0.0 for i in range(n)}
    reset[int(rng.integers(n))] = 1.0
    expected = nx.pagerank(graph, alpha=damping, personalization=reset, weight="weight", tol=1e-13, max_iter=1000)
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(n), weight="weight")
    got = personalized_pagerank(transition_matrix(adjacency), np.array([reset[i] for i in range(n)]), damping, tol=1e-13)
    assert np.allclose(got, [expected[i] for i in range(n)], atol=1e-6)
    assert got.sum() == pytest.approx(1.0)


def test_zero_reset_gives_zeros():
    t = transition_matrix(sp.csr_matrix(np.ones((3, 3))))
    assert personalized_pagerank(t, np.zeros(3)).tolist() == [0.0, 0.0, 0.0]


def test_invalid_damping():
    with pytest.raises(ValueError):
        personalized_pagerank(transition_matrix(sp.eye(2)), np.ones(2), damping=1.0)


def test_dangling_nodes_are_found_once_per_graph():
    adjacency = sp.csr_matrix(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]], dtype=float))
    graph = transition_matrix(adjacency)
    assert graph.dangling.tolist() == [2]  # node 2 has no out-edge
    scores = personalized_pagerank(graph, np.array([1.0, 0, 0, 0]))
    assert scores.sum() == pytest.approx(1.0)


def test_a_large_single_precision_graph_steps_in_parallel_blocks_with_the_same_result(monkeypatch):
    import engram_lab.retrieve.ppr as ppr

    monkeypatch.setattr(ppr, "PARALLEL_MIN_NNZ", 10)
    monkeypatch.setattr(ppr.os, "cpu_count", lambda: 3)
    rng = np.random.default_rng(4)
    adjacency = sp.random(200, 200, density=0.05, random_state=5, format="csr")
    whole = transition_matrix(adjacency + adjacency.T)
    assert whole.blocks == ()  # double precision: one product
    single = whole.single_precision()
    reset = rng.random(200)
    unsplit = WalkGraph(single.transition_t, single.dangling)
    assert np.array_equal(personalized_pagerank(single, reset, tol=1e-6, parallel=False), personalized_pagerank(unsplit, reset, tol=1e-6))
    assert "blocks" not in single.__dict__  # made on the first parallel step only: a walk after the encoder never does
    assert np.allclose(personalized_pagerank(single, reset, tol=1e-6), personalized_pagerank(unsplit, reset, tol=1e-6), atol=1e-7)
    assert len(single.blocks) == 3 and sum(b.shape[0] for b in single.blocks) == 200
    assert np.abs(personalized_pagerank(single, reset, tol=1e-6) - personalized_pagerank(whole, reset, tol=1e-12)).sum() < 1e-5


def test_full_search_stops_within_its_tolerance_of_the_converged_scores():
    """What is left after the stop is at most damping / (1 - damping) times the last change: the change itself at 0.5."""
    from engram_lab.retrieve.settings import settings_for

    tol = settings_for("full").ppr_tolerance
    rng = np.random.default_rng(7)
    adjacency = sp.random(2000, 2000, density=0.003, random_state=3, format="csr")
    reset = np.zeros(2000)
    reset[rng.choice(2000, 5, replace=False)] = rng.random(5)
    for symmetric in (False, True):  # power iteration, and Chebyshev as the search walks
        graph = transition_matrix(adjacency + adjacency.T, symmetric=symmetric)
        converged = personalized_pagerank(graph, reset, 0.5, tol=1e-14, max_iter=1000)
        stopped = personalized_pagerank(graph, reset, 0.5, tol=tol)
        assert 0 < np.abs(converged - stopped).sum() <= tol
        single = personalized_pagerank(graph.single_precision(), reset, 0.5, tol=tol, parallel=False)  # as `full` walks
        assert np.abs(converged - single).sum() <= tol + 1e-6  # float32 rounding: far below the stop


def _two_way_graph(seed: int, bipartite: bool = False) -> tuple[nx.Graph, np.ndarray]:
    """A weighted undirected graph with an isolated node and a reset on a few nodes (one of them the isolated one
    for odd seeds: a seed that is a dead end restarts)."""
    rng = np.random.default_rng(seed)
    if bipartite:  # eigenvalue -1: the other end of the spectrum Chebyshev must also damp
        graph = nx.algorithms.bipartite.random_graph(30, 45, 0.1, seed=seed)
    else:
        graph = nx.gnp_random_graph(int(rng.integers(20, 80)), 0.08, seed=seed)
    isolated = graph.number_of_nodes()
    graph.add_node(isolated)
    for u, v in graph.edges:
        graph[u][v]["weight"] = float(rng.uniform(0.1, 3.0))
    reset = np.zeros(isolated + 1)
    reset[rng.choice(isolated, 4, replace=False)] = rng.uniform(0.2, 1.0, 4)
    if seed % 2:
        reset[isolated] = 0.5
    return graph, reset


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("damping", [0.5, 0.85])
@pytest.mark.parametrize("bipartite", [False, True])
def test_a_two_way_graph_walked_by_chebyshev_matches_networkx(seed, damping, bipartite):
    graph, reset = _two_way_graph(seed, bipartite)
    n = graph.number_of_nodes()
    expected = nx.pagerank(graph, alpha=damping, personalization=dict(enumerate(reset)), weight="weight", tol=1e-14,
                           max_iter=5000)
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(n), weight="weight")
    walk = transition_matrix(adjacency, symmetric=True)
    assert walk.symmetric and walk.single_precision().symmetric
    got = personalized_pagerank(walk, reset, damping, tol=1e-13)
    assert np.allclose(got, [expected[i] for i in range(n)], atol=1e-9)
    assert got.sum() == pytest.approx(1.0) and got.min() >= 0


def test_chebyshev_needs_fewer_products_than_power_iteration_for_the_same_error():
    """Twelve products at damping 0.5 leave ~1e-6 where power iteration leaves ~1e-5 (its error halves per step)."""
    graph, reset = _two_way_graph(3, bipartite=True)
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(graph.number_of_nodes()), weight="weight")
    two_way = transition_matrix(adjacency, symmetric=True)
    converged = personalized_pagerank(two_way, reset, 0.5, tol=1e-15, max_iter=1000)
    chebyshev = personalized_pagerank(two_way, reset, 0.5, tol=0.0, max_iter=12)
    power = personalized_pagerank(transition_matrix(adjacency), reset, 0.5, tol=0.0, max_iter=12)
    assert np.abs(chebyshev - converged).sum() < 1e-6 < 1e-5 < np.abs(power - converged).sum()


@pytest.mark.parametrize("seed", range(4))
def test_the_symmetric_shortcut_gives_the_same_transition_matrix(seed):
    rng = np.random.default_rng(seed)
    upper = sp.random(40, 40, density=0.08, random_state=seed, format="csr")
    adjacency = (upper + upper.T).tolil()
    dangling = int(rng.integers(40))
    adjacency[dangling, :] = 0  # no edge either way
    adjacency[:, dangling] = 0
    adjacency = sp.csr_matrix(adjacency)
    general, shortcut = transition_matrix(adjacency), transition_matrix(adjacency, symmetric=True)
    np.testing.assert_allclose(shortcut.transition_t.toarray(), general.transition_t.toarray(), rtol=1e-12)
    assert shortcut.dangling.tolist() == general.dangling.tolist() and shortcut.dangling.size


def _reference_chebyshev(transition_t: np.ndarray, reset: np.ndarray, damping: float, tol: float,
                         max_iter: int) -> tuple[np.ndarray, int]:
    """Golub and Varga's semi-iteration written out on a dense matrix, with the stop the module documents: the
    scores and the products taken."""
    reset = reset / reset.sum()
    restart = (1 - damping) * reset
    previous, current, stepped = reset, reset, reset
    weights = [1.0, 1.0 / (1 - damping**2 / 2)]
    for k in range(max_iter):
        stepped = damping * transition_t @ current + restart
        if np.abs(stepped - current).sum() < tol * np.abs(stepped).sum():
            return np.maximum(stepped, 0) / np.maximum(stepped, 0).sum(), k + 1
        if k >= 2:
            weights.append(1.0 / (1 - damping**2 * weights[-1] / 4))
        previous, current = current, weights[k] * (stepped - previous) + previous
    return np.maximum(stepped, 0) / np.maximum(stepped, 0).sum(), max_iter


@pytest.mark.parametrize("seed", range(6))
def test_chebyshev_takes_the_reference_recurrences_steps_and_stops_where_it_does(seed):
    """Every partial walk (1-8 products) equals the written-out recurrence's, and with a tolerance both stop after
    the same number of products: a wrong weight, scores returned before the last step or a looser stop all differ."""
    graph, reset = _two_way_graph(seed, bipartite=bool(seed % 3 == 0))
    if seed % 2:
        reset[-1] = 4 * reset.sum()  # most of the restart on a seed without edges: the stop is relative to the total
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(graph.number_of_nodes()), weight="weight")
    walk = transition_matrix(adjacency, symmetric=True)
    dense = walk.transition_t.toarray()
    for damping in (0.5, 0.85):
        for steps in range(1, 9):
            expected, _ = _reference_chebyshev(dense, reset, damping, 0.0, steps)
            np.testing.assert_allclose(personalized_pagerank(walk, reset, damping, tol=0.0, max_iter=steps), expected,
                                       rtol=0, atol=1e-12)
        for tol in (1e-3, 1e-4, 1e-6):
            counted = CountedWalk(walk.transition_t, walk.dangling, symmetric=True)
            CountedWalk.products = 0
            got = personalized_pagerank(counted, reset, damping, tol=tol)
            expected, products = _reference_chebyshev(dense, reset, damping, tol, 200)
            assert CountedWalk.products == products
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_a_local_walk_pushed_to_a_tiny_epsilon_matches_networkx(seed, damping):
    graph, reset = _two_way_graph(seed, bipartite=bool(seed % 3 == 0))
    n = graph.number_of_nodes()
    expected = nx.pagerank(graph, alpha=damping, personalization=dict(enumerate(reset)), weight="weight", tol=1e-14,
                           max_iter=5000)
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(n), weight="weight")
    got = local_pagerank(transition_matrix(adjacency, symmetric=True), reset, damping, epsilon=1e-13)
    assert np.allclose(got, [expected[i] for i in range(n)], atol=1e-9)
    assert got.sum() == pytest.approx(1.0) and got.min() >= 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("epsilon", [1e-2, 1e-3, 1e-4])
def test_what_a_local_walk_leaves_unpushed_moves_no_score_by_more_than_epsilon_times_its_weight(seed, epsilon):
    """Against the exact linear solution ``y = (1 - d) (I - d P^T)^-1 reset``: the kept scores plus the residual's
    restart share fall short of ``y`` by between 0 and ``epsilon * w(v)`` at every node, and the residual is below
    its threshold everywhere."""
    graph, reset = _two_way_graph(seed, bipartite=bool(seed % 2))
    n = graph.number_of_nodes()
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(n), weight="weight")
    walk = transition_matrix(adjacency, symmetric=True)
    reset = reset / reset.sum()
    damping = 0.5
    exact = (1 - damping) * np.linalg.solve(np.eye(n) - damping * walk.transition_t.toarray(), reset)
    kept, residual = _push(walk, reset.copy(), damping, epsilon)
    assert np.all(residual <= epsilon * walk.weight)
    shortfall = exact - (kept + (1 - damping) * residual)
    assert shortfall.min() >= -1e-12
    assert np.all(shortfall <= epsilon * walk.weight + 1e-12)
    assert shortfall.max() > 0  # the bound is met by leaving something out, not by pushing everything
    if reset[-1] == 0:  # no mass reaches a dead end: nothing is lost, and the scaled scores stay below the exact ones
        local = local_pagerank(walk, reset, damping, epsilon)
        assert np.all(local <= exact + 1e-12)
        assert np.abs(exact - local).sum() < np.abs(exact - kept).sum()  # the residual's restart share brings it closer


def test_a_local_walk_reads_the_seeds_surroundings_not_the_whole_graph():
    """A ring of 200,000 nodes seeded at one: the pushes reach a few dozen nodes either side, as the bound on the
    weight they read (1 / ((1 - d) * epsilon)) says, and those scores match the whole-graph walk's."""
    n = 200_000
    nodes = np.arange(n)
    ring = sp.csr_matrix((np.ones(2 * n), (np.r_[nodes, nodes], np.r_[(nodes + 1) % n, (nodes - 1) % n])), shape=(n, n))
    walk = transition_matrix(ring, symmetric=True)
    reset = np.zeros(n)
    reset[7] = 1.0
    local = local_pagerank(walk, reset, 0.5, epsilon=1e-6)
    reached = np.flatnonzero(local)
    assert reached.size < 100 and 7 in reached
    whole = personalized_pagerank(walk, reset, 0.5, tol=1e-14)
    np.testing.assert_allclose(local[reached], whole[reached], rtol=0, atol=1e-5)


@pytest.mark.parametrize("epsilon, damping", [(1e-50, 0.85), (1e-60, 0.9), (1e-300, 0.5)])
def test_a_local_walk_ends_even_with_an_epsilon_below_what_float32_resolves(epsilon, damping):
    """A threshold that rounds to 0, or a denormal residual that the damping rounds back to itself, once pushed forever."""
    two_way = transition_matrix(sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])), symmetric=True)
    for walk in (two_way, two_way.single_precision()):
        got = local_pagerank(walk, np.array([1.0, 0.0]), damping, epsilon)
        np.testing.assert_allclose(got, personalized_pagerank(walk, np.array([1.0, 0.0]), damping, tol=1e-12), atol=1e-6)


def test_a_local_walk_needs_a_two_way_graph_and_a_valid_damping():
    adjacency = sp.csr_matrix(np.array([[0.0, 1.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="two-way"):
        local_pagerank(transition_matrix(adjacency), np.ones(2))
    two_way = transition_matrix(adjacency + adjacency.T, symmetric=True)
    with pytest.raises(ValueError, match="damping"):
        local_pagerank(two_way, np.ones(2), damping=1.0)
    for epsilon in (0.0, -1e-7, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="epsilon"):
            local_pagerank(two_way, np.ones(2), epsilon=epsilon)
    assert not local_pagerank(two_way, np.zeros(2)).any()
    assert two_way.single_precision().weight is two_way.weight
