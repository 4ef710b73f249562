"""Neighbour lists patched after rows are removed, changed, added and moved equal lists built from scratch (at the
default depth), or hold a build's first entries and give its densities and pairs (with a depth and a floor). The
patch works over store slots (``slot_lists``); ``patch_rows`` reads it over rows, as a build gives them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from typing import NamedTuple

from engram_lab.index.neighbour_lists import ListsOf, NeighbourLists, Pairs, build_neighbour_lists, patch_pairs
from engram_lab.index.row_vectors import RowVectors
from engram_lab.index.slot_lists import SlotLists, patch_slot_lists
from engram_lab.index.vector_reuse import kept_origin, match_rows, patch_vectors
from engram_lab.retrieve.csls import local_density


def unit(rng: np.random.Generator, n: int, dim: int = 12) -> np.ndarray:
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def edited(rng: np.random.Generator, old: np.ndarray, removed: int, changed: int, added: int) -> tuple[np.ndarray, np.ndarray]:
    """New vectors and their origin: some old rows dropped, some replaced, some new, all shuffled."""
    rows = rng.permutation(old.shape[0])[removed:]
    origin = rows.copy()
    vectors = old[rows].copy()
    vectors[:changed] = unit(rng, changed, old.shape[1])
    origin[:changed] = -1
    vectors = np.vstack([vectors, unit(rng, added, old.shape[1])])
    origin = np.concatenate([origin, np.full(added, -1)])
    order = rng.permutation(vectors.shape[0])
    return vectors[order], origin[order]


class RowPatch(NamedTuple):
    lists: NeighbourLists  # over the new rows
    moved: np.ndarray  # per new row, whether the patch changed its list
    lists_of: ListsOf


def patch_rows(old: NeighbourLists, origin: np.ndarray, vectors: np.ndarray, depth: int | None = None,
               floor: float | None = None, k: int | None = None) -> RowPatch:
    """The slot patch over rows: the old rows are the store's first slots (a removed row's vector is never read),
    the new vectors without an origin are appended after them, as ``RowVectors.patched`` lays them out."""
    n_old, kept = old.indices.shape[0], np.flatnonzero(origin >= 0)
    store = np.zeros((n_old, vectors.shape[1]), dtype=np.float32)
    store[origin[kept]] = vectors[kept]
    new = RowVectors.of(store).patched(origin, vectors[origin < 0])
    patch = patch_slot_lists(SlotLists.whole(old.indices, old.cosines), np.arange(n_old), new, depth, floor, k)
    view = patch.lists.rows_view(new.rows)
    moved = np.zeros(len(new), dtype=bool)
    moved[view.slot_row[patch.changed]] = True
    return RowPatch(view.whole(), moved, view.of)


def patched_pairs(old_pairs: Pairs, old: NeighbourLists, origin: np.ndarray, patch: RowPatch, threshold: float) -> Pairs:
    return patch_pairs(old_pairs, old.indices.shape[0], origin, patch.moved, patch.lists_of, threshold)


@pytest.mark.parametrize(("n", "k", "removed", "changed", "added"),
                         [(200, 8, 10, 5, 7), (200, 32, 0, 0, 3), (60, 8, 30, 0, 0), (6, 8, 2, 1, 4), (5, 8, 0, 0, 0), (40, 4, 39, 0, 0)])
def test_patched_lists_equal_built_lists(n, k, removed, changed, added):
    rng = np.random.default_rng(n + k + removed)
    old = unit(rng, n)
    vectors, origin = edited(rng, old, removed, changed, added)
    before = build_neighbour_lists(old, k)
    patch = patch_rows(before, origin, vectors)
    patched = patch.lists
    built = build_neighbour_lists(vectors, k)
    np.testing.assert_allclose(patched.cosines, built.cosines, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(patched.densities(), built.densities(), rtol=1e-5, atol=1e-6)
    for threshold in (0.0, 0.3, 0.6):
        want = built.pairs_above(threshold)
        assert_same_pairs(patched.pairs_above(threshold), want)
        assert_same_pairs(patched_pairs(before.pairs_above(threshold), before, origin, patch, threshold), want)


def assert_same_pairs(got, want):  # type: ignore[no-untyped-def]
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5)


@pytest.mark.parametrize("seed", range(6))
def test_pairs_patched_in_row_order_equal_pairs_of_built_lists(seed):
    """As entity rows move (sorted by IRI): kept rows keep their order, new rows fall between them."""
    rng = np.random.default_rng(seed)
    old = unit(rng, 150, dim=6)  # few dimensions: many close pairs
    keep = np.sort(rng.choice(150, size=150 - int(rng.integers(0, 8)), replace=False))
    vectors, origin = old[keep].copy(), keep.copy()
    changed = rng.choice(keep.size, size=int(rng.integers(0, 4)), replace=False)
    vectors[changed], origin[changed] = unit(rng, changed.size, 6), -1
    for _ in range(int(rng.integers(0, 6))):
        at = int(rng.integers(0, vectors.shape[0] + 1))
        vectors, origin = np.insert(vectors, at, unit(rng, 1, 6), axis=0), np.insert(origin, at, -1)
    before = build_neighbour_lists(old, 8)
    patch = patch_rows(before, origin, vectors)
    patched = patch.lists
    for threshold in (0.5, 0.8, 0.95):
        assert_same_pairs(patched_pairs(before.pairs_above(threshold), before, origin, patch, threshold),
                          build_neighbour_lists(vectors, 8).pairs_above(threshold))


def assert_nearest_prefix(patched, built, depth: int) -> None:  # type: ignore[no-untyped-def]
    """Each patched list holds the built list's first entries (cosines; ties may swap rows): at least ``depth`` of
    them, or every other row, padded after."""
    counts = (patched.indices >= 0).sum(axis=1)
    built_counts = (built.indices >= 0).sum(axis=1)
    assert (counts >= np.minimum(depth, built_counts)).all()
    for row, count in enumerate(counts.tolist()):
        np.testing.assert_allclose(patched.cosines[row, :count], built.cosines[row, :count], rtol=1e-5, atol=1e-6)
        assert (patched.indices[row, count:] == -1).all() and np.isinf(patched.cosines[row, count:]).all()


@pytest.mark.parametrize("seed", range(8))
def test_lists_kept_short_after_removals_still_give_a_builds_densities_and_pairs(seed):
    """Several edits in a row, each removing, changing and adding rows: lists shrink instead of being recomputed, and
    what their readers take (densities of ``depth`` rows, pairs above the floor) stays a fresh build's."""
    rng = np.random.default_rng(seed)
    k, depth, floor = 12, 5, 0.6
    vectors = unit(rng, 120, dim=6)  # few dimensions: many pairs near the floor
    lists = build_neighbour_lists(vectors, k)
    for _ in range(4):
        removed, changed, added = (int(x) for x in rng.integers(0, 12, size=3))
        new_vectors, origin = edited(rng, vectors, removed, changed, added)
        patch = patch_rows(lists, origin, new_vectors, depth=depth, floor=floor)
        patched = patch.lists
        built = build_neighbour_lists(new_vectors, k)
        assert_nearest_prefix(patched, built, depth)
        np.testing.assert_allclose(patched.densities(depth), built.densities(depth), rtol=1e-5, atol=1e-6)
        for threshold in (floor, 0.8):
            want = built.pairs_above(threshold)
            assert_same_pairs(patched_pairs(lists.pairs_above(threshold), lists, origin, patch, threshold), want)
            assert_same_pairs(patched.pairs_above(threshold), want)
        vectors, lists = new_vectors, patched


