"""Lists over store slots, patched edit after edit, saved as a linked base and a delta, read back as a new process
reads them: densities and pairs stay a fresh build's, whether a save links the base, writes a new one when the
delta outgrew its share, or renumbers the slots (the vector store compacted, or another writer appended to it)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

import engram_lab.index.row_vectors as row_vectors
import engram_lab.index.slot_lists as slot_lists
from engram_lab.index.neighbour_lists import build_neighbour_lists, patch_pairs
from engram_lab.index.row_vectors import RowVectors, load_vectors, save_vectors
from engram_lab.index.slot_lists import SlotLists, load_slot_lists, moved_slots, patch_slot_lists, save_slot_lists
from engram_lab.retrieve.csls import DEFAULT_K
from tests.index.test_neighbour_lists import assert_nearest_prefix, assert_same_pairs, edited, unit

K, DEPTH, FLOOR = DEFAULT_K + 6, DEFAULT_K, 0.6  # as the retrieval index patches them: densities read DEFAULT_K


def saved(vectors: RowVectors, lists: SlotLists, folder: Path) -> tuple[RowVectors, SlotLists]:
    folder.mkdir()
    stored = save_vectors(vectors, folder, "vectors")
    return stored, save_slot_lists(lists, folder, "lists", moved_slots(vectors, stored), stored.stored)


def read_back(folder: Path) -> tuple[RowVectors, SlotLists]:
    vectors = load_vectors(folder, "vectors")
    return vectors, load_slot_lists(folder, "lists", vectors.stored)


def assert_as_built(lists: SlotLists, vectors: RowVectors, pairs: tuple[np.ndarray, ...] | None = None) -> None:
    built = build_neighbour_lists(vectors.dense(), K)
    view = lists.rows_view(vectors.rows)
    assert_nearest_prefix(view.whole(), built, DEPTH)
    np.testing.assert_allclose(lists.densities(vectors.rows), built.densities(), rtol=1e-5, atol=1e-6)
    if pairs is not None:
        assert_same_pairs(pairs, built.pairs_above(FLOOR))


@pytest.mark.parametrize("seed", range(24))
def test_lists_patched_saved_and_read_back_over_many_edits_stay_a_builds(tmp_path, monkeypatch, seed):
    rng = np.random.default_rng(seed)
    compacting = seed % 2 == 1  # odd: saves write a new base now and then, and the vector store compacts
    monkeypatch.setattr(slot_lists, "DELTA_FLOOR", int(rng.integers(0, 40)) if compacting else 10_000)
    monkeypatch.setattr(row_vectors, "COMPACT_SLACK", int(rng.integers(0, 50)) if compacting else 4096)
    dense = unit(rng, int(rng.choice([3, 12, 120])) if compacting else 120, dim=6)  # few dimensions: many pairs near the floor
    vectors = RowVectors.of(dense)
    lists = SlotLists.of_rows(build_neighbour_lists(dense, K), vectors.rows, vectors.stored)
    pairs = lists.rows_view(vectors.rows).whole().pairs_above(FLOOR)
    vectors, lists = saved(vectors, lists, tmp_path / "0")
    ways: set[str] = set()
    for step in range(1, 9):
        removed = int(rng.integers(0, min(10, len(vectors)) + 1))
        changed, added = int(rng.integers(0, min(10, len(vectors) - removed) + 1)), int(rng.integers(0, 10))
        new_dense, origin = edited(rng, vectors.dense(), removed, changed, added)
        new_vectors = vectors.patched(origin, new_dense[origin < 0])
        patch = patch_slot_lists(lists, vectors.rows, new_vectors, depth=DEPTH, floor=FLOOR)
        view = patch.lists.rows_view(new_vectors.rows)
        moved = np.zeros(len(new_vectors), dtype=bool)
        moved[view.slot_row[patch.changed]] = True
        pairs = patch_pairs(pairs, len(vectors), origin, moved, view.of, FLOOR)
        assert_as_built(patch.lists, new_vectors, pairs)
        if rng.random() < 0.3 and vectors.source is not None:  # another writer appends to the shared store meanwhile
            with open(vectors.source, "ab") as store:
                store.write(np.ones((2, vectors.dimension), dtype=np.float32).tobytes())
        folder = tmp_path / str(step)
        vectors, lists = saved(new_vectors, patch.lists, folder)
        ways.add("linked" if os.path.samefile(folder / "lists.base.indices.npy", tmp_path / str(step - 1) / "lists.base.indices.npy")
                 else "written")
        if rng.random() < 0.5:
            vectors, lists = read_back(folder)  # as a new process reads the folder
        assert_as_built(lists, vectors)
    assert "linked" in ways or compacting


def test_a_save_links_the_base_and_writes_the_delta_until_the_delta_outgrows_its_share(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    monkeypatch.setattr(slot_lists, "DELTA_FLOOR", 0)
    monkeypatch.setattr(slot_lists, "DELTA_SHARE", 4)  # a delta of up to 25 lists over a base of 100
    dense = unit(rng, 100, dim=6)
    vectors, lists = saved(RowVectors.of(dense), SlotLists.of_rows(build_neighbour_lists(dense, K), np.arange(100), 100), tmp_path / "0")
    sizes = []
    for step in range(1, 40):
        origin = np.append(np.arange(len(vectors)), -1)  # one vector added each time
        new_vectors = vectors.patched(origin, unit(rng, 1, 6))
        patch = patch_slot_lists(lists, vectors.rows, new_vectors, depth=DEPTH)
        vectors, lists = saved(new_vectors, patch.lists, tmp_path / str(step))
        linked = os.path.samefile(tmp_path / str(step) / "lists.base.indices.npy", tmp_path / str(step - 1) / "lists.base.indices.npy")
        sizes.append((linked, patch.lists.delta_slots.size, lists.delta_slots.size))
        assert_as_built(lists, vectors)
    assert all(after == before for linked, before, after in sizes if linked)  # linked: the delta as it was
    assert all(before > 25 and after == 0 for linked, before, after in sizes if not linked)  # a new base, no delta
    assert any(linked for linked, *_ in sizes) and not all(linked for linked, *_ in sizes)
    assert np.load(tmp_path / "39" / "lists.delta.slots.npy").size == lists.delta_slots.size


def test_a_patch_reads_the_base_but_never_writes_it(tmp_path):
    rng = np.random.default_rng(5)
    dense = unit(rng, 80, dim=6)
    vectors, lists = saved(RowVectors.of(dense), SlotLists.of_rows(build_neighbour_lists(dense, K), np.arange(80), 80), tmp_path / "0")
    before = (tmp_path / "0" / "lists.base.indices.npy").read_bytes(), (tmp_path / "0" / "lists.base.cosines.npy").read_bytes()
    new_dense, origin = edited(rng, vectors.dense(), 6, 4, 6)
    patch = patch_slot_lists(lists, vectors.rows, vectors.patched(origin, new_dense[origin < 0]), depth=DEPTH, floor=FLOOR)
    assert patch.changed.size and patch.lists.base_indices is lists.base_indices
    saved(vectors.patched(origin, new_dense[origin < 0]), patch.lists, tmp_path / "1")
    assert ((tmp_path / "0" / "lists.base.indices.npy").read_bytes(), (tmp_path / "0" / "lists.base.cosines.npy").read_bytes()) == before


@pytest.mark.parametrize("added", [0, 3])
def test_rows_another_writer_appended_move_no_base_slot_and_the_base_stays_linked(tmp_path, added):
    """Another process appended to the shared store: this save's own new vectors go past its rows (the delta is
    renumbered), the base's slots stay, so the base is linked, not written again."""
    rng = np.random.default_rng(1)
    dense = unit(rng, 200, dim=6)
    vectors, lists = saved(RowVectors.of(dense), SlotLists.of_rows(build_neighbour_lists(dense, K), np.arange(200), 200), tmp_path / "0")
    with open(vectors.source, "ab") as store:
        store.write(np.ones((3, vectors.dimension), dtype=np.float32).tobytes())
    origin = np.append(np.delete(np.arange(200), 17), np.full(added, -1))
    new_vectors = vectors.patched(origin, unit(rng, added, 6))
    patch = patch_slot_lists(lists, vectors.rows, new_vectors, depth=DEPTH, floor=FLOOR)
    stored, lists = saved(new_vectors, patch.lists, tmp_path / "1")
    assert os.path.samefile(tmp_path / "1" / "lists.base.indices.npy", tmp_path / "0" / "lists.base.indices.npy")
    assert (moved_slots(new_vectors, stored) is None) == (added == 0)
    assert_as_built(lists, stored)
    assert_as_built(read_back(tmp_path / "1")[1], stored)


