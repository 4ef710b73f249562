"""The engine facade: one vault, the stages wired together, nothing more.

Each method delegates to a stage module; the facade only keeps what is costly to
load (the search index) between calls and drops it when an index run changes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engram_lab.errors import EngramError
from engram_lab.indexer import IndexReport, index_vault
from engram_lab.ingest import IngestedFile, ingest_file
from engram_lab.retrieve.keyword_search import KeywordSearcher
from engram_lab.retrieve.results import SearchResult
from engram_lab.state.db import open_ledger
from engram_lab.state.decisions import DecisionLedger
from engram_lab.status import StatusReport, vault_status
from engram_lab.vault.root import require_vault

SEARCH_MODES = ("keyword",)


class Engine:
    def __init__(self, vault: Path | str) -> None:
        self.vault = require_vault(Path(vault))
        self._searcher: KeywordSearcher | None = None

    def index(self, *, full: bool = False, progress: bool | None = None) -> IndexReport:
        report = index_vault(self.vault, full=full, progress=progress)
        if report.keyword_index_rebuilt:
            self._searcher = None
        return report

    def status(self) -> StatusReport:
        return vault_status(self.vault)

    def search(self, query: str, *, k: int = 10, mode: str = "keyword") -> list[SearchResult]:
        if mode not in SEARCH_MODES:
            raise EngramError(f"unknown search mode {mode!r}; available: {', '.join(SEARCH_MODES)}")
        if k < 1:
            raise EngramError(f"--k must be at least 1, got {k}")
        if self._searcher is None:
            self._searcher = KeywordSearcher(self.vault)
        return self._searcher.search(query, k)

    def ingest(self, source: Path) -> IngestedFile:
        return ingest_file(self.vault, source)

    @contextmanager
    def decisions(self) -> Iterator[DecisionLedger]:
        conn = open_ledger(self.vault)
        try:
            yield DecisionLedger(conn)
        finally:
            conn.close()

    def export_decisions(self, path: Path) -> int:
        with self.decisions() as ledger:
            return ledger.export_json(path)

    def import_decisions(self, path: Path) -> dict[str, int]:
        with self.decisions() as ledger:
            return ledger.import_json(path)