def test_a_removal_leaving_every_list_deep_enough_recomputes_none(monkeypatch):
    import engram_lab.index.slot_lists as slot_lists

    rng = np.random.default_rng(9)
    vectors = unit(rng, 80)
    lists = build_neighbour_lists(vectors, 10)
    origin = np.delete(np.arange(80), 17)  # row 17 removed, nothing new: every list loses at most one row
    recomputed: list[int] = []
    full_slots = slot_lists._full_slots
    monkeypatch.setattr(slot_lists, "_full_slots", lambda v, slots, live, k: recomputed.append(slots.size) or full_slots(v, slots, live, k))
    patch = patch_rows(lists, origin, vectors[origin], depth=8)
    patched = patch.lists
    assert recomputed == []
    holding = np.flatnonzero((lists.indices == 17).any(axis=1))  # old rows; row r > 17 is new row r - 1
    assert holding.size > 0 and ((patched.indices >= 0).sum(axis=1)[holding - (holding > 17)] == 9).all()
    assert_nearest_prefix(patched, build_neighbour_lists(vectors[origin], 10), 8)
    patch_rows(lists, origin, vectors[origin])  # the default depth is the lists' own: a short list is redone
    assert recomputed == [holding.size]


def test_densities_are_the_csls_local_densities():
    vectors = unit(np.random.default_rng(0), 50)
    np.testing.assert_allclose(build_neighbour_lists(vectors, 32).densities(), local_density(vectors), rtol=1e-5)
    assert build_neighbour_lists(vectors[:1], 10).densities().tolist() == [0.0]


