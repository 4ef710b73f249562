"""Reciprocal-rank fusion against a plain-Python reading of its definition."""

from __future__ import annotations

import numpy as np
import pytest

from engram_lab.retrieve.fusion import RRF_K, ranks, reciprocal


def reference_rrf(lists: list[list[int]], n: int, k: int = RRF_K) -> list[float]:
    """Each list is item ids best first; an item's score sums 1 / (k + its 1-based position) over the lists holding it."""
    scores = [0.0] * n
    for ranking in lists:
        for position, item in enumerate(ranking, start=1):
            scores[item] += 1.0 / (k + position)
    return scores


def test_ranks_order_by_score_and_break_ties_by_index():
    assert ranks(np.array([0.2, 0.9, 0.2, -1.0])).tolist() == [2, 1, 3, 4]
    assert ranks(np.array([0.0, 3.0, 0.0, 1.0]), positive_only=True).tolist() == [0, 1, 0, 2]
    assert ranks(np.zeros(3), positive_only=True).tolist() == [0, 0, 0]


def test_reciprocal_leaves_out_unranked_items():
    rank = np.array([1, 0, 3, 50])
    assert reciprocal(rank).tolist() == pytest.approx([1 / 61, 0, 1 / 63, 1 / 110])
    assert reciprocal(rank, k=0).tolist() == pytest.approx([1, 0, 1 / 3, 1 / 50])


@pytest.mark.parametrize("seed", range(10))
def test_fusion_of_two_score_lists_matches_the_definition(seed):
    rng = np.random.default_rng(seed)
    n = 30
    keyword = np.where(rng.random(n) < 0.4, rng.random(n) * 10, 0.0)  # BM25: misses are not ranked
    dense = rng.normal(size=n)
    fused = reciprocal(ranks(keyword, positive_only=True)) + reciprocal(ranks(dense))
    keyword_list = sorted((i for i in range(n) if keyword[i] > 0), key=lambda i: (-keyword[i], i))
    dense_list = sorted(range(n), key=lambda i: (-dense[i], i))
    assert fused.tolist() == pytest.approx(reference_rrf([keyword_list, dense_list], n))
