"""Ranking helpers of the scoring module, against the plain full sort they replace."""

from __future__ import annotations

import numpy as np
import pytest

from engram_lab.retrieve.scoring import top_positive


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
