"""Ranking helpers of the scoring module, against the plain full sort they replace."""

from __future__ import annotations

import numpy as np
import pytest

from engram_lab.retrieve.scoring import best_first, both_legs, floored, length_normalised, passage_leg, top_positive
from engram_lab.retrieve.settings import RetrievalSettings


def reference(values: np.ndarray, k: int) -> list[int]:
    return [int(i) for i in np.argsort(-values, kind="stable") if values[i] > 0][:k]


@pytest.mark.parametrize("seed", range(20))
def test_top_positive_matches_a_stable_full_sort(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    values = rng.choice([0.0, 0.1, 0.25, 0.5, 1.0], size=n) if seed % 2 else rng.normal(size=n)  # many ties, or negatives
    for k in (1, 5, 10, n, n + 3):
        assert top_positive(values, k) == reference(values, k)


def test_top_positive_edge_cases():
    assert top_positive(np.zeros(0), 5) == []
    assert top_positive(np.array([0.0, -1.0]), 5) == []
    assert top_positive(np.array([0.3, 0.9]), 0) == []


def _walk(adjacency: np.ndarray, reset: np.ndarray, damping: float = 0.5) -> np.ndarray:
    import scipy.sparse as sp

    from engram_lab.retrieve.ppr import personalized_pagerank, transition_matrix
    return personalized_pagerank(transition_matrix(sp.csr_matrix(adjacency)), reset, damping, tol=1e-12)


def test_length_normalisation_stops_a_long_note_collecting_the_walk():
    # Nodes 0-2 are notes, 3-7 entities. Note 0 (the query's answer, best passage score) names entity 3; note 1 is
    # long (4 chunks), scores lower and names every entity; note 2 names entity 7 only. Entity seeds are spread evenly.
    a = np.zeros((8, 8))
    for note, entity in [(0, 3), (1, 3), (1, 4), (1, 5), (1, 6), (1, 7), (2, 7)]:
        a[note, entity] = a[entity, note] = 1.0
    reset = np.array([0.3, 0.2, 0, 0.1, 0.1, 0.1, 0.1, 0.1])
    walked = _walk(a, reset)[:3]
    chunks = np.array([1.0, 4.0, 1.0])
    assert walked[1] > walked[0]  # the raw walk ranks the long note first
    normalised = length_normalised(walked, reset[:3], 0.5, chunks, 1.0)
    assert normalised[0] > normalised[1] > 0
    assert np.allclose(length_normalised(walked, reset[:3], 0.5, chunks, 0.0), walked)  # exponent 0: unchanged


@pytest.mark.parametrize("seed", range(5))
def test_length_normalisation_keeps_the_order_of_equal_length_notes(seed):
    rng = np.random.default_rng(seed)
    a = (rng.random((12, 12)) < 0.3).astype(float)
    a = np.triu(a, 1) + np.triu(a, 1).T
    reset = rng.random(12)
    walked = _walk(a, reset)[:6]
    normalised = length_normalised(walked, reset[:6] / reset.sum(), 0.5, np.ones(6), 1.0)
    assert np.allclose(normalised, walked)


def test_the_lexical_leg_keeps_its_floor_share_whatever_the_number_of_passages():
    """A note holding the query's rare words keeps the same share of the passage seed in 1,000 or 100,000 notes."""
    for n in (1_000, 100_000):
        lexical = np.zeros(n)
        lexical[3] = 0.3  # BM25 finds one note
        dense = np.linspace(0.0, 1.0, n)  # the dense leg scores every passage
        out = floored(lexical, dense, 0.015)
        assert out.sum() == pytest.approx(lexical.sum() + dense.sum())
        assert out[3] / out.sum() == pytest.approx(0.015 + 0.985 * dense[3] / dense.sum())
        assert np.all(out[np.arange(n) != 3] / dense[np.arange(n) != 3].clip(1e-12) <= 1.0 + 1e-12)  # the rest only scaled down


def test_the_floor_keeps_the_arithmetic_it_always_had():
    """Ties must stay ties: the same expression as before ``floor_weights`` was split out, bit for bit."""
    rng = np.random.default_rng(5)
    active = 0
    for _ in range(100):
        lexical, dense = np.round(rng.random(300), 3) * (rng.random(300) < 0.01), np.round(rng.random(300), 3)
        lex_total, dense_total = lexical.sum(), dense.sum()
        if lex_total <= 0:
            continue
        old = (lex_total + dense_total) * (0.015 * lexical / lex_total + 0.985 * dense / dense_total)
        floor_on = lex_total < 0.015 * (lex_total + dense_total)
        active += floor_on
        np.testing.assert_array_equal(floored(lexical, dense, 0.015), old if floor_on else lexical + dense)
    assert active > 20


def test_the_floor_leaves_a_share_already_above_it_and_a_missing_leg_alone():
    rng = np.random.default_rng(2)
    lexical, dense = rng.random(50), rng.random(50)
    np.testing.assert_array_equal(floored(lexical, dense, 0.015), lexical + dense)  # BM25 holds ~half already
    np.testing.assert_array_equal(floored(np.zeros(50), dense, 0.015), dense)  # keyword found nothing
    np.testing.assert_array_equal(floored(lexical, np.zeros(50), 0.015), lexical)  # no model: dense is absent
    np.testing.assert_array_equal(floored(lexical * 1e-6, dense, 0.0), lexical * 1e-6 + dense)  # switched off


def test_the_passage_seeds_best_note_is_lifted_first_and_nothing_else_moves():
    walked = np.array([0.5, 0.2, 0.9, 0.1])
    passages = np.array([0.1, 0.8, 0.3, 0.0])  # the walk put note 2 first; the passages point at note 1
    lifted = best_first(walked, passages)
    assert top_positive(lifted, 4) == [1, 2, 0, 3]
    assert lifted[1] > 0.9 and lifted[1] - 0.9 < 1e-12  # just above the best, not an arbitrary score
    assert np.array_equal(np.delete(lifted, 1), np.delete(walked, 1))
    assert walked[1] == 0.2  # the input is not changed in place


def test_best_first_leaves_a_ranking_alone_when_there_is_nothing_to_lift():
    walked = np.array([0.5, 0.2, 0.9])
    assert best_first(walked, np.array([0.0, 0.1, 0.7])) is walked  # already first
    assert best_first(walked, np.zeros(3)) is walked  # no passage evidence at all
    tied = np.array([0.9, 0.9])  # the passages' note ties for first but a lower index wins ties: lift it
    assert top_positive(best_first(tied, np.array([0.0, 1.0])), 2) == [1, 0]


class _Sections:
    """The two things the passage leg reads of an index: each section's note, and the notes' count."""

    def __init__(self, doc_index: list[int], n_passages: int) -> None:
        import polars as pl

        self.sections = pl.DataFrame({"doc_index": doc_index})
        self.n_passages = n_passages
        self.section_density = np.zeros(len(doc_index))


def test_one_section_that_answers_by_both_legs_beats_two_that_answer_by_one_each():
    """Note 0 has its words in one section and its meaning in another; note 1 has both in one (rust-rfcs rr-L23)."""
    data = _Sections([0, 0, 1, 2], 3)
    bm25 = np.array([1.0, 0.0, 0.9, 0.0])
    cos = np.array([0.1, 0.9, 0.85, 0.0])
    settings = RetrievalSettings(csls=False)
    np.testing.assert_allclose(both_legs(data, settings, bm25, cos), [1.0, 0.27 + 0.85 / 0.9, 0.0])
    apart, _ = passage_leg(data, settings.with_(section_fusion=0.0), bm25, cos)
    fused, per_section = passage_leg(data, settings, bm25, cos)
    assert top_positive(apart, 3) == [0, 1] and top_positive(fused, 3) == [1, 0]
    np.testing.assert_allclose(fused, 0.5 * apart / apart.max() + 0.5 * np.array([1.0, 1.214444, 0.0]) / 1.214444, rtol=1e-5)
    np.testing.assert_array_equal(per_section, passage_leg(data, settings.with_(section_fusion=0.0), bm25, cos)[1])
    without_model, _ = passage_leg(data, settings, bm25, None)  # no dense leg: nothing to fuse in one section
    np.testing.assert_array_equal(without_model, passage_leg(data, settings.with_(section_fusion=0.0), bm25, None)[0])


def test_the_floor_weighs_both_halves_of_the_passage_score():
    """In a large vault the note holding the query's rare words keeps its floor share in the single-section half
    too: 10,000 one-section notes gave the same top 10 with and without that half (BENCHMARKS.md, session 26)."""
    n = 2000
    data = _Sections(list(range(n)), n)
    bm25 = np.zeros(n)
    bm25[3] = 7.5  # BM25 finds one note, ranked low by the model
    cos = np.linspace(0.0, 0.9, n)
    settings = RetrievalSettings(csls=False)
    apart, _ = passage_leg(data, settings.with_(section_fusion=0.0), bm25, cos)
    fused, _ = passage_leg(data, settings, bm25, cos)
    assert top_positive(apart, 1) == [3] and top_positive(fused, 10) == top_positive(apart, 10)
    assert top_positive(passage_leg(data, settings.with_(section_fusion=1.0), bm25, cos)[0], 1) == [3]  # that half alone
    assert top_positive(passage_leg(data, settings.with_(section_fusion=1.0, bm25_floor=0.0), bm25, cos)[0], 1) == [n - 1]


def test_a_dense_leg_cut_to_candidates_is_not_fused_by_section():
    data = _Sections([0, 0, 1, 2], 3)
    bm25, cos = np.array([1.0, 0.0, 0.9, 0.0]), np.array([0.1, 0.9, 0.85, 0.0])
    settings = RetrievalSettings(csls=False, passage_candidates=2)
    np.testing.assert_array_equal(passage_leg(data, settings, bm25, cos)[0],
                                  passage_leg(data, settings.with_(section_fusion=0.0), bm25, cos)[0])


def test_the_walk_goes_local_from_ppr_local_from_entries_with_the_settings_damping(monkeypatch):
    import scipy.sparse as sp

    import engram_lab.retrieve.scoring as scoring
    from engram_lab.retrieve.ppr import transition_matrix

    calls = []
    monkeypatch.setattr(scoring, "local_pagerank", lambda g, r, d, e: calls.append(("local", d, e)) or np.zeros(g.size))
    monkeypatch.setattr(scoring, "personalized_pagerank",
                        lambda g, r, d, tol, parallel: calls.append(("whole", d, tol)) or np.zeros(g.size))
    upper = sp.random(30, 30, density=0.1, random_state=3, format="csr")
    walk = transition_matrix(upper + upper.T, symmetric=True)
    entries, reset = walk.transition_t.nnz, np.ones(30)
    settings = RetrievalSettings(damping=0.85, ppr_local=1e-6, ppr_tolerance=1e-5)
    scoring._walked(walk, reset, settings.with_(ppr_local_from=entries))
    scoring._walked(walk, reset, settings.with_(ppr_local_from=entries + 1))
    scoring._walked(walk, reset, settings.with_(ppr_local_from=0, ppr_local=0.0))  # 0: always the whole walk
    assert calls == [("local", 0.85, 1e-6), ("whole", 0.85, 1e-5), ("whole", 0.85, 1e-5)]
