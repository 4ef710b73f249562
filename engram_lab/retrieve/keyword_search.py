"""Keyword (BM25) search over sections: the ``keyword`` mode."""

from __future__ import annotations

from pathlib import Path

from engram_lab.errors import EngramError
from engram_lab.index.derived import refresh_keyword_index
from engram_lab.index.keyword import KeywordIndex
from engram_lab.vault.root import require_vault
from engram_lab.retrieve.results import SearchResult
from engram_lab.state.db import open_ledger
from engram_lab.state.documents import DocumentTable


class KeywordSearcher:
    """Loads the published BM25 index once; ``search`` can then be called many times."""

    def __init__(self, vault: Path) -> None:
        self.vault = require_vault(vault)
        if not (self.vault / ".engram" / "ledger.sqlite").exists():
            raise EngramError(f"{vault}: not indexed yet; run `engram index {vault}` first")
        self.index = KeywordIndex.load(refresh_keyword_index(self.vault))

    def search(self, query: str, k: int = 10) -> list[SearchResult]:
        if not query.strip():
            raise EngramError("the query is empty")
        hits = self.index.search(query, k)
        conn = open_ledger(self.vault)
        try:
            table = DocumentTable(conn)
            results: list[SearchResult] = []
            for hit in hits:
                doc_id, ordinal = hit.key
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
                        span=(section.start, section.end),
                        heading=section.heading,
                        heading_path=section.heading_path,
                        text=section.text,
                        status=row.status,
                    )
                )
            return results
        finally:
            conn.close()
