"""Metric functions checked by hand and against scipy's binomial test."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from engram_lab.eval.metrics import all_at, paired, percentile, recall_at, sign_test


def test_recall_and_all():
    assert recall_at([5, 1, 9, 2], {1, 2}, 2) == 0.5
    assert recall_at([5, 1, 9, 2], {1, 2}, 4) == 1.0
    assert all_at([5, 1, 9, 2], {1, 2}, 3) == 0.0 and all_at([5, 1, 9, 2], {1, 2}, 4) == 1.0
    assert recall_at([1], set(), 1) == 0.0


@pytest.mark.parametrize(("wins", "losses"), [(0, 0), (5, 0), (7, 3), (3, 7), (12, 12), (1, 20)])
def test_sign_test_matches_scipy(wins, losses):
    expected = 1.0 if wins + losses == 0 else binomtest(wins, wins + losses, 0.5).pvalue
    assert sign_test(wins, losses) == pytest.approx(expected)


def test_paired_and_percentile():
    assert paired([1, 0.5, 0, 1], [0.5, 0.5, 1, 1]) == (1, 1, 2)
    assert percentile([3, 1, 2, 4], 50) == 2 and percentile([3, 1, 2, 4], 95) == 4 and percentile([], 50) == 0.0
