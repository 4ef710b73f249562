"""``engram status``: what the ledger knows, checked against the files as they are now."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engram_lab.config import read_config
from engram_lab.graph.store import STORE_DIR
from engram_lab.index.integrity import check_tables, store_problem
from engram_lab.index.tables import TABLES_DIR, TableStore
from engram_lab.indexer import needs_work
from engram_lab.vault.root import require_vault
from engram_lab.state.db import engram_dir, open_ledger, transaction
from engram_lab.state.documents import DocumentRow, DocumentTable
from engram_lab.vault import scan_vault


@dataclass
class StatusReport:
    counts: dict[str, int]
    failed: list[tuple[str, str]] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)  # on disk, never indexed
    deleted: list[str] = field(default_factory=list)  # indexed, gone from disk
    damaged: list[str] = field(default_factory=list)  # derived files that disagree with the ledger (the next index run redoes them)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def vault_status(vault: Path) -> StatusReport:
    """Stat every note (reading none), mark changed ones ``stale`` and report."""
    vault = require_vault(vault)
    scan = scan_vault(vault, allow_hard_links=read_config(vault).allow_hard_links)  # no endpoint is used here
    conn = open_ledger(vault)
    try:
        table = DocumentTable(conn)
        rows = {row.path: row for row in table.all()}
        changed = [rows[vf.rel_path] for vf in scan.files if vf.rel_path in rows and needs_work(vf, rows[vf.rel_path], False)]
        damaged, behind = _derived_problems(vault, list(rows.values()))
        changed += [row for row in rows.values() if row.doc_id in behind]
        with transaction(conn):
            table.mark_stale([row.doc_id for row in changed if row.status != "failed"])
        present = {vf.rel_path for vf in scan.files} | {p.rel_path for p in scan.problems if p.is_document}
        report = StatusReport(counts=table.counts())
        report.failed = [(row.path, row.error or "") for row in table.all() if row.status == "failed"]
        report.stale = sorted(row.path for row in changed if row.status != "failed")
        report.new = sorted(vf.rel_path for vf in scan.files if vf.rel_path not in rows)
        report.deleted = sorted(path for path in rows if path not in present)
        report.damaged = damaged
        return report
    finally:
        conn.close()


def _derived_problems(vault: Path, rows: list[DocumentRow]) -> tuple[list[str], set[str]]:
    """What is wrong with the graph store and the tables, and the doc ids they do not hold as the ledger says."""
    indexed = {row.doc_id: row.path for row in rows if row.status in ("indexed", "pending-review") and not row.error}
    check = check_tables(TableStore(engram_dir(vault) / TABLES_DIR), indexed, {row.doc_id for row in rows})
    graph_docs = {row.doc_id for row in rows if row.status == "indexed"}
    problem = store_problem(engram_dir(vault) / STORE_DIR, bool(graph_docs))
    problems = check.problems + ([problem] if problem else [])
    return problems, check.redo | (graph_docs if problem else set())
