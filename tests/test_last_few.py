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


def test_kept_for_last_recomputes_for_another_object_even_an_equal_one():
    from engram_lab.last_few import kept_for_last

    calls = []

    @kept_for_last
    def length(items: list[int]) -> int:
        calls.append(list(items))
        return len(items)

    first, equal = [1, 2], [1, 2]
    assert (length(first), length(first)) == (2, 2) and len(calls) == 1  # the same object: kept
    assert length(equal) == 2 and len(calls) == 2  # an equal but other object: derived again (identity, not equality)
    assert length(first) == 2 and len(calls) == 3  # only the last is kept
