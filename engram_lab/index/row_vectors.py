"""Index vectors addressed through a row map, kept in an append-only store that published index folders share.

An edit changes few vectors but shifts many rows (an entity inserted in IRI order
moves every later one), and writing every vector again per edit cost 0.7 s and
258 MB at 10,000 notes (ten times that at 100,000). So row ``i`` of the index is
row ``rows[i]`` of a store that only grows: a patch appends the vectors it
embedded and writes a new row map, and the store file is hard-linked into the new
folder. Each folder records how many store rows it reads, so rows appended later
for a newer folder are invisible to it, and a reader's memory map of an older
folder is untouched. Store rows no folder's map names any more (changed or removed
texts) are dropped when they outnumber half the live rows, or when linking is not
possible: the patch then writes a compact store. A published folder is never
changed in place: appending happens only past the rows it reads.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

try:  # appends to a shared store are serialised by an advisory lock where the platform has one
    import fcntl
except ImportError:  # pragma: no cover - without it every patch writes a compact store
    fcntl = None  # type: ignore[assignment]

STORE_SUFFIX = ".f32"  # raw float32 rows, no header: appending needs no header rewrite
ROWS_SUFFIX = ".rows.npy"
EXTENT_FILE = "vector_rows.json"  # per store: the rows this folder reads, and the width
COMPACT_SLACK = 4096  # dead store rows always tolerated, so small indexes do not rewrite their store per edit


@dataclass(frozen=True)
class RowVectors:
    """Logical row ``i`` is store row ``rows[i]``; the store is ``parts`` one after another (an on-disk store, then
    vectors appended in memory by a patch). ``source``: the file ``parts[0]`` maps, which a save links instead of
    copying. Behaves as the (n, d) array for what search and the neighbour lists do with it: ``@``, indexing by rows,
    ``shape``, ``np.asarray``."""

    parts: tuple[np.ndarray, ...]
    rows: np.ndarray  # int64, one per logical row
    source: Path | None = None
    _identity: bool = field(default=False, compare=False)

    @classmethod
    def of(cls, array: np.ndarray) -> RowVectors:
        """An in-memory array as row vectors (rows in order, nothing to link)."""
        array = np.asarray(array, dtype=np.float32)
        return cls((array,), np.arange(array.shape[0], dtype=np.int64), None, True)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.rows.shape[0]), self.dimension)

    @property
    def dimension(self) -> int:
        return int(self.parts[0].shape[1])

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float32)

    @property
    def stored(self) -> int:
        """Store rows, live or dead."""
        return sum(int(part.shape[0]) for part in self.parts)

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        """Every logical row times ``other`` ((d,) or (d, j)): the store's product, then the rows (dead rows cost
        their share of the product, at most a third of it before a compaction)."""
        product = self.store_product(other)
        return product if self._identity else product[self.rows]

    def store_product(self, other: np.ndarray) -> np.ndarray:
        """Every store slot times ``other`` ((d, j)), dead slots included: slot i's product is row i."""
        return self.parts[0] @ other if len(self.parts) == 1 else np.concatenate([part @ other for part in self.parts])

    def at_slots(self, slots: np.ndarray) -> np.ndarray:
        """The vectors of these store slots."""
        return self._gather(np.asarray(slots, dtype=np.int64))

    def __getitem__(self, index: Any) -> np.ndarray:
        return self._gather(self.rows[index])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        dense = self.dense()
        return dense if dtype is None else dense.astype(dtype, copy=False)

    def dense(self) -> np.ndarray:
        """The (n, d) array: the store itself when its rows are the logical rows in order, else a gather."""
        if self._identity and len(self.parts) == 1:
            return self.parts[0]
        return self._gather(self.rows)

    def _gather(self, store_rows: np.ndarray) -> np.ndarray:
        if len(self.parts) == 1:
            return np.asarray(self.parts[0][store_rows], dtype=np.float32)
        flat = np.atleast_1d(store_rows)
        out = np.empty((flat.shape[0], self.dimension), dtype=np.float32)
        start = 0
        for part in self.parts:
            inside = (flat >= start) & (flat < start + part.shape[0])
            out[inside] = part[flat[inside] - start]
            start += part.shape[0]
        return out[0] if np.ndim(store_rows) == 0 else out

    def patched(self, origin: np.ndarray, added: np.ndarray) -> RowVectors:
        """New rows: row ``i`` keeps old row ``origin[i]``'s vector, or (``origin[i] < 0``) takes the next of
        ``added`` in order; the added vectors are appended to the store, nothing is copied."""
        rows = self.rows[np.maximum(origin, 0)] if len(self.rows) else np.zeros(len(origin), dtype=np.int64)
        fresh = np.flatnonzero(origin < 0)
        rows[fresh] = self.stored + np.arange(fresh.shape[0], dtype=np.int64)
        parts = self.parts if not fresh.size else (*self.parts, np.asarray(added, dtype=np.float32).reshape(-1, self.dimension))
        return RowVectors(parts, rows, self.source)


