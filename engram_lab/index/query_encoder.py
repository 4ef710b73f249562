"""The packaged MiniLM's forward pass in numpy, for encoding a query without importing torch.

Loading sentence-transformers (torch, transformers, scikit-learn) takes 6-8 s
before the first query can be encoded, and almost none of it is the model: the
weights load in 0.15 s and a query's forward pass through six 384-wide layers
takes milliseconds. So a query is encoded here: the model's own tokenizer
(``tokenizers``), its own weights (``safetensors``), BERT's arithmetic, mean
pooling and L2 normalisation, as sentence-transformers configures this model.
Index builds, which encode thousands of texts, keep the batched torch path.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json): longer texts are cut, as at index time


class NumpyMiniLM:
    """A BERT encoder (the packaged all-MiniLM-L6-v2) with mean pooling and unit-length output."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.dimension = int(config["hidden_size"])
        self.weights = load_file(str(model_dir / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            hidden = self._forward(np.asarray(self.tokenizer.encode(text).ids, dtype=np.int64))
            pooled = hidden.mean(axis=0)
            out[row] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out

    def _forward(self, ids: np.ndarray) -> np.ndarray:
        w = self.weights
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: ids.size]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            attended = self._attention(x, p + "attention.")
            x = self._norm(x + self._linear(attended, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            inner = _gelu(self._linear(x, p + "intermediate.dense"))
            x = self._norm(x + self._linear(inner, p + "output.dense"), p + "output.LayerNorm")
        return x

    def _attention(self, x: np.ndarray, prefix: str) -> np.ndarray:
        n, width = x.shape
        size = width // self.heads

        def split(name: str) -> np.ndarray:  # (heads, tokens, size)
            return self._linear(x, prefix + "self." + name).reshape(n, self.heads, size).transpose(1, 0, 2)

        q, k, v = split("query"), split("key"), split("value")
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(size)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        return (scores @ v).transpose(1, 0, 2).reshape(n, width)

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.weights[name + ".weight"].T + self.weights[name + ".bias"]

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.weights[name + ".weight"] + self.weights[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU (with erf, not the tanh approximation)."""
    from scipy.special import erf

    return (0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))).astype(np.float32)