def test_unchanged_texts_keep_their_vectors_and_only_the_rest_are_embedded():
    old_texts, old_vectors = ["a", "b", "a", "c"], np.arange(8, dtype=np.float32).reshape(4, 2)
    asked: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        asked.append(texts)
        return np.full((len(texts), 2), -1.0, dtype=np.float32)

    texts = ["c", "a", "d", "a", "a"]
    origin = match_rows(old_texts, texts)
    vectors = patch_vectors(origin, lambda rows: [texts[i] for i in rows], old_vectors, embed)
    assert origin.tolist() == [3, 0, -1, 2, -1]  # each old row used once: the third "a" is embedded again
    assert asked == [["d", "a"]]
    np.testing.assert_array_equal(vectors[0], old_vectors[3])
    assert match_rows([], ["x"]).tolist() == [-1]


def test_a_patched_groupings_rows_keep_their_own_vector_or_one_of_the_same_text_no_other_row_took():
    rng = random.Random(5)
    for _ in range(300):
        old = [rng.choice("abcdef") for _ in range(rng.randint(0, 12))]
        new = [rng.choice("abcdefg") for _ in range(rng.randint(0, 12))]
        kept = rng.sample(range(len(old)), min(len(old), len(new), rng.randint(0, 6)))
        kept_from = np.full(len(new), -1, dtype=np.int64)
        for row, previous in zip(rng.sample(range(len(new)), len(kept)), kept):
            kept_from[row], new[row] = previous, old[previous]  # a kept row stands as it was
        origin = kept_origin(kept_from, len(old), lambda rows: [new[i] for i in rows], lambda rows: [old[i] for i in rows])
        taken = origin[origin >= 0]
        assert np.unique(taken).size == taken.size  # each previous row the origin of one row at most
        assert all(old[o] == new[i] for i, o in enumerate(origin.tolist()) if o >= 0)
        assert (origin[kept_from >= 0] == kept_from[kept_from >= 0]).all()
        free = sorted(set(range(len(old))) - set(kept))  # as many rows of a text as are free are reused
        fresh = [new[i] for i in np.flatnonzero(kept_from < 0)]
        reused = sum(min(fresh.count(c), [old[i] for i in free].count(c)) for c in set(fresh))
        assert int((origin[kept_from < 0] >= 0).sum()) == reused


