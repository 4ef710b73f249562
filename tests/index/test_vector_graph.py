"""The HNSW graph kept for search: found rows against the exact nearest, carried over patches, refused after a
compaction; and the dense leg that asks it."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from engram_lab.index import row_vectors, vector_graph
from engram_lab.index.approximate_neighbours import approximate_lists
from engram_lab.index.row_vectors import RowVectors, save_vectors
from engram_lab.index.vector_graph import carry_graph, searched_graph, write_graph
from engram_lab.retrieve.dense_candidates import facts_in_best_sections, leg_cosines

D = 16
N = 600


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, D)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _built(tmp_path: Path, dense: np.ndarray) -> tuple[Path, RowVectors]:
    """A cold build's folder: the store written compact and the lists' graph kept beside it."""
    folder = tmp_path / "cold"
    folder.mkdir()
    approximate_lists(dense, 8, keep_graph=lambda graph: write_graph(graph, folder, "v", dense))
    return folder, save_vectors(RowVectors.of(dense), folder, "v")


@pytest.fixture(autouse=True)
def searched_from_any_size(monkeypatch):
    monkeypatch.setattr(vector_graph, "SEARCH_FROM", 1)


def test_the_graph_finds_the_exact_nearest_rows(tmp_path):
    rng = np.random.default_rng(0)
    dense = _unit(rng, N)
    folder, vectors = _built(tmp_path, dense)
    graph = searched_graph(folder, "v", vectors)
    assert graph is not None
    for q in _unit(rng, 20):
        found = graph.nearest(q, 50)
        exact = np.argsort(-(dense @ q))[:10]
        assert set(exact) <= set(found)  # the ten best are among the graph's fifty (a few hundred rows: it is exact)


def test_too_few_rows_or_no_graph_means_every_vector_is_read(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    dense = _unit(rng, N)
    folder, vectors = _built(tmp_path, dense)
    monkeypatch.setattr(vector_graph, "SEARCH_FROM", N + 1)
    assert searched_graph(folder, "v", vectors) is None
    monkeypatch.setattr(vector_graph, "SEARCH_FROM", 1)
    assert searched_graph(folder, "other", vectors) is None
    (folder / "v.hnsw.json").write_text("{not json", encoding="utf-8")
    assert searched_graph(folder, "v", vectors) is None


def test_a_patch_links_the_graph_and_searches_appended_rows_and_never_removed_ones(tmp_path):
    rng = np.random.default_rng(2)
    dense = _unit(rng, N)
    folder, vectors = _built(tmp_path, dense)
    q = _unit(rng, 1)[0]
    best = int(np.argmax(dense @ q))
    origin = np.concatenate([np.delete(np.arange(N), best), [-1, -1]])  # the best row removed, two rows added
    added = np.vstack([q, -q]).astype(np.float32)
    patched = tmp_path / "patched"
    patched.mkdir()
    saved = save_vectors(vectors.patched(origin, added), patched, "v")
    carry_graph(folder, patched, "v", saved)
    assert os.stat(patched / "v.hnsw").st_ino == os.stat(folder / "v.hnsw").st_ino  # linked, not written again
    graph = searched_graph(patched, "v", saved)
    assert graph is not None
    found = graph.nearest(q, 20)
    assert {N - 1, N} <= set(found)  # the appended rows (logical N - 1 and N), searched exactly
    expected = np.asarray(saved)
    cosines = leg_cosines(saved, graph, q, kept=5)
    assert int(np.argmax(cosines)) == N - 1 and np.isneginf(cosines).sum() == len(saved) - np.isfinite(cosines).sum()
    np.testing.assert_allclose(cosines[np.isfinite(cosines)], (expected @ q)[np.isfinite(cosines)], rtol=1e-6)
    assert (np.asarray(found) < len(saved)).all() and len(set(found)) == len(found)


def test_a_compacted_store_leaves_the_graph_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(row_vectors, "COMPACT_SLACK", 2)
    rng = np.random.default_rng(3)
    dense = _unit(rng, N)
    folder, vectors = _built(tmp_path, dense)
    origin = np.concatenate([np.arange(2 * N // 3, N), [-1]])  # two thirds dead: rows renumbered on the compact write
    compacted = tmp_path / "compacted"
    compacted.mkdir()
    saved = save_vectors(vectors.patched(origin, _unit(rng, 1)), compacted, "v")
    assert saved.rows[0] == 0  # compact
    carry_graph(folder, compacted, "v", saved)
    assert not (compacted / "v.hnsw").exists() and searched_graph(compacted, "v", saved) is None
    assert searched_graph(folder, "v", vectors) is not None  # the older folder keeps its own


def test_without_a_graph_the_leg_reads_every_vector():
    rng = np.random.default_rng(4)
    vectors = RowVectors.of(_unit(rng, 50))
    q = _unit(rng, 1)[0]
    np.testing.assert_allclose(leg_cosines(vectors, None, q, kept=5), np.asarray(vectors) @ q, rtol=1e-6)


def test_facts_of_the_sections_most_like_the_query():
    fact_sections = np.array([0, 2, -1, 2, 1, 3])
    section_cos = np.array([0.1, 0.9, 0.8, 0.2], dtype=np.float32)
    np.testing.assert_array_equal(facts_in_best_sections(fact_sections, section_cos, sections=2), [1, 3, 4])
    assert facts_in_best_sections(fact_sections, None).size == 0
    assert facts_in_best_sections(np.zeros(0, dtype=np.int64), section_cos).size == 0
