"""What a long-lived process keeps per vault: the newest few, by when they were last set."""

from __future__ import annotations

from engram_lab.last_few import LastFew


def test_setting_a_key_makes_it_newest_and_the_oldest_set_goes():
    kept: LastFew[str, int] = LastFew(2)
    kept["a"], kept["b"] = 1, 2
    kept["a"] = 3  # set again: now the newest
    kept["c"] = 4
    assert "b" not in kept and kept.get("b") is None
    assert (kept.get("a"), kept.get("c"), len(kept)) == (3, 4, 2)
    kept.get("a")  # reading does not refresh
    kept["d"] = 5
    assert "a" not in kept and kept.get("c") == 4
    kept.clear()
    assert len(kept) == 0