def clustered(rng: np.random.Generator, n: int, dim: int = 32, clusters: int = 60) -> np.ndarray:
    """Unit vectors around a few centres (labels of a vault are no uniform sphere), some of them repeated."""
    centres = unit(rng, clusters, dim)
    vectors = centres[rng.integers(0, clusters, n)] + 0.25 * rng.normal(size=(n, dim)).astype(np.float32)
    vectors[-20:] = vectors[:20]  # identical texts embed identically
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_approximate_lists_find_nearly_every_exact_neighbour():
    vectors = clustered(np.random.default_rng(3), 3000)
    exact = build_neighbour_lists(vectors, 16)
    approximate = build_neighbour_lists(vectors, 16, approximate_from=1000)
    rows = np.arange(vectors.shape[0])
    assert not (approximate.indices == rows[:, None]).any()  # never its own neighbour, duplicates included
    assert (np.diff(approximate.cosines, axis=1) <= 1e-6).all()  # best first
    found = np.mean([len(set(a) & set(b)) / 16 for a, b in zip(approximate.indices, exact.indices)])
    assert found >= 0.95
    assert np.abs(approximate.densities() - exact.densities()).mean() < 0.01
    want = set(zip(*exact.pairs_above(0.8)[:2]))
    assert len(want & set(zip(*approximate.pairs_above(0.8)[:2]))) >= 0.95 * len(want)
    recomputed = np.einsum("ij,ij->i", vectors, vectors[approximate.indices[:, 0]])  # cosines are the true ones
    np.testing.assert_allclose(approximate.cosines[:, 0], recomputed, rtol=1e-4, atol=1e-5)


def test_approximate_lists_pad_rows_with_fewer_neighbours_than_asked():
    vectors = unit(np.random.default_rng(4), 12)
    lists = build_neighbour_lists(vectors, 16, approximate_from=10)
    assert lists.indices.shape == (12, 16)
    np.testing.assert_array_equal(np.sort(lists.indices[:, :11], axis=1) >= 0, True)
    assert (lists.indices[:, 11:] == -1).all() and np.isinf(lists.cosines[:, 11:]).all()


def test_rows_are_matched_as_a_dictionary_of_row_lists_would():
    """The join gives the k-th new copy of a text the k-th old copy, as the loop it replaced did."""
    def reference(old: list[str], new: list[str]) -> list[int]:
        free: dict[str, list[int]] = {}
        for row in range(len(old) - 1, -1, -1):
            free.setdefault(old[row], []).append(row)
        return [free[text].pop() if free.get(text) else -1 for text in new]

    rng = random.Random(3)
    for _ in range(300):
        old = [rng.choice("abcde") for _ in range(rng.randint(0, 12))]
        new = [rng.choice("abcdef") for _ in range(rng.randint(0, 12))]
        assert match_rows(old, new).tolist() == reference(old, new)
        unique_old, unique_new = rng.sample("abcdefghij", rng.randint(0, 8)), rng.sample("abcdefghijkl", rng.randint(0, 8))
        assert match_rows(unique_old, unique_new).tolist() == reference(unique_old, unique_new)  # no copy numbering


def test_pairs_above_equal_a_dictionary_of_list_entries():
    """Each pair once (a < b), sorted, with the cosine of its first entry in row order, padding never a pair."""
    rng = np.random.default_rng(4)
    lists = build_neighbour_lists(unit(rng, 300, dim=6), k=8)
    lists.indices[7, 3:], lists.cosines[7, 3:] = -1, -np.inf  # a short list, as a vault with few rows has
    want: dict[tuple[int, int], float] = {}
    for row in range(lists.indices.shape[0]):
        for other, cosine in zip(lists.indices[row].tolist(), lists.cosines[row].tolist()):
            if other >= 0 and cosine >= 0.5:
                want.setdefault((min(row, other), max(row, other)), cosine)
    a, b, cos = lists.pairs_above(0.5)
    assert list(zip(a.tolist(), b.tolist())) == sorted(want)
    assert cos.tolist() == pytest.approx([want[p] for p in sorted(want)], abs=0)


