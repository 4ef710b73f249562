"""The document state table: one row per note, surviving renames, telling what was indexed."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from engram_lab.graph.vocabulary import document_iri
from engram_lab.vault.sections import Section
from engram_lab.state.db import bump_counter, read_counter

SECTIONS_GENERATION = "sections_generation"

DocumentStatus = Literal["indexed", "stale", "failed", "pending-review"]
STATUSES: tuple[DocumentStatus, ...] = ("indexed", "stale", "failed", "pending-review")


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")


class DocumentRow(NamedTuple):
    """One note's state. A named tuple: an index run reads all 10,000 rows of the benchmark twice, and a frozen
    dataclass took 5 us a row to make."""

    doc_id: str
    path: str
    iri: str
    kind: str
    title: str | None
    content_hash: str | None  # of the content last indexed successfully
    size: int | None
    mtime_ns: int | None
    status: DocumentStatus
    extractor: str | None
    extractor_version: str | None
    error: str | None
    indexed_at: str | None
    updated_at: str


@dataclass(frozen=True)
class StoredSection:
    doc_id: str
    ordinal: int
    cell_id: str | None
    heading: str | None
    heading_path: tuple[str, ...]
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class IndexedContent:
    """What a successful parse of one note records."""

    kind: str
    title: str
    content_hash: str
    size: int
    mtime_ns: int
    status: DocumentStatus
    extractor: str
    extractor_version: str


_COLUMNS = ", ".join(DocumentRow._fields)


def _row(r: sqlite3.Row) -> DocumentRow:
    return DocumentRow(*r)  # selected in field order (see _COLUMNS): positional is ~5x faster on large vaults


def _plain(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor giving plain tuples (no ``sqlite3.Row`` made per row): for the reads of every row."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


def read_rows(conn: sqlite3.Connection, clause: str = "", parameters: Iterable[object] = ()) -> list[DocumentRow]:
    """Document rows, whole: ``clause`` filters or orders them (``WHERE doc_id IN (?, ?)``, ``ORDER BY path``)."""
    return [DocumentRow._make(r) for r in _plain(conn).execute(f"SELECT {_COLUMNS} FROM documents {clause}", tuple(parameters))]


def _section(r: sqlite3.Row) -> StoredSection:
    return StoredSection(
        r["doc_id"], r["ordinal"], r["cell_id"], r["heading"], tuple(json.loads(r["heading_path"])), r["start"], r["end"], r["text"]
    )


class DocumentTable:
    """Reads and writes of document state; callers wrap writes in one transaction per document."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def all(self) -> list[DocumentRow]:
        return read_rows(self.conn, "ORDER BY path")

    def by_path(self, path: str) -> DocumentRow | None:
        r = self.conn.execute(f"SELECT {_COLUMNS} FROM documents WHERE path = ?", (path,)).fetchone()
        return _row(r) if r else None

    def by_id(self, doc_id: str) -> DocumentRow | None:
        r = self.conn.execute(f"SELECT {_COLUMNS} FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return _row(r) if r else None

    def counts(self) -> dict[str, int]:
        counts = {status: 0 for status in STATUSES}
        for status, n in self.conn.execute("SELECT status, COUNT(*) FROM documents GROUP BY status"):
            counts[status] = n
        return counts

    def new_id(self, path: str) -> str:
        """Derived from the path at first sight, so a fresh index of the same vault yields the same ids."""
        salt = 0
        while True:
            seed = path if salt == 0 else f"{path}\x00{salt}"
            doc_id = hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]
            if self.by_id(doc_id) is None:
                return doc_id
            salt += 1

    def _insert(self, path: str, kind: str, status: DocumentStatus, error: str | None) -> str:
        doc_id = self.new_id(path)
        self.conn.execute(
            "INSERT INTO documents (doc_id, path, iri, kind, status, error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (doc_id, path, document_iri(doc_id), kind, status, error, now_iso()),
        )
        return doc_id

    def ensure(self, path: str, kind: str) -> str:
        """The id of the document at ``path``, creating a ``stale`` row for a note seen for the first time."""
        existing = self.by_path(path)
        return existing.doc_id if existing else self._insert(path, kind, "stale", None)

    def record_indexed(self, path: str, content: IndexedContent, sections: list[Section], error: str | None = None) -> str:
        """Store a successful parse and replace the note's sections; returns the document id.

        ``error`` records a partial extraction (some segments failed); such a note is retried next run.
        """
        doc_id = self.ensure(path, content.kind)
        stamp = now_iso()
        self.conn.execute(
            """UPDATE documents SET kind = ?, title = ?, content_hash = ?, size = ?, mtime_ns = ?, status = ?,
               extractor = ?, extractor_version = ?, error = ?, indexed_at = ?, updated_at = ? WHERE doc_id = ?""",
            (
                content.kind,
                content.title,
                content.content_hash,
                content.size,
                content.mtime_ns,
                content.status,
                content.extractor,
                content.extractor_version,
                error,
                stamp,
                stamp,
                doc_id,
            ),
        )
        self.conn.execute("DELETE FROM sections WHERE doc_id = ?", (doc_id,))
        self.conn.executemany(
            'INSERT INTO sections (doc_id, ordinal, cell_id, heading, heading_path, start, "end", text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            [
                (doc_id, s.ordinal, s.cell_id, s.heading, json.dumps(list(s.heading_path)), s.span.start, s.span.end, s.text)
                for s in sections
            ],
        )
        self._bump_generation()
        return doc_id

    def record_failed(self, path: str, kind: str, reason: str) -> str:
        """Mark a note failed; what was indexed before (hash, sections) stays as it was."""
        existing = self.by_path(path)
        if existing is None:
            return self._insert(path, kind, "failed", reason)
        self.conn.execute(
            "UPDATE documents SET status = 'failed', error = ?, updated_at = ? WHERE doc_id = ?",
            (reason, now_iso(), existing.doc_id),
        )
        return existing.doc_id

    def mark_stale(self, doc_ids: list[str]) -> None:
        self.conn.executemany(
            "UPDATE documents SET status = 'stale', updated_at = ? WHERE doc_id = ? AND status != 'failed'",
            [(now_iso(), doc_id) for doc_id in doc_ids],
        )

    def move(self, doc_id: str, new_path: str) -> None:
        """A rename keeps the document's identity; only its path changes."""
        self.conn.execute("UPDATE documents SET path = ?, updated_at = ? WHERE doc_id = ?", (new_path, now_iso(), doc_id))
        self._bump_generation()

    def delete(self, doc_id: str) -> None:
        self.conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
        self._bump_generation()

    def generation(self) -> int:
        """A counter bumped with every change to sections, so derived indexes can tell they are behind."""
        return read_counter(self.conn, SECTIONS_GENERATION)

    def _bump_generation(self) -> None:
        bump_counter(self.conn, SECTIONS_GENERATION)

    def sections(self) -> list[StoredSection]:
        return [_section(r) for r in self.conn.execute("SELECT * FROM sections ORDER BY doc_id, ordinal")]

    def sections_of(self, doc_ids: Iterable[str]) -> list[StoredSection]:
        """The sections of these documents only, in the order ``sections`` gives (an index patch reads no more)."""
        wanted = sorted(set(doc_ids))
        out: list[StoredSection] = []
        for start in range(0, len(wanted), 500):  # within SQLite's limit on bound parameters
            part = wanted[start : start + 500]
            marks = ", ".join("?" * len(part))
            out.extend(_section(r) for r in self.conn.execute(
                f"SELECT * FROM sections WHERE doc_id IN ({marks}) ORDER BY doc_id, ordinal", part))
        return out

    def section(self, doc_id: str, ordinal: int) -> StoredSection | None:
        r = self.conn.execute("SELECT * FROM sections WHERE doc_id = ? AND ordinal = ?", (doc_id, ordinal)).fetchone()
        return _section(r) if r else None
