"""Notes related to one note, each with the reasons it is related: what the "related notes" panel shows.

Reads only the loaded retrieval index, so it costs no model call and no extraction: the section vectors give
dense neighbours (note centroids, cosine), the mention and about edges give notes that share entities (weighted
by how rare each entity is, so "the programme" named everywhere does not tie everything together), and the link
edges give out-links and back-links. A reason is kept apart from the score, so the panel can say *why*.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from engram_lab.errors import EngramError
from engram_lab.index.retrieval_index import RetrievalData, load, published_retrieval_index

__all__ = ["PublishedIndex", "RelatedNote", "RelatedReason", "related_notes"]

# Reason kinds, in the order the panel lists them for one note.
LINKS_TO, LINKED_FROM, SHARED, SIMILAR = "links to", "linked from", "shared entities", "similar text"
_REASON_ORDER = {LINKS_TO: 0, LINKED_FROM: 1, SHARED: 2, SIMILAR: 3}
SHOWN_NAMES = 3  # shared entities named in a reason; the rest counted


@dataclass(frozen=True)
class RelatedReason:
    """One reason a note is related: its kind, what to show (names, a cosine), and its part of the score."""

    kind: str
    detail: str
    weight: float

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "detail": self.detail, "weight": round(self.weight, 4)}


@dataclass(frozen=True)
class RelatedNote:
    """A note related to the one asked about; ``score`` (the sum of its reasons' weights) orders the list."""

    path: str
    title: str
    score: float
    reasons: tuple[RelatedReason, ...]

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "title": self.title, "score": round(self.score, 4),
                "reasons": [r.to_json() for r in self.reasons]}


def related_notes(data: RetrievalData, path: str, k: int = 10, dense: int = 5, min_cosine: float = 0.3) -> list[RelatedNote]:
    """The ``k`` notes most related to the note at ``path`` (vault-relative), best first.

    A link either way weighs 1; shared entities weigh the share of this note's entity weight (IDF) they cover
    (0-1); the ``dense`` nearest notes by centroid cosine at or above ``min_cosine`` weigh their cosine.

    Raises EngramError when ``path`` is not in the index (a new note before re-indexing, a typo).
    """
    if k < 1:
        raise EngramError(f"k must be at least 1, got {k}")
    paths = data.documents["path"].to_list()
    note_of_row, notes = _note_numbering(paths)
    if path not in notes:
        raise EngramError(f"{path} is not in the retrieval index (a note added since the last index run? re-index the vault)")
    target = notes.index(path)
    reasons: dict[int, list[RelatedReason]] = {}
    for other, reason in [*_links(data, note_of_row, target), *_shared_entities(data, note_of_row, len(notes), target),
                          *_dense(data, note_of_row, len(notes), target, dense, min_cosine)]:
        reasons.setdefault(other, []).append(reason)
    titles = _titles(data.documents, note_of_row, len(notes))
    ranked = [RelatedNote(notes[n], titles[n], sum(r.weight for r in rs), tuple(sorted(rs, key=lambda r: _REASON_ORDER[r.kind])))
              for n, rs in reasons.items()]
    ranked.sort(key=lambda note: (-note.score, note.path))
    return ranked[:k]


def _note_numbering(paths: list[str]) -> tuple[np.ndarray, list[str]]:
    """Passage rows (a note, or a notebook's cells) -> note numbers, and the notes' paths in first-seen order."""
    number: dict[str, int] = {}
    rows = np.array([number.setdefault(p, len(number)) for p in paths], dtype=np.int64)
    return rows, list(number)


def _titles(documents: pl.DataFrame, note_of_row: np.ndarray, n_notes: int) -> list[str]:
    titles = [""] * n_notes
    for row, title in enumerate(documents["title"].to_list()):
        titles[note_of_row[row]] = titles[note_of_row[row]] or (title or "")
    return titles


