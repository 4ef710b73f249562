"""Answering from a retrieval index that is behind the notes, without rebuilding it inside a search.

Rebuilding embeds every changed text and recomputes neighbours: minutes on a
large vault, which a search must never spend silently. So when the ledger moved
on after the last published index, ``full`` ranks with that index, drops its
results for notes that changed since (their spans may no longer be right), and
puts in the changed notes found by keywords (BM25 is rebuilt from the ledger in
a fraction of that time), each at the place its keyword rank gives it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from engram_lab.index.derived import index_dir
from engram_lab.index.publish import current_index_dir
from engram_lab.index.retrieval_index import RETRIEVAL_INDEX, fresh_retrieval_index, index_model, layout_is_current
from engram_lab.retrieve.results import SearchResult
from engram_lab.state.documents import DocumentRow


@dataclass(frozen=True)
class IndexChoice:
    folder: Path | None  # the index to rank with; None: there is none usable, one must be built
    fresh: bool  # whether it reflects the ledger as it is now
    why_build: str = ""  # when none is usable, why (the search says so)


def choose_index(vault: Path, model: str, generation: int) -> IndexChoice:
    """The retrieval index a search that embeds its query ranks with: the fresh one, else the last published one
    with ``model``'s vectors (behind the notes), else none, with the reason."""
    fresh = fresh_retrieval_index(vault, model, generation)
    if fresh is not None:
        return IndexChoice(fresh, True)
    published = current_index_dir(index_dir(vault), RETRIEVAL_INDEX)
    if published is None:
        return IndexChoice(None, False, "no retrieval index was built for this vault yet")
    if not layout_is_current(published):
        return IndexChoice(None, False, "the retrieval index was written by an older version")
    if index_model(published) != model:
        return IndexChoice(None, False, f"the retrieval index holds vectors of {index_model(published)}, not {model}")
    return IndexChoice(published, False)


@dataclass(frozen=True)
class ChangedNotes:
    current: frozenset[str]  # doc ids the ledger holds that the published index does not hold as they are now
    stale: frozenset[str]  # doc ids the published index holds otherwise than the ledger now does (changed or deleted)

    def __bool__(self) -> bool:
        return bool(self.current or self.stale)


def _key(path: str | None, status: str | None, content_hash: str | None, extractor: str | None) -> tuple[object, ...]:
    return (path, status, content_hash, extractor)


def changed_notes(published: pl.DataFrame, ledger: list[DocumentRow]) -> ChangedNotes:
    """Which notes differ between the published index's documents and the ledger's rows (path, status, text, extractor)."""
    then = {row["doc_id"]: _key(row["path"], row["status"], row["content_hash"], row["extractor"])
            for row in published.iter_rows(named=True)}
    now = {row.doc_id: _key(row.path, row.status, row.content_hash, row.extractor) for row in ledger}
    current = frozenset(doc for doc, key in now.items() if then.get(doc) != key)
    stale = frozenset(doc for doc, key in then.items() if now.get(doc) != key)
    return ChangedNotes(current, stale)


def merge_keyword_hits(ranked: list[SearchResult], keyword: list[SearchResult], changes: ChangedNotes,
                       k: int) -> list[SearchResult]:
    """``ranked`` without the stale notes, with each changed note of ``keyword`` (BM25 order over every note) at its
    keyword rank. An inserted result takes the score of the place it takes, so the list stays in score order."""
    merged = [r for r in ranked if r.doc_id not in changes.stale]
    for place, hit in enumerate(keyword):
        if hit.doc_id not in changes.current or place >= k:
            continue
        place = min(place, len(merged))
        score = merged[place].score if place < len(merged) else (merged[-1].score if merged else hit.score)
        merged.insert(place, dataclasses.replace(hit, score=score))
    return [dataclasses.replace(r, rank=i) for i, r in enumerate(merged[:k], start=1)]


def behind_line(changes: ChangedNotes) -> str:
    """The one line a search adds when it answered this way."""
    count = len(changes.current | changes.stale)
    return (f"the retrieval index is behind the notes ({count} note(s) changed since it was built): ranked with it, "
            f"changed notes found by keywords only; run `engram index` to bring it up to date")
