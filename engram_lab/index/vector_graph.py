"""The HNSW graph a cold build makes for a large kind's neighbour lists, kept so a search asks it for the rows
nearest the query instead of reading every vector.

At 100,000 notes the query's product with every fact vector reads 1.1 GB per search. The cold build already
builds an HNSW graph over those vectors (``approximate_neighbours``); written beside the index, a search reads a
few thousand of its nodes instead. The graph's node ``i`` is store row ``i`` of the kind's vector store
(``row_vectors``), which only grows while a patch appends to it: so an edited index links the same graph file and
searches the store rows appended since exactly (they are few), and skips store rows no longer live. A compacted
store renumbers its rows; the graph records a digest of the store rows it covers, and a graph whose digest no
longer matches is not used (the search reads every vector again, exactly, until the next cold build).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from engram_lab.index.row_vectors import RowVectors

GRAPH_SUFFIX = ".hnsw"
META_SUFFIX = ".hnsw.json"
PROBES = 16  # store rows whose bytes make the digest
# Rows of a kind from which a search asks the graph rather than every vector: the product with 200,000 vectors
# is ~20 ms; below, exact search costs little and small vaults never depend on an approximation.
SEARCH_FROM = 200_000
SEARCH_BREADTH = 256  # efSearch: candidates the graph search keeps while it walks


def write_graph(index: Any, folder: Path, name: str, vectors: np.ndarray) -> None:
    """Save ``index`` (an HNSW graph over ``vectors``, which will be store rows 0.. of ``name``) in ``folder``."""
    import faiss

    faiss.write_index(index, str(folder / f"{name}{GRAPH_SUFFIX}"))
    covers = int(vectors.shape[0])
    _write_meta(folder, name, covers, _digest(vectors, covers))


def carry_graph(previous: Path, folder: Path, name: str, vectors: RowVectors) -> None:
    """Link ``previous``'s graph of ``name`` into ``folder`` when it still describes ``vectors``' store (not
    compacted since); a file system that will not link leaves ``folder`` without one (searches read every vector)."""
    meta = _read_meta(previous, name)
    if meta is None or not _matches(meta, vectors):
        return
    try:
        os.link(previous / f"{name}{GRAPH_SUFFIX}", folder / f"{name}{GRAPH_SUFFIX}")
    except OSError:
        return
    _write_meta(folder, name, meta["covers"], meta["digest"])


def searched_graph(folder: Path, name: str, vectors: RowVectors) -> VectorGraph | None:
    """``name``'s graph in ``folder`` over ``vectors`` (memory-mapped), or None when they are fewer than
    ``SEARCH_FROM`` or there is no graph that matches them."""
    if len(vectors) < SEARCH_FROM:
        return None
    meta = _read_meta(folder, name)
    if meta is None or not _matches(meta, vectors):
        return None
    import faiss

    index = faiss.read_index(str(folder / f"{name}{GRAPH_SUFFIX}"), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY)
    return VectorGraph(index, int(meta["covers"]), vectors)


@dataclass(frozen=True)
class VectorGraph:
    """An HNSW graph over store rows ``0 .. covers - 1`` of ``vectors``' store."""

    index: Any
    covers: int
    vectors: RowVectors

    @cached_property
    def _logical(self) -> np.ndarray:
        """Each store row's logical row, -1 where no logical row reads it any more."""
        logical = np.full(self.vectors.stored, -1, dtype=np.int64)
        logical[self.vectors.rows] = np.arange(len(self.vectors), dtype=np.int64)
        return logical

    @cached_property
    def _appended(self) -> np.ndarray:
        """Logical rows whose vectors were appended after the graph was built (searched exactly)."""
        return np.flatnonzero(self.vectors.rows >= self.covers)

    def nearest(self, query: np.ndarray, k: int) -> np.ndarray:
        """Logical rows near ``query``: the graph's ``k`` nearest live ones and every row appended since, unordered."""
        self.index.hnsw.efSearch = max(SEARCH_BREADTH, k)
        # Dead store rows take places in the answer: ask for as many more as there are dead rows, up to twice k.
        dead = self.covers - (len(self.vectors) - self._appended.shape[0])
        _, found = self.index.search(np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1), k + min(dead, k))
        found = found[0][found[0] >= 0]
        rows = self._logical[found]
        return np.unique(np.concatenate([rows[rows >= 0], self._appended]))


def _digest(store: np.ndarray, covers: int) -> str:
    probes = np.unique(np.linspace(0, covers - 1, PROBES).astype(np.int64)) if covers else np.zeros(0, np.int64)
    return hashlib.sha1(np.ascontiguousarray(store[probes], dtype=np.float32).tobytes()).hexdigest()


def _matches(meta: dict[str, Any], vectors: RowVectors) -> bool:
    covers = int(meta["covers"])
    first = vectors.parts[0]
    return covers <= first.shape[0] and _digest(first, covers) == meta["digest"]


def _write_meta(folder: Path, name: str, covers: int, digest: str) -> None:
    (folder / f"{name}{META_SUFFIX}").write_text(json.dumps({"covers": covers, "digest": digest}), encoding="utf-8")


def _read_meta(folder: Path, name: str) -> dict[str, Any] | None:
    try:
        return json.loads((folder / f"{name}{META_SUFFIX}").read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
