"""Pending proposals: in ``ask`` mode an agent's write waits here, with its diff, for a person's decision."""

from __future__ import annotations

import datetime as dt
import json
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram_lab.agent.checkpoints import Checkpoint
from engram_lab.agent.ledger import open_agent_db
from engram_lab.agent.writes import WriteIntent, perform, preview_diff
from engram_lab.errors import EngramError
from engram_lab.state.db import transaction


@dataclass(frozen=True)
class Proposal:
    id: str
    intent: WriteIntent
    actor: str
    created_at: str
    diff: str
    status: str  # pending | approved | rejected
    decided_by: str | None = None
    checkpoint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.intent.kind, "path": self.intent.path, "why": self.intent.why,
                "actor": self.actor, "created_at": self.created_at, "status": self.status, "diff": self.diff,
                "decided_by": self.decided_by, "checkpoint": self.checkpoint}


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _from_row(row: sqlite3.Row) -> Proposal:
    intent = WriteIntent(row["kind"], row["path"], json.loads(row["payload"]), row["why"])
    return Proposal(row["id"], intent, row["actor"], row["created_at"], row["diff"], row["status"], row["decided_by"],
                    row["checkpoint"])


def propose(vault: Path, intent: WriteIntent, *, actor: str) -> Proposal:
    """Record ``intent`` as pending, with the diff it would make now (checked as if applied: a bad write fails here)."""
    proposal = Proposal("p" + secrets.token_hex(5), intent, actor, _now(), preview_diff(vault, intent), "pending")
    conn = open_agent_db(vault)
    try:
        with transaction(conn):
            conn.execute("INSERT INTO proposals (id, kind, path, payload, why, actor, created_at, diff, status) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
                         (proposal.id, intent.kind, intent.path, json.dumps(intent.payload), intent.why, actor,
                          proposal.created_at, proposal.diff))
    finally:
        conn.close()
    return proposal


def list_proposals(vault: Path, status: str | None = "pending") -> list[Proposal]:
    conn = open_agent_db(vault)
    try:
        rows = conn.execute("SELECT * FROM proposals" + (" WHERE status = ?" if status else "") + " ORDER BY created_at, rowid",
                            (status,) if status else ()).fetchall()
    finally:
        conn.close()
    return [_from_row(r) for r in rows]


def get_proposal(vault: Path, proposal_id: str) -> Proposal:
    conn = open_agent_db(vault)
    try:
        row = conn.execute("SELECT * FROM proposals WHERE id = ?", (proposal_id.strip(),)).fetchone()
    finally:
        conn.close()
    if row is None:
        raise EngramError(f"no proposal {proposal_id!r}; `engram proposals VAULT` lists those pending")
    return _from_row(row)


def _decide(vault: Path, proposal_id: str, status: str, by: str, checkpoint: str | None) -> None:
    conn = open_agent_db(vault)
    try:
        with transaction(conn):
            conn.execute("UPDATE proposals SET status = ?, decided_at = ?, decided_by = ?, checkpoint = ? WHERE id = ?",
                         (status, _now(), by, checkpoint, proposal_id))
    finally:
        conn.close()


def _pending(vault: Path, proposal_id: str) -> Proposal:
    proposal = get_proposal(vault, proposal_id)
    if proposal.status != "pending":
        raise EngramError(f"proposal {proposal.id} is already {proposal.status}")
    return proposal


def approve(vault: Path, proposal_id: str, *, by: str) -> tuple[Proposal, Checkpoint, str]:
    """A person approves: the write is applied now (checked again: a note edited meanwhile fails, nothing written)."""
    proposal = _pending(vault, proposal_id)
    checkpoint, path = perform(vault, proposal.intent, actor=f"{proposal.actor} (approved by {by})", proposal=proposal.id)
    _decide(vault, proposal.id, "approved", by, checkpoint.id)
    return proposal, checkpoint, path


def reject(vault: Path, proposal_id: str, *, by: str) -> Proposal:
    proposal = _pending(vault, proposal_id)
    _decide(vault, proposal.id, "rejected", by, None)
    return proposal
