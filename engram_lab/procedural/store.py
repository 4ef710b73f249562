"""``.engram/procedural.sqlite``: the procedural memory entries and the decisions people made about them.

One IMMEDIATE transaction per change (:class:`engram_lab.state.db.transaction`), WAL mode, so a crash leaves
every entry as it was before or after a change, never half-written. Kept out of the document ledger: it is
not derived from notes, and an index rebuild must never touch it.
"""

from __future__ import annotations

import datetime as dt
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engram_lab.errors import EngramError, VaultError
from engram_lab.state.db import engram_dir, transaction

MEMORY_DB = "procedural.sqlite"
KINDS = ("preference", "project", "practice")
STATUSES = ("active", "pending", "retired")
MAX_TEXT_CHARS = 2000
MAX_SOURCE_CHARS = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, text TEXT NOT NULL, author TEXT NOT NULL, source TEXT NOT NULL,
    created TEXT NOT NULL, status TEXT NOT NULL, tainted TEXT, decided_by TEXT, updated TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class MemoryEntry:
    """``tainted``: what untrusted content the turn that wrote it had read (``None``: nothing)."""

    id: str
    kind: str
    text: str
    author: str  # "user" or "agent:<model>"
    source: str  # the note, tool result or turn it came from
    created: str
    status: str
    tainted: str | None = None
    decided_by: str | None = None
    updated: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def now() -> str:
    """Microseconds: ``updated`` is also the version a decision checks, and two changes may share a second."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="microseconds")


def check_kind(kind: object) -> str:
    if kind not in KINDS:
        raise EngramError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    assert isinstance(kind, str)
    return kind


def check_text(text: object, name: str = "text", limit: int = MAX_TEXT_CHARS) -> str:
    if not isinstance(text, str) or not text.strip():
        raise EngramError(f"{name} must be a non-empty string")
    if len(text) > limit:
        raise EngramError(f"{name} is longer than {limit} characters; one entry holds one short preference or practice")
    return text.strip()


def _entry(row: sqlite3.Row) -> MemoryEntry:
    return MemoryEntry(**{key: row[key] for key in row.keys()})


class MemoryStore:
    """The entries of one vault. Every method opens, uses and closes its own connection (kernels, the CLI
    and an MCP server may share the file)."""

    def __init__(self, vault: Path) -> None:
        self.vault = vault
        self.path = engram_dir(vault) / MEMORY_DB

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        directory = self.path.parent
        if directory.is_symlink():
            raise VaultError(f"{directory}: is a symlink; not followed (replace it with a folder)")
        try:
            directory.mkdir(exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise VaultError(f"{self.path}: cannot open the procedural memory: {exc}") from None
        conn.row_factory = sqlite3.Row
        try:
            yield conn
        finally:
            conn.close()

    def add(self, kind: object, text: object, *, author: str, source: object, status: str = "active",
            tainted: str | None = None) -> MemoryEntry:
        if status not in STATUSES:
            raise EngramError(f"status must be one of {', '.join(STATUSES)}")
        stamp = now()
        entry = MemoryEntry("m" + secrets.token_hex(4), check_kind(kind), check_text(text), author,
                            check_text(source, "source", MAX_SOURCE_CHARS), stamp, status, tainted, None, stamp)
        self.put([entry])
        return entry

    def put(self, entries: list[MemoryEntry]) -> None:
        """Insert or replace ``entries`` in one transaction (all or none)."""
        with self._connect() as conn, transaction(conn):
            conn.executemany("INSERT OR REPLACE INTO entries (id, kind, text, author, source, created, status, tainted, "
                             "decided_by, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             [(e.id, e.kind, e.text, e.author, e.source, e.created, e.status, e.tainted, e.decided_by,
                               e.updated) for e in entries])

    def entries(self, status: str | None = None) -> list[MemoryEntry]:
        """Entries, oldest first; only those with ``status`` when given."""
        if status is not None and status not in STATUSES:
            raise EngramError(f"status must be one of {', '.join(STATUSES)}")
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM entries" + (" WHERE status = ?" if status else "") +
                                " ORDER BY created, rowid", (status,) if status else ()).fetchall()
        return [_entry(r) for r in rows]

    def get(self, entry_id: object) -> MemoryEntry:
        if not isinstance(entry_id, str) or not entry_id.strip():
            raise EngramError("an entry id is required (`engram memory list VAULT` shows them)")
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM entries WHERE id = ?", (entry_id.strip(),)).fetchone()
        if row is None:
            raise EngramError(f"no memory entry {entry_id.strip()!r}; `engram memory list VAULT` shows them")
        return _entry(row)

    def _update(self, entry: MemoryEntry, **changes: Any) -> MemoryEntry:
        changed = MemoryEntry(**(entry.to_json() | changes | {"updated": now()}))
        with self._connect() as conn, transaction(conn):
            current = conn.execute("SELECT updated FROM entries WHERE id = ?", (entry.id,)).fetchone()
            if current is None or current["updated"] != entry.updated:
                raise EngramError(f"memory entry {entry.id} changed meanwhile; list it again and retry")
            conn.execute("UPDATE entries SET text = ?, kind = ?, status = ?, decided_by = ?, updated = ? WHERE id = ?",
                         (changed.text, changed.kind, changed.status, changed.decided_by, changed.updated, entry.id))
        return changed

    def approve(self, entry_id: object, *, by: str, tainted_ok: bool = False) -> MemoryEntry:
        """A person makes a pending entry active. A tainted one needs ``tainted_ok``: the person has read it."""
        entry = self.get(entry_id)
        if entry.status != "pending":
            raise EngramError(f"memory entry {entry.id} is {entry.status}, not pending")
        if entry.tainted and not tainted_ok:
            raise EngramError(f"memory entry {entry.id} was written after reading untrusted content ({entry.tainted}); "
                              "read it, then approve it with --tainted")
        return self._update(entry, status="active", decided_by=by)

    def retire(self, entry_id: object, *, by: str) -> MemoryEntry:
        entry = self.get(entry_id)
        if entry.status == "retired":
            raise EngramError(f"memory entry {entry.id} is already retired")
        return self._update(entry, status="retired", decided_by=by)

    def restore(self, decided: MemoryEntry, status: str, *, by: str) -> MemoryEntry:
        """Undo a decision: the entry ``decided`` returned gets back ``status``, unless it changed since."""
        return self._update(decided, status=status, decided_by=by)

    def edit(self, entry_id: object, *, by: str, text: object = None, kind: object = None) -> MemoryEntry:
        """A person rewrites an entry's text or kind; it keeps its author, source and status."""
        entry = self.get(entry_id)
        if text is None and kind is None:
            raise EngramError("nothing to change: give a new text, a new kind, or both")
        return self._update(entry, text=entry.text if text is None else check_text(text),
                            kind=entry.kind if kind is None else check_kind(kind), decided_by=by)
