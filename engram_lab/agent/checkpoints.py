"""Checkpoints: every applied write first records the previous bytes of each file it touches.

Order of an applied write, so a process killed at any point leaves each file old or new and the record
consistent: (1) the previous bytes go to ``.engram/checkpoints/<sha256>`` (content-addressed, atomic);
(2) a ledger row in state ``pending`` names every file with the hashes before and after; (3) each file is
replaced atomically (temporary file + rename); (4) the row becomes ``done``. :func:`recover` settles a
``pending`` row left by a killed process from what is on disk: no file written, the row goes; else ``done``.
A rewind restores the recorded bytes and is itself a checkpoint, so it can be rewound in turn.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram_lab.agent.ledger import open_agent_db
from engram_lab.agent.note_paths import write_target
from engram_lab.config import read_config
from engram_lab.errors import DocumentError, EngramError
from engram_lab.state.db import engram_dir, transaction
from engram_lab.state.lock import vault_write_lock
from engram_lab.vault.read import content_hash, read_note_bytes
from engram_lab.vault.write import write_bytes_atomic

BLOBS_DIR = "checkpoints"


class StaleEditError(EngramError):
    """A file changed since the edit was computed: nothing is written over it blindly."""


@dataclass(frozen=True)
class FileChange:
    """One file of a write: its bytes before (None: absent) and after (None: deleted)."""

    path: str
    before: bytes | None
    after: bytes | None


@dataclass(frozen=True)
class Checkpoint:
    id: str
    created_at: str
    actor: str
    why: str
    proposal: str | None
    rewinds: str | None
    state: str
    files: list[dict[str, Any]]  # path, before (sha256 or None), after (sha256 or None)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "created_at": self.created_at, "actor": self.actor, "why": self.why,
                "proposal": self.proposal, "rewinds": self.rewinds, "paths": [f["path"] for f in self.files]}


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def current_bytes(vault: Path, rel_path: str) -> bytes | None:
    """A note's bytes as on disk now (None when absent), read without following a link."""
    if not (vault / rel_path).exists() and not (vault / rel_path).is_symlink():
        return None
    try:
        return read_note_bytes(vault, rel_path, read_config(vault).max_note_bytes).data
    except DocumentError as exc:
        raise EngramError(str(exc)) from None


def _hash(data: bytes | None) -> str | None:
    return None if data is None else content_hash(data)


def _blob_path(vault: Path, digest: str) -> Path:
    return engram_dir(vault) / BLOBS_DIR / digest


def _store_blob(vault: Path, data: bytes) -> str:
    digest = content_hash(data)
    path = _blob_path(vault, digest)
    if not path.exists():
        write_bytes_atomic(path, data)
    return digest


def _blob(vault: Path, digest: str) -> bytes:
    try:
        return _blob_path(vault, digest).read_bytes()
    except OSError:
        raise EngramError(f"checkpoint content {digest[:12]} is missing from .engram/{BLOBS_DIR}/; cannot restore it") from None


def _row(row: sqlite3.Row) -> Checkpoint:
    return Checkpoint(row["id"], row["created_at"], row["actor"], row["why"], row["proposal"], row["rewinds"],
                      row["state"], json.loads(row["files"]))


def _ledger(vault: Path) -> closing[sqlite3.Connection]:
    return closing(open_agent_db(vault))


def _write(vault: Path, path: str, data: bytes | None) -> None:
    target = write_target(vault, path)
    if data is None:
        target.unlink(missing_ok=True)
    else:
        write_bytes_atomic(target, data)


def apply_changes(vault: Path, changes: Sequence[FileChange], *, actor: str, why: str, proposal: str | None = None,
                  rewinds: str | None = None, before_write: Callable[[], None] | None = None) -> Checkpoint:
    """Write ``changes`` under the vault's write lock, each file checked first to still hold its ``before``
    bytes (StaleEditError otherwise, nothing written), recording a checkpoint that can undo them."""
    with vault_write_lock(vault):
        recover(vault)
        for change in changes:
            if _hash(current_bytes(vault, change.path)) != _hash(change.before):
                raise StaleEditError(f"{change.path} changed since this edit was prepared (edited meanwhile?); "
                                     "nothing was written: read the note again and redo the edit")
        files = [{"path": c.path, "before": _store_blob(vault, c.before) if c.before is not None else None,
                  "after": _hash(c.after)} for c in changes]
        checkpoint = Checkpoint("c" + secrets.token_hex(6), _now(), actor, why, proposal, rewinds, "pending", files)
        with _ledger(vault) as conn, transaction(conn):
            conn.execute("INSERT INTO checkpoints (id, created_at, actor, why, proposal, rewinds, state, files) "
                         "VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)",
                         (checkpoint.id, checkpoint.created_at, actor, why, proposal, rewinds, json.dumps(files)))
        if before_write is not None:
            before_write()
        for change in changes:
            _write(vault, change.path, change.after)
        with _ledger(vault) as conn, transaction(conn):
            conn.execute("UPDATE checkpoints SET state = 'done' WHERE id = ?", (checkpoint.id,))
    return Checkpoint(**{**checkpoint.__dict__, "state": "done"})


