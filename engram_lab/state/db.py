"""The SQLite ledger: one file, WAL mode, so kernels, the CLI and the server can share it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from engram_lab.errors import VaultError

ENGRAM_DIR = ".engram"
LEDGER_FILE = "ledger.sqlite"

# Each entry upgrades the schema by one version; never edit a released entry, append a new one.
_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE documents (
        doc_id TEXT PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        iri TEXT NOT NULL,
        kind TEXT NOT NULL,
        title TEXT,
        content_hash TEXT,
        size INTEGER,
        mtime_ns INTEGER,
        status TEXT NOT NULL CHECK (status IN ('indexed', 'stale', 'failed', 'pending-review')),
        extractor TEXT,
        extractor_version TEXT,
        error TEXT,
        indexed_at TEXT,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE sections (
        doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        cell_id TEXT,
        heading TEXT,
        heading_path TEXT NOT NULL,
        start INTEGER NOT NULL,
        "end" INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (doc_id, ordinal)
    );
    CREATE TABLE decisions (
        decision_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        object TEXT NOT NULL,
        verdict TEXT NOT NULL,
        actor TEXT NOT NULL,
        made_at TEXT NOT NULL,
        evidence TEXT NOT NULL,
        retracted_at TEXT
    );
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    """
    CREATE INDEX decisions_by_pair ON decisions(kind, subject, object);
    CREATE TABLE resolution_queue (
        a TEXT NOT NULL,
        b TEXT NOT NULL,
        score REAL NOT NULL,
        rule TEXT NOT NULL,
        evidence TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (a, b)
    );
    CREATE TABLE supersession_candidates (
        earlier TEXT NOT NULL,
        later TEXT NOT NULL,
        earlier_doc TEXT NOT NULL,
        later_doc TEXT NOT NULL,
        later_date TEXT NOT NULL,
        evidence TEXT NOT NULL,
        PRIMARY KEY (earlier, later)
    );
    """,
    """
    CREATE TABLE analysed_entities (
        entity_iri TEXT PRIMARY KEY,
        digest TEXT NOT NULL
    );
    """,
    """
    CREATE INDEX resolution_queue_by_b ON resolution_queue(b);
    CREATE INDEX decisions_by_object ON decisions(kind, object);
    """,
    """
    INSERT OR IGNORE INTO meta (key, value) VALUES ('ledger_id', lower(hex(randomblob(16))));
    """,
    # Every change to a document row is logged in its own transaction, by whichever process or version makes it, so a
    # process that read every row once re-reads only the rows logged since (``document_rows``).
    """
    CREATE TABLE document_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL);
    CREATE TRIGGER document_log_insert AFTER INSERT ON documents BEGIN
        INSERT INTO document_log (doc_id) VALUES (NEW.doc_id);
    END;
    CREATE TRIGGER document_log_update AFTER UPDATE ON documents BEGIN
        INSERT INTO document_log (doc_id) VALUES (NEW.doc_id);
        INSERT INTO document_log (doc_id) SELECT OLD.doc_id WHERE OLD.doc_id IS NOT NEW.doc_id;
    END;
    CREATE TRIGGER document_log_delete AFTER DELETE ON documents BEGIN
        INSERT INTO document_log (doc_id) VALUES (OLD.doc_id);
    END;
    """,
)


OVERLAY_GENERATION = "overlay_generation"  # moves with every judgment, verdict or supersession change
ANALYSED_GENERATION = "analysed_generation"  # the sections generation the last analysis pass saw
DIGESTS_GENERATION = "digests_generation"  # moves whenever an analysis records the entity digests it saw
LEDGER_ID = "ledger_id"  # random, made with the ledger: a rebuilt .engram/ is another ledger, whatever its counters say
DOCUMENT_LOG_PRUNED = "document_log_pruned"  # the highest ``document_log`` seq deleted: a reader kept from before re-reads all


def bump_counter(conn: sqlite3.Connection, key: str) -> None:
    """Advance a meta counter inside the caller's transaction (readers compare it to know what moved)."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        (key,),
    )


def set_counter(conn: sqlite3.Connection, key: str, value: int) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, str(value)))


def read_counter(conn: sqlite3.Connection, key: str) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


def read_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def engram_dir(vault: Path) -> Path:
    return vault / ENGRAM_DIR


def open_ledger(vault: Path) -> sqlite3.Connection:
    """Open (creating and migrating as needed) the ledger of ``vault``.

    Autocommit mode: callers group writes with ``with transaction(conn):``.
    """
    directory = engram_dir(vault)
    if directory.is_symlink():  # the ledger and store would be written outside the vault
        raise VaultError(f"{directory}: is a symlink; not followed (replace it with a folder, or remove it to rebuild)")
    try:
        directory.mkdir(exist_ok=True)
    except OSError as exc:
        raise VaultError(f"{vault}: cannot create {ENGRAM_DIR}/: {exc.strerror}") from None
    try:
        conn = sqlite3.connect(directory / LEDGER_FILE, timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        _migrate(conn)
    except sqlite3.DatabaseError as exc:
        raise VaultError(f"{directory / LEDGER_FILE}: cannot open the ledger: {exc}") from None
    conn.row_factory = sqlite3.Row
    return conn


class transaction:
    """``with transaction(conn):`` runs the block as one IMMEDIATE transaction (one writer at a time)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")



def iri_table(conn: sqlite3.Connection, iris: set[str]) -> str:
    """A temporary table holding ``iris`` (one column, ``iri``), for ``WHERE x IN (SELECT iri FROM ...)``: a focused
    analysis reads the queue rows and decisions touching a few hundred entities of a ledger holding hundreds of
    thousands, through the indexes on both ends of a pair."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS focus_iris (iri TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM temp.focus_iris")
    conn.executemany("INSERT OR IGNORE INTO temp.focus_iris VALUES (?)", [(iri,) for iri in iris])
    return "temp.focus_iris"


def ledger_connection(vault: Path) -> closing[sqlite3.Connection]:
    """The vault's ledger for one ``with`` block, closed whatever happens in it."""
    return closing(open_ledger(vault))

def _migrate(conn: sqlite3.Connection) -> None:
    """Bring the schema up to date. The common case (already current) reads one pragma and takes no lock."""
    if conn.execute("PRAGMA user_version").fetchone()[0] == len(_MIGRATIONS):
        return
    with transaction(conn):
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > len(_MIGRATIONS):
            raise VaultError(f"the ledger has schema version {version}, newer than this engram-lab knows; upgrade engram-lab")
        for number in range(version, len(_MIGRATIONS)):
            for statement in _statements(_MIGRATIONS[number]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")


def _statements(script: str) -> list[str]:
    """The SQL statements of ``script``, a trigger's body kept whole (``executescript`` would commit the migration's
    transaction first)."""
    out, pending = [], ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\n;"):
                out.append(pending)
            pending = ""
    if pending.strip(" \t\n;"):
        raise ValueError(f"an incomplete SQL statement in a migration: {pending.strip()[:80]}")
    return out
