"""Keyword (BM25) search over sections: the ``keyword`` mode."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from engram_lab.errors import EngramError
from engram_lab.index.derived import refresh_keyword_index
from engram_lab.index.keyword import ChunkKey, KeywordHit, KeywordIndex
from engram_lab.vault.root import require_vault
from engram_lab.retrieve.results import SearchResult
from engram_lab.state.db import open_ledger
from engram_lab.state.documents import DocumentTable


CHUNKS_PER_RESULT = 8  # chunk hits read per wanted note: a long note's chunks can fill the top hits


class KeywordSearcher:
    """Loads the published BM25 index once; ``search`` can then be called many times."""

    def __init__(self, vault: Path) -> None:
        self.vault = require_vault(vault)
        if not (self.vault / ".engram" / "ledger.sqlite").exists():
            raise EngramError(f"{vault}: not indexed yet; run `engram index {vault}` first")
        self.index = KeywordIndex.load(refresh_keyword_index(self.vault))

    def search(self, query: str, k: int = 10) -> list[SearchResult]:
        """The ``k`` best notes, each by its best-scoring chunk (a note never takes two places)."""
        if not query.strip():
            raise EngramError("the query is empty")
        return keyword_results(self.vault, self.index, query, k)


def keyword_results(vault: Path, index: KeywordIndex, query: str, k: int) -> list[SearchResult]:
    """The ``k`` best notes by BM25 in ``index``, each by its best-scoring chunk, with spans read from the ledger."""
    best: dict[str, KeywordHit] = {}
    for hit in index.search(query, max(k * CHUNKS_PER_RESULT, 50)):
        best.setdefault(hit.key[0], hit)  # hits come best first
        if len(best) >= k:
            break
    conn = open_ledger(vault)
    try:
        table = DocumentTable(conn)
        results: list[SearchResult] = []
        for hit in best.values():
            doc_id, ordinal, _, start, end = hit.key
            section = table.section(doc_id, ordinal)
            row = table.by_id(doc_id)
            if section is None or row is None:
                continue  # the ledger moved on after this index was published
            results.append(
                SearchResult(
                    rank=len(results) + 1,
                    path=row.path,
                    cell_id=section.cell_id,
                    doc_id=doc_id,
                    score=hit.score,
                    span=(start, end),
                    heading=section.heading,
                    heading_path=section.heading_path,
                    text=section.text[start - section.start : end - section.start],
                    status=row.status,
                )
            )
        return results
    finally:
        conn.close()


def section_texts(vault: Path, keys: list[ChunkKey]) -> Iterator[tuple[str, str]]:
    """The note path and text of each section these chunks belong to, once per section, read from the ledger as the
    caller asks for them (a section or note the ledger no longer has gives nothing)."""
    if not keys:
        return
    conn = open_ledger(vault)
    try:
        table = DocumentTable(conn)
        paths: dict[str, str | None] = {}
        for doc_id, ordinal in dict.fromkeys(key[:2] for key in keys):
            if doc_id not in paths:
                paths[doc_id] = row.path if (row := table.by_id(doc_id)) is not None else None
            if paths[doc_id] is not None and (section := table.section(doc_id, ordinal)) is not None:
                yield paths[doc_id], section.text
    finally:
        conn.close()
