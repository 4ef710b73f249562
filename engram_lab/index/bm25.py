"""BM25 scored at query time from raw term counts, so an edit patches rows instead of rebuilding the index.

bm25s precomputes every (term, chunk) score, and each score reads the corpus's
size, its average length and the term's document frequency: one edited note moves
them all. Here the index keeps only each chunk's term counts (a sparse matrix,
one column per term); a query sums, over its terms' posting lists, the same
Lucene-variant formula bm25s uses (k1 1.5, b 0.75), which costs what bm25s's
lookup costs. An edit drops the changed chunks' rows and adds the new ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

K1 = 1.5
B = 0.75
COUNTS_FILE = "counts.npz"
VOCAB_FILE = "vocab.json"


def idf(frequency: np.ndarray | int, chunks: int) -> np.ndarray:
    """Lucene's IDF, as bm25s computes it."""
    return np.log(1 + (chunks - np.asarray(frequency, dtype=np.float64) + 0.5) / (np.asarray(frequency, dtype=np.float64) + 0.5))


def _count_matrix(tokens: list[list[str]], vocab: dict[str, int]) -> sp.csc_matrix:
    """Rows are the token lists, columns ``vocab``'s terms (new terms are appended to ``vocab``)."""
    rows, cols = [], []
    for row, words in enumerate(tokens):
        for word in words:
            rows.append(row)
            cols.append(vocab.setdefault(word, len(vocab)))
    data = np.ones(len(rows), dtype=np.float32)
    matrix = sp.csc_matrix((data, (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                           shape=(len(tokens), len(vocab)))
    matrix.sum_duplicates()
    return matrix


@dataclass
class TermCounts:
    """Term counts per chunk (row) and term (column), and the term -> column map."""

    counts: sp.csc_matrix
    vocab: dict[str, int]
    _norm: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def from_tokens(cls, tokens: list[list[str]]) -> TermCounts:
        vocab: dict[str, int] = {}
        return cls(_count_matrix(tokens, vocab), vocab)

    @property
    def rows(self) -> int:
        return int(self.counts.shape[0])

    def frequency(self, term: str) -> int:
        """How many chunks hold ``term``."""
        column = self.vocab.get(term)
        if column is None:
            return 0
        return int(self.counts.indptr[column + 1] - self.counts.indptr[column])

    def rows_of(self, term: str) -> np.ndarray:
        """The rows holding ``term``, ascending."""
        column = self.vocab.get(term)
        if column is None:
            return np.zeros(0, dtype=np.int64)
        return np.sort(self.counts.indices[self.counts.indptr[column]: self.counts.indptr[column + 1]]).astype(np.int64)

    def _length_norm(self) -> np.ndarray:
        if self._norm is None:
            lengths = np.asarray(self.counts.sum(axis=1), dtype=np.float64).ravel()
            average = lengths.mean() if lengths.size else 1.0
            self._norm = K1 * ((1 - B) + B * lengths / (average or 1.0))
        return self._norm

    def scores(self, terms: list[str]) -> np.ndarray:
        """Every chunk's BM25 score for the query's terms (a repeated term counts again, as in bm25s)."""
        out = np.zeros(self.rows, dtype=np.float64)
        if not self.rows:
            return out
        norm = self._length_norm()
        indptr, indices, data = self.counts.indptr, self.counts.indices, self.counts.data
        for term in terms:
            column = self.vocab.get(term)
            if column is None:
                continue
            lo, hi = indptr[column], indptr[column + 1]
            if lo == hi:
                continue
            rows, tf = indices[lo:hi], data[lo:hi].astype(np.float64)
            out[rows] += idf(hi - lo, self.rows) * tf / (norm[rows] + tf)
        return out

    def patched(self, keep: np.ndarray, tokens: list[list[str]], order: np.ndarray) -> TermCounts:
        """Rows where ``keep`` is true, then rows for ``tokens``, permuted by ``order`` (so row i is old-or-new row order[i])."""
        vocab = dict(self.vocab)
        added = _count_matrix(tokens, vocab)
        kept = self.counts[np.flatnonzero(keep)]
        kept.resize((kept.shape[0], len(vocab)))
        added.resize((added.shape[0], len(vocab)))
        stacked = sp.vstack([kept, added], format="csr")[order]
        return TermCounts(stacked.tocsc(), vocab)

    def save(self, folder: Path) -> None:
        sp.save_npz(folder / COUNTS_FILE, self.counts, compressed=False)
        terms = sorted(self.vocab, key=self.vocab.__getitem__)
        (folder / VOCAB_FILE).write_text(json.dumps(terms), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> TermCounts:
        terms = json.loads((folder / VOCAB_FILE).read_text(encoding="utf-8"))
        return cls(sp.load_npz(folder / COUNTS_FILE).tocsc(), {term: i for i, term in enumerate(terms)})
