"""What a vault browser shows per note: index status, failure reason, entity and relation counts.

Plain data for the JupyterLab sidebar (through the server extension) and anyone else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import polars as pl

from engram_lab.index.tables import TABLES_DIR, TableStore
from engram_lab.state.db import engram_dir, open_ledger
from engram_lab.state.documents import DocumentTable
from engram_lab.status import vault_status


@dataclass(frozen=True)
class NoteOverview:
    path: str
    title: str
    status: str  # indexed | stale | failed | pending-review | new
    error: str | None
    entities: int
    relations: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _counts(vault: Path, table: str) -> dict[str, int]:
    frame = TableStore(engram_dir(vault) / TABLES_DIR).read(table)
    if frame.is_empty():
        return {}
    counted = frame.group_by("doc_id").agg(pl.len().alias("n"))
    return dict(zip(counted["doc_id"].to_list(), counted["n"].to_list()))


def notes_overview(vault: Path) -> list[NoteOverview]:
    """Every note the ledger knows, plus notes new on disk, sorted by path."""
    conn = open_ledger(vault)
    try:
        rows = DocumentTable(conn).all()
    finally:
        conn.close()
    entities, relations = _counts(vault, "entities"), _counts(vault, "relations")
    status = vault_status(vault)
    stale = set(status.stale)
    out = [NoteOverview(r.path, r.title or r.path, "stale" if r.path in stale else r.status, r.error,
                        entities.get(r.doc_id, 0), relations.get(r.doc_id, 0)) for r in rows]
    out += [NoteOverview(path, path, "new", None, 0, 0) for path in status.new]
    return sorted(out, key=lambda n: n.path)


def stale_count(vault: Path) -> int:
    """Notes the index is behind on: changed, new on disk, or deleted on disk."""
    status = vault_status(vault)
    return len(status.stale) + len(status.new) + len(status.deleted)
