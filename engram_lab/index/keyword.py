"""BM25 over sections (bm25s with English stemming and stop words)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import bm25s
import Stemmer

KEYS_FILE = "keys.json"
PARAMS_FILE = "params.index.json"  # written by bm25s when there is something to index
KEYS_FORMAT = 3  # 3: chunk keys (doc_id, ordinal, piece, start, end), versions one token; older folders are rebuilt


@lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


# Version numbers and decimals stay one token ("1.5" must not match "1.13" through a shared "13"); otherwise words of
# two or more letters or digits, as bm25s does by default.
TOKEN_PATTERN = r"(?u)\b\d+(?:\.\d+)+\b|\b\w\w+\b"


def tokenize(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, token_pattern=TOKEN_PATTERN, stopwords="en", stemmer=_stemmer(), return_ids=False,
                          show_progress=False)


ChunkKey = tuple[str, int, int, int, int]  # doc_id, section ordinal, piece, start, end (see index.chunks)


@dataclass(frozen=True)
class KeywordHit:
    key: ChunkKey
    score: float


class KeywordIndex:
    """A BM25 index whose rows are identified by chunk keys."""

    def __init__(self, retriever: bm25s.BM25 | None, keys: list[ChunkKey]) -> None:
        self._retriever = retriever
        self.keys = keys

    @classmethod
    def build(cls, texts: list[str], keys: list[ChunkKey]) -> KeywordIndex:
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
        (folder / KEYS_FILE).write_text(json.dumps({"format": KEYS_FORMAT, "keys": self.keys}), encoding="utf-8")

    @staticmethod
    def is_current(folder: Path) -> bool:
        """Whether this version wrote the index in ``folder`` (sections before chunks are rebuilt)."""
        try:
            saved = json.loads((folder / KEYS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(saved, dict) and saved.get("format") == KEYS_FORMAT

    @classmethod
    def load(cls, folder: Path) -> KeywordIndex:
        saved = json.loads((folder / KEYS_FILE).read_text(encoding="utf-8"))
        keys = [(str(d), int(o), int(p), int(a), int(b)) for d, o, p, a, b in saved["keys"]]
        retriever = bm25s.BM25.load(str(folder)) if (folder / PARAMS_FILE).exists() else None
        return cls(retriever, keys)

    def query_terms(self, query: str) -> list[tuple[str, float]]:
        """The query's index terms (stemmed, stop words out), each with its IDF here; a term no chunk holds gets the
        largest IDF there can be, since it is rarer than any term the vault has."""
        terms = tokenize([query])[0] if query.strip() else []
        n = len(self.keys)
        out = []
        for term in dict.fromkeys(terms):
            df = self._frequency(term)
            out.append((term, math.log(1 + (n - df + 0.5) / (df + 0.5))))
        return out

    def holds(self, term: str) -> bool:
        """Whether some chunk holds this (already tokenised) term."""
        return self._frequency(term) > 0

    def _frequency(self, term: str) -> int:
        if self._retriever is None:
            return 0
        token = self._retriever.vocab_dict.get(term)
        if token is None:
            return 0
        pointers = self._retriever.scores["indptr"]
        return int(pointers[token + 1] - pointers[token])

    def search(self, query: str, k: int) -> list[KeywordHit]:
        """Top ``k`` sections with a positive score; no match gives an empty list, never filler."""
        tokens = tokenize([query])
        if self._retriever is None or not tokens or not tokens[0] or k <= 0:
            return []
        ids, scores = self._retriever.retrieve(tokens, k=min(k, len(self.keys)), show_progress=False)
        return [KeywordHit(self.keys[int(i)], float(s)) for i, s in zip(ids[0], scores[0]) if s > 0]
