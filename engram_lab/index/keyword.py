"""BM25 over sections (bm25s with English stemming and stop words)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import bm25s
import Stemmer

KEYS_FILE = "keys.json"
PARAMS_FILE = "params.index.json"  # written by bm25s when there is something to index


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords="en", stemmer=_stemmer(), return_ids=False, show_progress=False)


@dataclass(frozen=True)
class KeywordHit:
    key: tuple[str, int]  # (doc_id, section ordinal)
    score: float


class KeywordIndex:
    """A BM25 index whose rows are identified by ``(doc_id, ordinal)`` keys."""

    def __init__(self, retriever: bm25s.BM25 | None, keys: list[tuple[str, int]]) -> None:
        self._retriever = retriever
        self.keys = keys

    @classmethod
    def build(cls, texts: list[str], keys: list[tuple[str, int]]) -> KeywordIndex:
        if len(texts) != len(keys):
            raise ValueError("texts and keys must align")
        tokens = tokenize(texts)
        if not any(tokens):  # nothing but stop words and one-letter words: nothing to rank
            return cls(None, keys)
        retriever = bm25s.BM25()
        retriever.index(tokens, show_progress=False)
        return cls(retriever, keys)

    def save(self, folder: Path) -> None:
        if self._retriever is not None:
            self._retriever.save(str(folder))
        (folder / KEYS_FILE).write_text(json.dumps(self.keys), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> KeywordIndex:
        keys = [(doc_id, int(ordinal)) for doc_id, ordinal in json.loads((folder / KEYS_FILE).read_text(encoding="utf-8"))]
        retriever = bm25s.BM25.load(str(folder)) if (folder / PARAMS_FILE).exists() else None
        return cls(retriever, keys)

    def search(self, query: str, k: int) -> list[KeywordHit]:
        """Top ``k`` sections with a positive score; no match gives an empty list, never filler."""
        tokens = tokenize([query])
        if self._retriever is None or not tokens or not tokens[0] or k <= 0:
            return []
        ids, scores = self._retriever.retrieve(tokens, k=min(k, len(self.keys)), show_progress=False)
        return [KeywordHit(self.keys[int(i)], float(s)) for i, s in zip(ids[0], scores[0]) if s > 0]
