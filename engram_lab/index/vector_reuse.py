"""Vectors of an index patch: rows whose text is unchanged keep the previous index's vector, the rest are embedded.

Matching is by the embedded text itself (a vector is a function of its text), so
a row that moved (a note renamed, rows shifted by an insertion) keeps its vector
without reaching the embedding cache, and the match doubles as the ``origin``
the neighbour-list patch needs.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def match_rows(old_texts: list[str], new_texts: list[str]) -> np.ndarray:
    """Per new text, an old row with the same text, or -1; each old row used at most once."""
    free: dict[str, list[int]] = {}
    for row in range(len(old_texts) - 1, -1, -1):
        free.setdefault(old_texts[row], []).append(row)
    origin = np.full(len(new_texts), -1, dtype=np.int64)
    for row, text in enumerate(new_texts):
        rows = free.get(text)
        if rows:
            origin[row] = rows.pop()
    return origin


def reuse_vectors(texts: list[str], old_texts: list[str], old_vectors: np.ndarray,
                  embed: Callable[[list[str]], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(vectors of ``texts``, origin): unchanged texts copied from ``old_vectors``, only the others passed to ``embed``."""
    origin = match_rows(old_texts, texts)
    vectors = np.zeros((len(texts), old_vectors.shape[1]), dtype=np.float32)
    kept = np.flatnonzero(origin >= 0)
    vectors[kept] = old_vectors[origin[kept]]
    fresh = np.flatnonzero(origin < 0)
    if fresh.size:
        vectors[fresh] = embed([texts[i] for i in fresh])
    return vectors, origin