def save_vectors(vectors: RowVectors, folder: Path, name: str) -> RowVectors:
    """Write ``vectors`` as ``name`` in ``folder`` (store linked and appended to where it can be, else written
    compact) and return them as read back from there: memory-mapped, so the in-memory copy can go."""
    target = folder / f"{name}{STORE_SUFFIX}"
    extent = _append_to_link(vectors, target) if _worth_linking(vectors) else None
    if extent is None:
        dense = vectors.dense()
        with open(target, "wb") as out:
            dense.tofile(out)
        rows, extent = np.arange(len(vectors), dtype=np.int64), len(vectors)
    else:
        rows, extent = extent
    np.save(folder / f"{name}{ROWS_SUFFIX}", rows)
    _write_extent(folder, name, extent, vectors.dimension)
    return _mapped(target, extent, vectors.dimension, rows)


def load_vectors(folder: Path, name: str) -> RowVectors:
    """``name``'s vectors as ``save_vectors`` left them in ``folder`` (memory-mapped)."""
    extent, dimension = _read_extents(folder)[name]
    rows = np.load(folder / f"{name}{ROWS_SUFFIX}")
    return _mapped(folder / f"{name}{STORE_SUFFIX}", extent, dimension, rows)


def _mapped(path: Path, extent: int, dimension: int, rows: np.ndarray) -> RowVectors:
    if extent == 0:
        store = np.zeros((0, dimension), dtype=np.float32)
    else:
        store = np.memmap(path, dtype=np.float32, mode="r", shape=(extent, dimension))
    identity = extent == len(rows) and bool(np.array_equal(rows, np.arange(extent)))
    return RowVectors((store,), rows, path, identity)


def _worth_linking(vectors: RowVectors) -> bool:
    """Whether a patch should append to the previous store rather than write a compact one."""
    dead = vectors.stored - len(vectors)
    return vectors.source is not None and fcntl is not None and dead <= max(len(vectors) // 2, COMPACT_SLACK)


def _append_to_link(vectors: RowVectors, target: Path) -> tuple[np.ndarray, int] | None:
    """Link the previous store as ``target`` and append the new vectors under a lock; (rows, extent), or None when
    the file system will not link (another device, no hard links): the caller writes a compact store."""
    assert vectors.source is not None
    try:
        os.link(vectors.source, target)
    except OSError:
        return None
    base = int(vectors.parts[0].shape[0])
    appended = [np.ascontiguousarray(part, dtype=np.float32) for part in vectors.parts[1:]]
    width = vectors.dimension * 4
    with open(target, "r+b") as store, _locked(store):
        start = -(-store.seek(0, os.SEEK_END) // width)  # past every row anyone appended, and any torn last row
        store.seek(start * width)
        for part in appended:
            store.write(part.tobytes())
    extent = start + sum(part.shape[0] for part in appended)
    rows = np.where(vectors.rows >= base, vectors.rows - base + start, vectors.rows)
    return rows, extent


@contextmanager
def _locked(handle: Any) -> Iterator[None]:
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read_extents(folder: Path) -> dict[str, tuple[int, int]]:
    try:
        raw = json.loads((folder / EXTENT_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return {name: (int(extent), int(dimension)) for name, (extent, dimension) in raw.items()}


def _write_extent(folder: Path, name: str, extent: int, dimension: int) -> None:
    extents = _read_extents(folder) | {name: (extent, dimension)}
    (folder / EXTENT_FILE).write_text(json.dumps({k: list(v) for k, v in extents.items()}), encoding="utf-8")
