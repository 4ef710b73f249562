"""CSLS demotes hubs, keeps the raw top-1, and its density matches a brute-force computation."""

from __future__ import annotations

import numpy as np

from engram_lab.retrieve.csls import local_density, top_candidates


def unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_density_matches_brute_force():
    rng = np.random.default_rng(0)
    vectors = unit(rng.normal(size=(50, 8)))
    got = local_density(vectors, k=5, batch=7)
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    expected = np.sort(sims, axis=1)[:, -5:].mean(axis=1)
    assert np.allclose(got, expected, atol=1e-6)


def test_hub_is_demoted_but_raw_top1_is_kept():
    cosines = np.array([0.80, 0.78, 0.60, 0.10])
    density = np.array([0.90, 0.20, 0.10, 0.0])  # candidate 0 sits in a crowd
    assert top_candidates(cosines, None, 2).tolist() == [0, 1]
    ranked = top_candidates(cosines, density, 2)
    assert ranked[0] == 1 and 0 in ranked  # demoted, yet admitted by the floor
    assert top_candidates(cosines, density, 3).tolist()[:2] == [1, 2]


def test_empty_inputs():
    assert top_candidates(np.zeros(0), None, 3).size == 0
    assert local_density(np.zeros((1, 4), dtype=np.float32)).tolist() == [0.0]
