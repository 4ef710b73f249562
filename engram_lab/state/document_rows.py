"""Every document row, read whole once per process, then patched from the ledger's change log.

An index run compares every note with its row, and the derived indexes it refreshes read every row again: at
100,000 notes each whole read took 0.3 s of every edit, to find the one row that moved. The ledger logs each change
to a row (``document_log``, written by triggers in the writer's own transaction, whatever process or version makes
it); a process keeps the rows it read with the log position it read them at, and next time re-reads only the rows
logged since. The log is pruned past ``LOG_KEEP`` entries; a process kept from before the pruned position reads
everything again, as it does for a ledger it has not seen (a rebuilt ``.engram/`` is another ledger).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TypeVar

from engram_lab.last_few import LastFew
from engram_lab.state.db import DOCUMENT_LOG_PRUNED, LEDGER_ID, read_meta, set_meta
from engram_lab.state.documents import DocumentRow, DocumentTable, read_rows

T = TypeVar("T")
LOG_KEEP = 200_000  # log entries kept: a full index of 100,000 notes writes about three per note
_BATCH = 500  # ids per query, within SQLite's limit on bound parameters


@dataclass
class _Kept:
    position: int  # the last log entry these rows reflect
    rows: dict[str, DocumentRow]  # by document id
    _ordered: list[DocumentRow] | None = field(default=None, repr=False)

    def ordered(self) -> list[DocumentRow]:
        """In path order, as ``DocumentTable.all`` gives them (one sort per position, shared: do not change it)."""
        if self._ordered is None:
            self._ordered = sorted(self.rows.values(), key=attrgetter("path"))
        return self._ordered


_KEPT: LastFew[str, _Kept] = LastFew(4)  # by ledger id


def all_document_rows(conn: sqlite3.Connection) -> list[DocumentRow]:
    """``DocumentTable(conn).all()``, re-reading only the rows changed since this process last read them. Callers
    must not change the list (it is handed out again while no row moves)."""
    ledger_id = read_meta(conn, LEDGER_ID)
    if ledger_id is None or conn.in_transaction:  # inside a writer's transaction its own changes are not logged yet
        return DocumentTable(conn).all()
    conn.execute("BEGIN")  # one read snapshot: the log position and the rows agree
    try:
        position = _log_position(conn)
        kept = _KEPT.get(ledger_id)
        if kept is None or kept.position != position:
            kept = _patched(conn, kept, position)
    finally:
        conn.execute("COMMIT")
    _KEPT[ledger_id] = kept
    return kept.ordered()


def _patched(conn: sqlite3.Connection, kept: _Kept | None, position: int) -> _Kept:
    if kept is None or kept.position > position or kept.position < _pruned_through(conn):
        return _Kept(position, {row.doc_id: row for row in DocumentTable(conn).all()})
    changed = [doc_id for (doc_id,) in conn.execute("SELECT DISTINCT doc_id FROM document_log WHERE seq > ?", (kept.position,))]
    rows = dict(kept.rows)
    for doc_id in changed:
        rows.pop(doc_id, None)  # gone, unless read back below
    for start in range(0, len(changed), _BATCH):
        part = changed[start : start + _BATCH]
        rows.update((row.doc_id, row) for row in read_rows(conn, f"WHERE doc_id IN ({', '.join('?' * len(part))})", part))
    return _Kept(position, rows)


def prune_document_log(conn: sqlite3.Connection, keep: int = LOG_KEEP) -> int:
    """Drop all but the last ``keep`` log entries (inside the caller's transaction); returns how many went."""
    bound = _log_position(conn) - keep
    if bound <= _pruned_through(conn):
        return 0
    gone = conn.execute("DELETE FROM document_log WHERE seq <= ?", (bound,)).rowcount
    set_meta(conn, DOCUMENT_LOG_PRUNED, str(bound))
    return gone


def _log_position(conn: sqlite3.Connection) -> int:
    """The last log entry's number (0 for an empty log)."""
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM document_log").fetchone()[0])


def _pruned_through(conn: sqlite3.Connection) -> int:
    """The last log entry pruned: readers kept from before it cannot patch."""
    return int(read_meta(conn, DOCUMENT_LOG_PRUNED) or 0)


@dataclass(frozen=True)
class DocumentSnapshot:
    generation: int  # the sections generation, read just before the rows
    rows: list[DocumentRow]
    _derived: dict[Callable[[list[DocumentRow]], object], object] = field(default_factory=dict, compare=False, repr=False)

    def derived(self, derive: Callable[[list[DocumentRow]], T]) -> T:
        """``derive(rows)``, computed once per snapshot: the derived indexes of one run each asked for every
        document's signature (0.18 s apiece at 100,000 notes). Callers must not change what they get."""
        if derive not in self._derived:
            self._derived[derive] = derive(self.rows)
        return self._derived[derive]  # type: ignore[return-value]


class DocumentReads:
    """Every document row and the sections generation, read on first use and shared by the derived indexes one
    index run refreshes (each read all rows itself: 0.85 s apiece at 100,000 notes). Make one per run: a later
    run must read again."""

    def __init__(self) -> None:
        self._taken: DocumentSnapshot | None = None

    def take(self, table: DocumentTable) -> DocumentSnapshot:
        if self._taken is None:
            self._taken = DocumentSnapshot(table.generation(), all_document_rows(table.conn))
        return self._taken