def _links(data: RetrievalData, note_of_row: np.ndarray, target: int) -> list[tuple[int, RelatedReason]]:
    links = data.edges.filter(pl.col("type") == "link")
    found: dict[tuple[int, str], RelatedReason] = {}
    for src, dst in zip(links["src"].to_list(), links["dst"].to_list()):
        a, b = int(note_of_row[src]), int(note_of_row[dst])
        if a == b:
            continue
        if a == target:
            found[(b, LINKS_TO)] = RelatedReason(LINKS_TO, "this note links to it", 1.0)
        elif b == target:
            found[(a, LINKED_FROM)] = RelatedReason(LINKED_FROM, "it links to this note", 1.0)
    return [(note, reason) for (note, _), reason in found.items()]


def _shared_entities(data: RetrievalData, note_of_row: np.ndarray, n_notes: int, target: int) -> list[tuple[int, RelatedReason]]:
    """Notes naming the same entities; each entity weighs log(notes / notes naming it), rare ones most."""
    edges = data.edges.filter(pl.col("type").is_in(["mention", "about"]) & (pl.col("src") < data.n_passages))
    named: dict[int, set[int]] = {}  # entity -> notes
    for src, dst in zip(edges["src"].to_list(), edges["dst"].to_list()):
        named.setdefault(dst - data.n_passages, set()).add(int(note_of_row[src]))
    idf = {entity: math.log(n_notes / len(ns)) for entity, ns in named.items()}
    own = [entity for entity, ns in named.items() if target in ns and idf[entity] > 0]
    total = sum(idf[e] for e in own)
    if total == 0:
        return []
    shared: dict[int, list[int]] = {}
    for entity in own:
        for note in named[entity] - {target}:
            shared.setdefault(note, []).append(entity)
    names = data.entities["name"].to_list()
    out = []
    for note, entities in shared.items():
        entities.sort(key=lambda e: (-idf[e], names[e]))
        shown = ", ".join(names[e] for e in entities[:SHOWN_NAMES])
        more = f" and {len(entities) - SHOWN_NAMES} more" if len(entities) > SHOWN_NAMES else ""
        out.append((note, RelatedReason(SHARED, shown + more, sum(idf[e] for e in entities) / total)))
    return out


def _dense(data: RetrievalData, note_of_row: np.ndarray, n_notes: int, target: int, dense: int,
           min_cosine: float) -> list[tuple[int, RelatedReason]]:
    """The nearest notes by the cosine of their section centroids (whole notes compared, not one passage)."""
    vectors = np.asarray(data.section_vectors, dtype=np.float64)
    if dense < 1 or vectors.size == 0:
        return []
    section_note = note_of_row[data.sections["doc_index"].to_numpy()]
    centroids = np.zeros((n_notes, vectors.shape[1]))
    np.add.at(centroids, section_note, vectors)
    norms = np.linalg.norm(centroids, axis=1)
    if norms[target] == 0:
        return []
    cosines = centroids @ centroids[target] / np.where(norms == 0, 1.0, norms) / norms[target]
    cosines[target] = -np.inf
    nearest = [int(n) for n in np.argsort(-cosines, kind="stable")[:dense] if cosines[n] >= min_cosine]
    return [(n, RelatedReason(SIMILAR, f"cosine {cosines[n]:.2f}", float(cosines[n]))) for n in nearest]


class PublishedIndex:
    """A vault's last published retrieval index, loaded once and reloaded only when a newer one is published:
    the panel asks on every note switch, and re-reading the parquet files each time would be the slow part."""

    def __init__(self, vault: Path) -> None:
        self.vault = vault
        self._data: RetrievalData | None = None
        self._lock = threading.Lock()

    def data(self) -> RetrievalData:
        """Raises EngramError when the vault has never been indexed with its retrieval index."""
        with self._lock:
            folder = published_retrieval_index(self.vault, known=self._data.folder if self._data else None)
            if folder is None:
                raise EngramError(f"{self.vault} has no retrieval index yet: re-index the vault")
            if self._data is None or self._data.folder != folder:
                self._data = load(folder)
            return self._data
