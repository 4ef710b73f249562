"""BM25 over chunks (bm25s's tokenizer with English stemming and stop words; scores from ``index.bm25``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import bm25s
import numpy as np
import Stemmer

from engram_lab.index.bm25 import TermCounts, idf
from engram_lab.index.recent import recall, remember

KEYS_FILE = "keys.json"
KEYS_FORMAT = 4  # 4: term counts (index.bm25) and document signatures, patched per edit; older folders are rebuilt
_FORMAT_STAMP = re.compile(rb'\{"format": (\d+)[,}]')  # how ``save`` opens the keys file
_CURRENT: dict[tuple[str, int], bool] = {}  # (folder, keys file mtime) -> whether this version wrote it


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
    """A BM25 index whose rows are identified by chunk keys, in (document, section, piece) order.

    ``documents``: each indexed document's signature (``index.changes``), so the next build patches only the
    documents that moved.
    """

    def __init__(self, counts: TermCounts, keys: list[ChunkKey], documents: dict[str, str] | None = None) -> None:
        self._counts = counts
        self.keys = keys
        self.documents = documents or {}

    @classmethod
    def build(cls, texts: list[str], keys: list[ChunkKey], documents: dict[str, str] | None = None) -> KeywordIndex:
        if len(texts) != len(keys):
            raise ValueError("texts and keys must align")
        return cls(TermCounts.from_tokens(tokenize(texts) if texts else []), keys, documents)

    def patched(self, redone: set[str] | frozenset[str], texts: list[str], keys: list[ChunkKey],
                documents: dict[str, str]) -> KeywordIndex:
        """This index with the chunks of the ``redone`` documents replaced by ``texts``/``keys`` (theirs now; none for
        a deleted document): only those are tokenised. Equal to a build over every chunk, in the same row order."""
        if len(texts) != len(keys):
            raise ValueError("texts and keys must align")
        keep = np.fromiter((key[0] not in redone for key in self.keys), dtype=bool, count=len(self.keys))
        merged = [key for key, kept in zip(self.keys, keep) if kept] + keys
        order = np.array(sorted(range(len(merged)), key=lambda i: merged[i][:3]), dtype=np.int64)
        counts = self._counts.patched(keep, tokenize(texts) if texts else [], order)
        return KeywordIndex(counts, [merged[i] for i in order], documents)

    def save(self, folder: Path) -> None:
        self._counts.save(folder)
        (folder / KEYS_FILE).write_text(json.dumps({"format": KEYS_FORMAT, "keys": self.keys, "documents": self.documents}),
                                        encoding="utf-8")

    @staticmethod
    def is_current(folder: Path) -> bool:
        """Whether this version wrote the index in ``folder`` (older layouts are rebuilt).

        Asked before every search; the answer is kept per file version (a published folder never changes), since
        reading the keys of a 10,000-note index took 19 ms, most of a keyword search."""
        try:
            stamp = (str(folder), (folder / KEYS_FILE).stat().st_mtime_ns)
        except OSError:
            return False
        if stamp not in _CURRENT:
            try:
                with (folder / KEYS_FILE).open("rb") as file:  # only the format ``save`` writes first: parsing
                    opening = file.read(32)  # every chunk key of each new folder took 15 ms, twice an edit
            except OSError:
                return False
            if len(_CURRENT) > 64:
                _CURRENT.clear()
            _CURRENT[stamp] = (found := _FORMAT_STAMP.match(opening)) is not None and int(found[1]) == KEYS_FORMAT
        return _CURRENT[stamp]

    @classmethod
    def load(cls, folder: Path) -> KeywordIndex:
        if (built := recall(folder, KeywordIndex)) is not None:
            return built
        saved = json.loads((folder / KEYS_FILE).read_text(encoding="utf-8"))
        keys = [(str(d), int(o), int(p), int(a), int(b)) for d, o, p, a, b in saved["keys"]]
        index = cls(TermCounts.load(folder), keys, dict(saved.get("documents", {})))
        remember(folder, index)  # the next edit patches it without reading the folder again
        return index

    def query_terms(self, query: str) -> list[tuple[str, float]]:
        """The query's index terms (stemmed, stop words out), each with its IDF here; a term no chunk holds gets the
        largest IDF there can be, since it is rarer than any term the vault has."""
        terms = tokenize([query])[0] if query.strip() else []
        n = len(self.keys)
        return [(term, float(idf(self._counts.frequency(term), n))) for term in dict.fromkeys(terms)]

    def holds(self, term: str) -> bool:
        """Whether some chunk holds this (already tokenised) term."""
        return self._counts.frequency(term) > 0

    def rows_holding(self, terms: list[str]) -> np.ndarray:
        """The chunk rows holding every one of these (already tokenised) terms, ascending (all rows for none);
        intersected from the rarest term's rows up."""
        unique = sorted(dict.fromkeys(terms), key=self._counts.frequency)
        if not unique:
            return np.arange(len(self.keys))
        rows = self._counts.rows_of(unique[0])
        for term in unique[1:]:
            rows = np.intersect1d(rows, self._counts.rows_of(term), assume_unique=True)
        return rows

    def scores(self, query: str) -> np.ndarray:
        """Every chunk's BM25 score for ``query`` (row i is ``keys[i]``)."""
        tokens = tokenize([query]) if query.strip() else [[]]
        return self._counts.scores(tokens[0])

    def search(self, query: str, k: int) -> list[KeywordHit]:
        """Top ``k`` chunks with a positive score (ties in row order); no match gives an empty list, never filler."""
        if k <= 0 or not self.keys:
            return []
        scores = self.scores(query)
        positive = np.flatnonzero(scores > 0)
        best = positive[np.argsort(-scores[positive], kind="stable")[:k]]
        return [KeywordHit(self.keys[int(i)], float(scores[i])) for i in best]
