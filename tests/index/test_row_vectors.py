"""Row vectors behave as the array they stand for, before and after a save; a patch's save shares the previous
store by hard link and appends, without changing what an older folder reads."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from engram_lab.index import row_vectors
from engram_lab.index.row_vectors import RowVectors, load_vectors, save_vectors

D = 4


def _vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.standard_normal((n, D)).astype(np.float32)


def _folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    return folder


def _patch(vectors: RowVectors, dense: np.ndarray, rng: np.random.Generator) -> tuple[RowVectors, np.ndarray]:
    """A random patch: rows dropped, kept in a new order, new ones added; and the array it must equal."""
    n = len(vectors)
    kept = rng.permutation(n)[: max(0, n - int(rng.integers(0, 3)))]
    origin = np.concatenate([kept, np.full(int(rng.integers(0, 4)), -1)])
    rng.shuffle(origin)
    added = _vectors(rng, int((origin < 0).sum()))
    expected = np.empty((len(origin), D), dtype=np.float32)
    expected[origin >= 0] = dense[origin[origin >= 0]]
    expected[origin < 0] = added
    return vectors.patched(origin, added), expected


def assert_same(vectors: RowVectors, dense: np.ndarray) -> None:
    rng = np.random.default_rng(0)
    assert vectors.shape == dense.shape and len(vectors) == dense.shape[0]
    np.testing.assert_array_equal(np.asarray(vectors), dense)
    q, several = _vectors(rng, 1)[0], _vectors(rng, 3).T
    np.testing.assert_allclose(vectors @ q, dense @ q, rtol=1e-6)
    np.testing.assert_allclose(vectors @ several, dense @ several, rtol=1e-6)
    if len(dense):
        rows = rng.integers(0, len(dense), 5)
        np.testing.assert_array_equal(vectors[rows], dense[rows])
        np.testing.assert_array_equal(vectors[int(rows[0])], dense[rows[0]])


def test_patched_vectors_equal_the_array_they_stand_for_in_memory_and_on_disk(tmp_path):
    rng = np.random.default_rng(1)
    dense = _vectors(rng, 12)
    vectors = save_vectors(RowVectors.of(dense), _folder(tmp_path, "f0"), "v")
    assert_same(vectors, dense)
    for step in range(1, 8):
        vectors, dense = _patch(vectors, dense, rng)
        assert_same(vectors, dense)  # store parts on disk and in memory
        folder = _folder(tmp_path, f"f{step}")
        vectors = save_vectors(vectors, folder, "v")
        assert_same(vectors, dense)
        assert_same(load_vectors(folder, "v"), dense)  # as a new process reads it


def test_a_patch_links_the_previous_store_and_an_older_folder_still_reads_its_own_rows(tmp_path):
    rng = np.random.default_rng(2)
    first = _vectors(rng, 6)
    old_folder = _folder(tmp_path, "old")
    saved = save_vectors(RowVectors.of(first), old_folder, "v")
    patched, expected = _patch(saved, first, rng)
    new_folder = _folder(tmp_path, "new")
    save_vectors(patched, new_folder, "v")
    old_file, new_file = old_folder / "v.f32", new_folder / "v.f32"
    assert os.stat(old_file).st_ino == os.stat(new_file).st_ino  # shared, not copied
    assert_same(load_vectors(old_folder, "v"), first)
    assert_same(load_vectors(new_folder, "v"), expected)


def test_two_patches_of_one_folder_each_read_their_own_vectors(tmp_path):
    """Two writers patching the same published folder append to one store; neither reads the other's rows."""
    rng = np.random.default_rng(3)
    first = _vectors(rng, 5)
    saved = save_vectors(RowVectors.of(first), _folder(tmp_path, "base"), "v")
    (a, a_dense), (b, b_dense) = _patch(saved, first, rng), _patch(saved, first, rng)
    a_folder, b_folder = _folder(tmp_path, "a"), _folder(tmp_path, "b")
    save_vectors(a, a_folder, "v")
    save_vectors(b, b_folder, "v")
    assert_same(load_vectors(a_folder, "v"), a_dense)
    assert_same(load_vectors(b_folder, "v"), b_dense)


def test_an_append_after_a_torn_row_starts_at_the_next_whole_row(tmp_path):
    rng = np.random.default_rng(4)
    first = _vectors(rng, 3)
    folder = _folder(tmp_path, "base")
    saved = save_vectors(RowVectors.of(first), folder, "v")
    with open(folder / "v.f32", "ab") as store:
        store.write(b"\x01\x02\x03")  # a writer killed mid-row
    added = _vectors(rng, 2)
    patched = saved.patched(np.array([0, -1, 2, -1]), added)
    out = _folder(tmp_path, "next")
    save_vectors(patched, out, "v")
    assert_same(load_vectors(out, "v"), np.vstack([first[0], added[0], first[2], added[1]]))
    assert_same(load_vectors(folder, "v"), first)


def test_many_dead_rows_give_a_compact_store(tmp_path, monkeypatch):
    monkeypatch.setattr(row_vectors, "COMPACT_SLACK", 2)
    rng = np.random.default_rng(5)
    first = _vectors(rng, 8)
    old_folder = _folder(tmp_path, "old")
    saved = save_vectors(RowVectors.of(first), old_folder, "v")
    patched = saved.patched(np.array([1, 2, -1]), _vectors(rng, 1))  # six of nine store rows dead
    folder = _folder(tmp_path, "new")
    compact = save_vectors(patched, folder, "v")
    assert os.stat(folder / "v.f32").st_ino != os.stat(old_folder / "v.f32").st_ino
    assert (folder / "v.f32").stat().st_size == 3 * D * 4
    np.testing.assert_array_equal(compact.rows, np.arange(3))
    assert_same(load_vectors(folder, "v"), np.asarray(patched))


def test_without_hard_links_a_patch_writes_a_compact_store(tmp_path, monkeypatch):
    def refuse(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise OSError(18, "Invalid cross-device link")

    rng = np.random.default_rng(6)
    first = _vectors(rng, 4)
    saved = save_vectors(RowVectors.of(first), _folder(tmp_path, "old"), "v")
    patched, expected = _patch(saved, first, rng)
    monkeypatch.setattr(row_vectors.os, "link", refuse)
    folder = _folder(tmp_path, "new")
    save_vectors(patched, folder, "v")
    assert (folder / "v.f32").stat().st_nlink == 1
    assert_same(load_vectors(folder, "v"), expected)


@pytest.mark.parametrize("n", [0, 3])
def test_empty_stores_and_patches_to_nothing(tmp_path, n):
    rng = np.random.default_rng(7)
    first = _vectors(rng, n)
    saved = save_vectors(RowVectors.of(first), _folder(tmp_path, "a"), "v")
    assert_same(saved, first)
    emptied = saved.patched(np.zeros(0, dtype=np.int64), np.zeros((0, D), np.float32))
    folder = _folder(tmp_path, "b")
    save_vectors(emptied, folder, "v")
    assert_same(load_vectors(folder, "v"), np.zeros((0, D), np.float32))
    grown = load_vectors(folder, "v").patched(np.array([-1, -1]), _vectors(rng, 2))
    assert grown.shape == (2, D)
