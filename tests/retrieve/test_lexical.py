"""Lexical seeding: exact and normalised names always; fuzzy ones only when asked (auto mode does not)."""

from __future__ import annotations

import random

import numpy as np
import scipy.sparse as sp

from engram_lab.retrieve.lexical import LexicalMatcher
from engram_lab.retrieve.ppr import local_pagerank, personalized_pagerank, transition_matrix
from engram_lab.retrieve.settings import settings_for


def test_exact_normalised_and_fuzzy_matches():
    matcher = LexicalMatcher({"e:marta": ["Marta Hallberg"], "e:neri": ["Northern Estuary Research Institute", "NERI"]})
    position = {"e:marta": 0, "e:neri": 1}
    assert matcher.match("What did marta hallberg say?", position) == {0: 1.0}
    assert matcher.match("Where is NERI?", position, fuzzy=False) == {1: 1.0}
    fuzzy = matcher.match("What did Marta Halberg say?", position)
    assert 0 in fuzzy and 0.85 <= fuzzy[0] < 1.0
    assert matcher.match("What did Marta Halberg say?", position, fuzzy=False) == {}


def test_a_patched_matcher_equals_one_built_from_the_labels_it_ends_with():
    rng = random.Random(7)
    words = ["Hall", "Hallberg", "Marta", "Mill", "Reach", "NERI", "Acme", "Acme Corp", "Halberg", "Institute"]

    def labels() -> list[str]:
        return [" ".join(rng.sample(words, rng.randint(1, 2))) for _ in range(rng.randint(1, 3))]

    current = {f"e:{i}": labels() for i in range(30)}
    matcher = LexicalMatcher(current)
    queries = [" ".join(rng.sample(words, 3)) for _ in range(40)]
    for _ in range(25):
        gone = rng.sample(sorted(current), rng.randint(0, 3))
        for iri in gone:
            del current[iri]
        changed = {f"e:{rng.randint(0, 45)}": labels() for _ in range(rng.randint(0, 4))}
        current |= changed
        matcher.patch(gone, changed)
        built = LexicalMatcher(current)
        position = {iri: i for i, iri in enumerate(sorted(current))}
        assert {n: sorted(i) for n, i in matcher.exact.items()} == {n: sorted(i) for n, i in built.exact.items()}
        assert {p: sorted(n) for p, n in matcher.by_prefix.items() if n} == {p: sorted(n) for p, n in built.by_prefix.items() if n}
        for query in queries:
            assert matcher.match(query, position) == built.match(query, position)


def test_auto_mode_walks_locally_without_fuzzy_names():
    auto, full = settings_for("auto"), settings_for("full")
    assert not auto.lexical_fuzzy and full.lexical_fuzzy
    assert auto.ppr_local == full.ppr_local > 0 and auto.ppr_tolerance > full.ppr_tolerance
    assert 0 < auto.ppr_local_from < full.ppr_local_from  # its few seeds make a local walk pay on smaller graphs
    rng = np.random.default_rng(1)
    adjacency = sp.random(300, 300, density=0.02, random_state=2, format="csr")
    graph = transition_matrix(adjacency + adjacency.T, symmetric=True)
    reset = np.where(rng.random(300) < 0.05, rng.random(300), 0.0)  # a few seeds, as names and BM25 give
    exact = personalized_pagerank(graph, reset, 0.5, tol=1e-12)
    assert auto.ppr_single_precision and full.ppr_single_precision
    local = local_pagerank(graph, reset, 0.5, auto.ppr_local)
    assert local.dtype == np.float64
    # The bound, divided by the scores' total before scaling: at least the restart share, 1 - damping.
    assert np.all(np.abs(exact - local) <= 2 * auto.ppr_local * graph.weight + 1e-12)
    single = local_pagerank(graph.single_precision(), reset, 0.5, auto.ppr_local)
    assert np.all(np.abs(exact - single) <= auto.ppr_local * graph.weight + 1e-6 * exact)  # float32 rounding beside it


def test_auto_mode_walks_a_small_graph_whole_to_a_looser_tolerance():
    auto, full = settings_for("auto"), settings_for("full")
    assert auto.ppr_tolerance > full.ppr_tolerance and auto.ppr_single_precision
    rng = np.random.default_rng(1)
    adjacency = sp.random(300, 300, density=0.02, random_state=2, format="csr")
    graph = transition_matrix(adjacency + adjacency.T, symmetric=True)
    assert graph.transition_t.nnz < auto.ppr_local_from  # walked whole
    reset = rng.random(300)
    exact = personalized_pagerank(graph, reset, 0.5, tol=1e-12)
    single = personalized_pagerank(graph.single_precision(), reset, 0.5, tol=auto.ppr_tolerance)
    assert single.dtype == np.float64 and np.abs(exact - single).sum() < 2e-3  # the documented bound of the early stop