def test_the_summary_is_computed_once_when_two_threads_ask(tmp_path):
    rng = np.random.default_rng(2)
    dense = unit(rng, 2000, dim=8)
    saved(RowVectors.of(dense), SlotLists.of_rows(build_neighbour_lists(dense, K), np.arange(2000), 2000), tmp_path / "0")
    for _ in range(10):
        lists = load_slot_lists(tmp_path / "0", "lists", 2000)
        barrier = threading.Barrier(2)
        threads = [threading.Thread(target=lambda: (barrier.wait(), lists.summary)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(lists._summary) == 1


def test_a_store_compacted_under_the_same_rows_gets_a_base_of_its_own_slots(tmp_path, monkeypatch):
    """Vectors appended, written into a base, then removed: the rows are as before, but the store compacts to fewer
    slots than the base holds, whose stale rows name slots past the end. A new base is written, and edits go on."""
    monkeypatch.setattr(row_vectors, "COMPACT_SLACK", 0)
    rng = np.random.default_rng(4)
    dense = unit(rng, 6, dim=6)
    vectors, lists = saved(RowVectors.of(dense), SlotLists.of_rows(build_neighbour_lists(dense, K), np.arange(6), 6), tmp_path / "0")
    steps = [(np.append(np.arange(6), np.full(5, -1)), 5, 0), (np.arange(6), 0, 100), (np.append(np.arange(6), -1), 1, 100)]
    for step, (origin, added, delta_floor) in enumerate(steps, start=1):  # a new base of 11 slots, then deltas may grow
        monkeypatch.setattr(slot_lists, "DELTA_FLOOR", delta_floor)
        new_vectors = vectors.patched(origin, unit(rng, added, 6))
        patch = patch_slot_lists(lists, vectors.rows, new_vectors, depth=DEPTH, floor=FLOOR)
        vectors, lists = saved(new_vectors, patch.lists, tmp_path / str(step))
        assert_as_built(lists, vectors)
    assert not os.path.samefile(tmp_path / "2" / "lists.base.indices.npy", tmp_path / "1" / "lists.base.indices.npy")