def test_pairs_of_rows_past_the_square_root_of_the_int32_range_stay_sorted():
    """List entries are int32; pair keys (a * n + b) must be computed in int64 or far rows wrap round."""
    n = 60_000
    indices, cosines = np.full((n, 2), -1, dtype=np.int32), np.full((n, 2), -np.inf, dtype=np.float32)
    for row, other in ((59_998, 59_999), (1, 2), (40_000, 59_999)):
        indices[row, 0], cosines[row, 0] = other, 0.9
    lists = NeighbourLists(indices, cosines)
    want = ([1, 40_000, 59_998], [2, 59_999, 59_999])
    a, b, _ = lists.pairs_above(0.5)
    assert (a.tolist(), b.tolist()) == want
    origin = np.arange(n)
    for moved in (np.zeros(n, dtype=bool), np.ones(n, dtype=bool)):  # pairs standing, pairs made again
        a, b, _ = patch_pairs(lists.pairs_above(0.5), n, origin, moved, lambda rows: (lists.indices[rows], lists.cosines[rows]), 0.5)
        assert (a.tolist(), b.tolist()) == want


@pytest.mark.parametrize("seed", range(4))
def test_older_shallower_int64_lists_are_patched_into_wider_ones(seed):
    """An index built before the lists had slack: 10 deep, int64, memory-mapped read-only as a folder loads them."""
    rng = np.random.default_rng(seed)
    vectors = unit(rng, 90, dim=6)
    built_then = build_neighbour_lists(vectors, 10)
    old = NeighbourLists(built_then.indices.astype(np.int64), built_then.cosines)
    old.indices.setflags(write=False)
    old.cosines.setflags(write=False)
    new_vectors, origin = edited(rng, vectors, 4, 2, 3)
    patch = patch_rows(old, origin, new_vectors, depth=8, floor=0.6, k=16)
    patched = patch.lists
    built = build_neighbour_lists(new_vectors, 16)
    assert patched.indices.shape == (new_vectors.shape[0], 16) and patched.indices.dtype == np.int32
    assert_nearest_prefix(patched, built, 8)
    np.testing.assert_allclose(patched.densities(8), built.densities(8), rtol=1e-5, atol=1e-6)
    assert_same_pairs(patched.pairs_above(0.6), built.pairs_above(0.6))
    redone = np.flatnonzero(origin < 0)
    assert ((patched.indices[redone] >= 0).sum(axis=1) == 16).all()  # a recomputed list is as wide as asked


@pytest.mark.parametrize("n", [2, 5, 9])
def test_a_kind_with_fewer_rows_than_the_depth_keeps_every_other_row(n):
    rng = np.random.default_rng(n)
    vectors = unit(rng, n, dim=6)
    lists = build_neighbour_lists(vectors, 12)
    new_vectors, origin = edited(rng, vectors, 1, 0, 2)
    patch = patch_rows(lists, origin, new_vectors, depth=10, floor=0.5)
    patched = patch.lists
    assert ((patched.indices >= 0).sum(axis=1) == new_vectors.shape[0] - 1).all()
    np.testing.assert_allclose(patched.densities(), build_neighbour_lists(new_vectors, 12).densities(), rtol=1e-5)


def test_recomputed_lists_are_the_same_in_batches_cut_to_a_memory_budget(monkeypatch):
    import engram_lab.index.slot_lists as slot_lists

    rng = np.random.default_rng(12)
    vectors = unit(rng, 150)
    lists = build_neighbour_lists(vectors, 8)
    new_vectors, origin = edited(rng, vectors, 20, 10, 15)
    whole = patch_rows(lists, origin, new_vectors).lists
    sizes: list[int] = []
    full_slots = slot_lists._full_slots
    slots = lists.indices.shape[0] + int((origin < 0).sum())  # the old rows' slots, then the new vectors'
    monkeypatch.setattr(slot_lists, "RECOMPUTE_BYTES", 8 * slots * 3)  # three lists a batch
    monkeypatch.setattr(slot_lists, "_full_slots", lambda v, rows, live, k: sizes.append(rows.size) or full_slots(v, rows, live, k))
    cut = patch_rows(lists, origin, new_vectors).lists
    assert max(sizes) == 3 and len(sizes) > 5
    np.testing.assert_array_equal(cut.indices, whole.indices)
    np.testing.assert_allclose(cut.cosines, whole.cosines, rtol=1e-6, atol=1e-7)  # products of other shapes round apart
