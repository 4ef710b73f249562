"""``.engram/agent.sqlite``: an agent's pending proposals and the checkpoints of applied writes.

Kept apart from the document ledger so the agent loop never migrates the index's schema; like it,
WAL mode and one IMMEDIATE transaction per change (``engram_lab.state.db.transaction``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engram_lab.errors import VaultError
from engram_lab.state.db import engram_dir

AGENT_DB = "agent.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS proposals (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, path TEXT NOT NULL, payload TEXT NOT NULL, why TEXT NOT NULL,
    actor TEXT NOT NULL, created_at TEXT NOT NULL, diff TEXT NOT NULL, status TEXT NOT NULL,
    decided_at TEXT, decided_by TEXT, checkpoint TEXT, problem TEXT
);
CREATE TABLE IF NOT EXISTS checkpoints (
    id TEXT PRIMARY KEY, created_at TEXT NOT NULL, actor TEXT NOT NULL, why TEXT NOT NULL,
    proposal TEXT, rewinds TEXT, state TEXT NOT NULL, files TEXT NOT NULL
);
"""


def open_agent_db(vault: Path) -> sqlite3.Connection:
    """The agent ledger of ``vault`` (created on first use); autocommit, rows by name."""
    directory = engram_dir(vault)
    if directory.is_symlink():
        raise VaultError(f"{directory}: is a symlink; not followed (replace it with a folder, or remove it to rebuild)")
    try:
        directory.mkdir(exist_ok=True)
        conn = sqlite3.connect(directory / AGENT_DB, timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(_SCHEMA)
    except (OSError, sqlite3.DatabaseError) as exc:
        raise VaultError(f"{directory / AGENT_DB}: cannot open the agent ledger: {exc}") from None
    conn.row_factory = sqlite3.Row
    return conn
