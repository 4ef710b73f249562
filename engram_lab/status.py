"""``engram status``: what the ledger knows, checked against the files as they are now."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engram_lab.indexer import needs_work
from engram_lab.vault.root import require_vault
from engram_lab.state.db import open_ledger, transaction
from engram_lab.state.documents import DocumentTable
from engram_lab.vault import scan_vault


@dataclass
class StatusReport:
    counts: dict[str, int]
    failed: list[tuple[str, str]] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)  # on disk, never indexed
    deleted: list[str] = field(default_factory=list)  # indexed, gone from disk

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def vault_status(vault: Path) -> StatusReport:
    """Stat every note (reading none), mark changed ones ``stale`` and report."""
    vault = require_vault(vault)
    scan = scan_vault(vault)
    conn = open_ledger(vault)
    try:
        table = DocumentTable(conn)
        rows = {row.path: row for row in table.all()}
        changed = [rows[vf.rel_path] for vf in scan.files if vf.rel_path in rows and needs_work(vf, rows[vf.rel_path], False)]
        with transaction(conn):
            table.mark_stale([row.doc_id for row in changed if row.status != "failed"])
        present = {vf.rel_path for vf in scan.files} | {p.rel_path for p in scan.problems if p.is_document}
        report = StatusReport(counts=table.counts())
        report.failed = [(row.path, row.error or "") for row in table.all() if row.status == "failed"]
        report.stale = sorted(row.path for row in changed if row.status != "failed")
        report.new = sorted(vf.rel_path for vf in scan.files if vf.rel_path not in rows)
        report.deleted = sorted(path for path in rows if path not in present)
        return report
    finally:
        conn.close()