def recover(vault: Path) -> list[str]:
    """Settle checkpoints a killed process left ``pending``; returns their ids. Call under the write lock."""
    settled = []
    with _ledger(vault) as conn:
        pending = [_row(r) for r in conn.execute("SELECT * FROM checkpoints WHERE state = 'pending'")]
        for checkpoint in pending:
            for entry in checkpoint.files:  # temporary files of the killed write (hidden, so never indexed)
                folder = (vault / entry["path"]).parent
                for tmp in folder.glob(f".{Path(entry['path']).name}.*.tmp") if folder.is_dir() else ():
                    tmp.unlink(missing_ok=True)
            written = any(_hash(current_bytes(vault, f["path"])) != f["before"] for f in checkpoint.files)
            with transaction(conn):
                if written:
                    conn.execute("UPDATE checkpoints SET state = 'done' WHERE id = ?", (checkpoint.id,))
                else:
                    conn.execute("DELETE FROM checkpoints WHERE id = ?", (checkpoint.id,))
            settled.append(checkpoint.id)
    return settled


def list_checkpoints(vault: Path, limit: int = 50) -> list[Checkpoint]:
    """Applied writes, newest first."""
    with _ledger(vault) as conn:
        rows = conn.execute("SELECT * FROM checkpoints WHERE state = 'done' ORDER BY created_at DESC, rowid DESC LIMIT ?",
                            (limit,)).fetchall()
    return [_row(r) for r in rows]


def get_checkpoint(vault: Path, checkpoint_id: str) -> Checkpoint:
    with _ledger(vault) as conn:
        row = conn.execute("SELECT * FROM checkpoints WHERE id = ? AND state = 'done'", (checkpoint_id.strip(),)).fetchone()
    if row is None:
        raise EngramError(f"no checkpoint {checkpoint_id!r}; `engram checkpoints VAULT` lists them")
    return _row(row)


def rewind_changes(vault: Path, checkpoint: Checkpoint, *, force: bool = False) -> list[FileChange]:
    """What rewinding ``checkpoint`` writes; StaleEditError when a file changed after it, unless ``force``."""
    changes = []
    for entry in checkpoint.files:
        now = current_bytes(vault, entry["path"])
        if _hash(now) != entry["after"] and not force:
            raise StaleEditError(f"{entry['path']} changed after checkpoint {checkpoint.id} (a later edit); "
                                 "rewinding would undo that too: rewind the later checkpoint first, or force it")
        before = _blob(vault, entry["before"]) if entry["before"] is not None else None
        changes.append(FileChange(entry["path"], now, before))
    return changes


def rewind(vault: Path, checkpoint_id: str, *, actor: str, force: bool = False, proposal: str | None = None) -> Checkpoint:
    """Put back the bytes every file of the checkpoint had before it; refuses when a file changed since
    (a person's later edit) unless ``force``. The rewind is a checkpoint of its own, so it can be rewound."""
    checkpoint = get_checkpoint(vault, checkpoint_id)
    return apply_changes(vault, rewind_changes(vault, checkpoint, force=force), actor=actor,
                         why=f"rewind {checkpoint.id}: {checkpoint.why}", proposal=proposal, rewinds=checkpoint.id)

def record_created(vault: Path, path: str, *, actor: str, why: str, proposal: str | None = None) -> Checkpoint:
    """A checkpoint for a note another module has just created (``learn`` writes its own file): rewinding it
    deletes the note, unless a person edited it since."""
    after = current_bytes(vault, path)
    files = [{"path": path, "before": None, "after": _hash(after)}]
    checkpoint = Checkpoint("c" + secrets.token_hex(6), _now(), actor, why, proposal, None, "done", files)
    with _ledger(vault) as conn, transaction(conn):
        conn.execute("INSERT INTO checkpoints (id, created_at, actor, why, proposal, rewinds, state, files) "
                     "VALUES (?, ?, ?, ?, ?, NULL, 'done', ?)", (checkpoint.id, checkpoint.created_at, actor, why, proposal, json.dumps(files)))
    return checkpoint
