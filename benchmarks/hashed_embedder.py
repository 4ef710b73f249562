"""A fast stand-in for the embedding model, for scale runs that measure everything but the model.

A 100,000-note cold build spends over an hour in the model on two cores; the memory, the latency and every stage
around the model do not depend on which vectors come out. Words hashed (crc32, the same in every process) into
signed buckets of the model's width: similar wording gives similar vectors, so searches still behave like searches.
Its name differs from the model's, so an index or an embedding cache of one is never read as the other's.
"""

from __future__ import annotations

import re
import zlib

import numpy as np

_WORD = re.compile(r"\w+")


class HashedWords:
    """An embedder and its own factory (``Engine(vault, embedder_factory=HashedWords())``)."""

    name = "bench-hashed-words-384"
    dimension = 384

    def __call__(self) -> HashedWords:
        return self

    def encode(self, texts: list[str]) -> np.ndarray:
        rows, cols, signs = [], [], []
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = zlib.crc32(word.encode("utf-8"))
                rows.append(row)
                cols.append(h % self.dimension)
                signs.append(1.0 if h & (1 << 31) else -1.0)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        np.add.at(out, (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)), np.array(signs, dtype=np.float32))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)
