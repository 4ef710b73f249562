"""Checks that the derived files still agree with the ledger, so a crash or a damaged file is repaired, not trusted.

The ledger is the commit point of an index run, but the graph store and the
tables are separate files: a kill, a disk error or a person deleting a file can
leave them behind the ledger or damaged. An index run checks them first (cheap:
a directory listing and the small documents table) and redoes the notes they
disagree about; ``engram status`` reports the same problems.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from engram_lab.index.tables import TableStore

ROCKSDB_CURRENT = "CURRENT"  # names the live manifest; without it RocksDB refuses the folder or starts it empty


def store_problem(store_dir: Path, expects_graphs: bool) -> str | None:
    """Why the Oxigraph folder cannot be trusted, or None. ``expects_graphs``: the ledger has indexed notes."""
    if store_dir.is_symlink() or (store_dir.exists() and not store_dir.is_dir()):
        return f"{store_dir}: not a folder"
    if not store_dir.exists():
        return f"{store_dir}: missing although notes are indexed" if expects_graphs else None
    names = os.listdir(store_dir)
    if names and ROCKSDB_CURRENT not in names:
        return f"{store_dir}: damaged (its {ROCKSDB_CURRENT} file is missing)"
    if not names and expects_graphs:
        return f"{store_dir}: empty although notes are indexed"
    return None


@dataclass
class TableCheck:
    redo: set[str] = field(default_factory=set)  # doc ids whose rows are missing or name an old path
    unreadable: list[int] = field(default_factory=list)  # buckets whose documents file cannot be read
    orphans: set[str] = field(default_factory=set)  # doc ids in the tables that the ledger no longer has
    problems: list[str] = field(default_factory=list)


def check_tables(tables: TableStore, expected: dict[str, str], known: set[str]) -> TableCheck:
    """Compare the documents table with the ledger.

    ``expected``: doc id -> path of every note the ledger records as indexed (its rows must be there, under that
    path); ``known``: every doc id the ledger has. Reads only; the index run repairs.
    """
    check = TableCheck()
    paths, check.unreadable = tables.document_paths()
    for bucket in check.unreadable:
        check.problems.append(f"{tables.base}: bucket {bucket:02d} of the documents table is unreadable")
    for doc_id, path in expected.items():
        if paths.get(doc_id) != path:
            check.redo.add(doc_id)
    check.orphans = set(paths) - known
    if check.redo or check.orphans:
        check.problems.append(f"{tables.base}: {len(check.redo)} note(s) missing from the tables or under an old path")
    return check
