"""The decision ledger: judgments and verdicts, the only state that notes cannot rebuild.

Decisions are retracted, never deleted, so any earlier state can be restored and
the history shows who decided what, when, and on which evidence. The one exception
is an automatic judgment whose evidence went away: the notes made it and will make
it again, so it is withdrawn (deleted), and its id, derived from what it judges,
comes back with it; a person's retraction of it stays. Export and import move
decisions between machines (or across a deleted ``.engram/``) as plain JSON.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import uuid
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from engram_lab.errors import DecisionFileError, EngramError
from engram_lab.last_few import LastFew
from engram_lab.state.db import LEDGER_ID, OVERLAY_GENERATION, bump_counter, iri_table, read_counter, read_meta, transaction
from engram_lab.state.documents import now_iso

K = TypeVar("K")
EXPORT_FORMAT = "engram-decisions"
EXPORT_VERSION = 1
VERDICTS: dict[str, frozenset[str]] = {
    "resolution": frozenset({"same", "broader", "narrower", "related", "distinct"}),
    "supersession": frozenset({"accept", "reject"}),
}
_ACTOR = re.compile(r"^(auto|user|llm:\S+)$")

# Each ledger's decisions without evidence, as last read in this process, with the overlay generation they were read
# at (every write to the decisions advances it): an edit's analysis and the next search's walk both read the 47,000
# judgments of the 10,000-note benchmark, 0.15 s a time, and they rarely moved in between.
KEPT_LEDGERS = 4
_VERDICTS: LastFew[str, tuple[int, tuple[Decision, ...]]] = LastFew(KEPT_LEDGERS)


@dataclass(frozen=True)
class Decision:
    decision_id: str
    kind: str
    subject: str
    object: str
    verdict: str
    actor: str
    made_at: str
    evidence: dict[str, Any]
    retracted_at: str | None = None

    @property
    def active(self) -> bool:
        return self.retracted_at is None


def _validate(kind: str, verdict: str, actor: str) -> None:
    if kind not in VERDICTS:
        raise EngramError(f"unknown decision kind {kind!r}; known: {', '.join(sorted(VERDICTS))}")
    if verdict not in VERDICTS[kind]:
        raise EngramError(f"{verdict!r} is no {kind} verdict; use one of: {', '.join(sorted(VERDICTS[kind]))}")
    if not _ACTOR.match(actor):
        raise EngramError(f"actor must be 'auto', 'user' or 'llm:<model>', got {actor!r}")


def machine_decision_id(kind: str, subject: str, obj: str, verdict: str, actor: str) -> str:
    """The id of an automatic judgment: the same pair, verdict and actor always get the same id, on any
    machine and after any rebuild, so a person's retraction of it (exported and imported) still finds it."""
    digest = hashlib.sha256("\x00".join((kind, subject, obj, verdict, actor)).encode("utf-8")).hexdigest()[:16]
    return f"d-{actor}-{digest}"


def _decision(r: sqlite3.Row) -> Decision:
    return Decision(r["decision_id"], r["kind"], r["subject"], r["object"], r["verdict"], r["actor"], r["made_at"],
                    json.loads(r["evidence"]), r["retracted_at"])


# A decision's columns but its evidence, in ``Decision``'s order: readers of verdicts alone (the walk's overlay, an
# analysis) read no evidence. Fetching it only to drop it was half of reading the 94,000 judgments of the
# 100,000-note benchmark (0.55 s).
_LEAN = "decision_id, kind, subject, object, verdict, actor, made_at, retracted_at"


def _without_evidence(conn: sqlite3.Connection, sql: str, args: tuple[object, ...]) -> list[Decision]:
    """The decisions ``sql`` selects (``_LEAN`` first), evidence left empty; by position, not by column name."""
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples
    return [Decision(r[0], r[1], r[2], r[3], r[4], r[5], r[6], {}, r[7]) for r in cursor.execute(sql, args)]


class DecisionLedger:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def record(self, kind: str, subject: str, obj: str, verdict: str, actor: str, evidence: dict[str, Any] | None = None) -> Decision:
        with transaction(self.conn):
            return self.record_within(kind, subject, obj, verdict, actor, evidence)

    def record_within(self, kind: str, subject: str, obj: str, verdict: str, actor: str, evidence: dict[str, Any] | None = None,
                      decision_id: str | None = None) -> Decision:
        """``record`` inside the caller's transaction; ``decision_id`` for a machine judgment's derived id."""
        _validate(kind, verdict, actor)
        if subject == obj:
            raise EngramError(f"a {kind} judgment needs two different things, got {subject!r} twice")
        decision_id = decision_id or f"d-{uuid.uuid4().hex[:16]}"
        decision = Decision(decision_id, kind, subject, obj, verdict, actor, now_iso(), dict(evidence or {}))
        self._insert(decision)
        bump_counter(self.conn, OVERLAY_GENERATION)
        return decision

    def _insert(self, d: Decision) -> None:
        self.conn.execute(
            "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (d.decision_id, d.kind, d.subject, d.object, d.verdict, d.actor, d.made_at, json.dumps(d.evidence, sort_keys=True), d.retracted_at),
        )

    def retract(self, decision_id: str) -> Decision:
        with transaction(self.conn):
            return self.retract_within(decision_id)

    def retract_within(self, decision_id: str) -> Decision:
        """``retract`` inside the caller's transaction."""
        row = self.get(decision_id)
        if row is None:
            raise EngramError(f"no decision with id {decision_id!r}")
        if row.retracted_at is not None:
            raise EngramError(f"decision {decision_id} was already retracted at {row.retracted_at}")
        self.conn.execute("UPDATE decisions SET retracted_at = ? WHERE decision_id = ?", (now_iso(), decision_id))
        bump_counter(self.conn, OVERLAY_GENERATION)
        return self.get(decision_id)  # type: ignore[return-value]

    def retract_batch(self, batch_id: str) -> list[Decision]:
        """Retract, in one transaction, every decision in force that was recorded in batch ``batch_id``
        (``evidence["batch"]``: a bulk dismissal), so one undo restores the state before the whole batch."""
        with transaction(self.conn):
            rows = self.conn.execute("SELECT decision_id, retracted_at FROM decisions WHERE json_extract(evidence, '$.batch') = ?",
                                     (batch_id,)).fetchall()
            if not rows:
                raise EngramError(f"no decisions in batch {batch_id!r}")
            active = [r["decision_id"] for r in rows if r["retracted_at"] is None]
            if not active:
                raise EngramError(f"batch {batch_id} was already retracted ({len(rows)} decisions)")
            return [self.retract_within(decision_id) for decision_id in active]

    def withdraw_within(self, decision_id: str) -> None:
        """Delete an active automatic judgment the evidence no longer carries (see the module docstring)."""
        row = self.get(decision_id)
        if row is None or row.actor != "auto" or not row.active:
            raise EngramError(f"decision {decision_id} is no active automatic judgment; retract it instead")
        self.conn.execute("DELETE FROM decisions WHERE decision_id = ?", (decision_id,))
        bump_counter(self.conn, OVERLAY_GENERATION)

    def get(self, decision_id: str) -> Decision | None:
        row = self.conn.execute("SELECT * FROM decisions WHERE decision_id = ?", (decision_id,)).fetchone()
        return _decision(row) if row is not None else None

    def all(self, include_retracted: bool = True, with_evidence: bool = True, kind: str | None = None) -> list[Decision]:
        """``with_evidence=False``: evidence left empty, for readers of verdicts alone (the walk's overlay), which
        need not parse the JSON of every automatic judgment (155,000 of them on the 10,000-note benchmark: 3 s).
        ``kind``: only decisions of that kind (supersession verdicts are a handful beside 47,000 resolutions)."""
        where, args = ("WHERE kind = ? ", (kind,)) if kind is not None else ("", ())
        if with_evidence:
            rows = self.conn.execute(f"SELECT * FROM decisions {where}ORDER BY made_at, rowid", args)
            decisions = [_decision(r) for r in rows]
        else:
            decisions = _without_evidence(self.conn, f"SELECT {_LEAN} FROM decisions {where}ORDER BY made_at, rowid", args)
        return decisions if include_retracted else [d for d in decisions if d.active]

    def verdicts(self) -> tuple[Decision, ...]:
        """``all(with_evidence=False)``, read again only when the ledger moved: the same tuple while it has not
        (callers may key what they derive from it on its identity)."""
        if self.conn.in_transaction:  # a generation bumped here may yet roll back and be reused for other decisions
            return tuple(self.all(with_evidence=False))
        ledger_id = read_meta(self.conn, LEDGER_ID)
        generation = read_counter(self.conn, OVERLAY_GENERATION)  # before the decisions: a write in between costs a reread
        kept = _VERDICTS.get(ledger_id) if ledger_id is not None else None
        if kept is not None and kept[0] == generation:
            return kept[1]
        decisions = tuple(self.all(with_evidence=False))
        if ledger_id is not None:
            _VERDICTS[ledger_id] = (generation, decisions)
        return decisions

    def touching(self, kind: str, iris: set[str], include_retracted: bool = True) -> list[Decision]:
        """Decisions of ``kind`` whose subject or object is in ``iris``, without evidence (``all``'s order): what a
        focused analysis reads where the ledger holds hundreds of thousands of judgments."""
        table = iri_table(self.conn, iris)
        live = "" if include_retracted else " AND retracted_at IS NULL"
        return _without_evidence(self.conn,
            f"SELECT {_LEAN}, rowid AS r FROM decisions WHERE kind = ? AND subject IN (SELECT iri FROM {table}){live} UNION "
            f"SELECT {_LEAN}, rowid AS r FROM decisions WHERE kind = ? AND object IN (SELECT iri FROM {table}){live} ORDER BY made_at, r",
            (kind, kind))

    def with_evidence(self, decisions: dict[K, Decision]) -> dict[K, Decision]:
        """``decisions`` (read without evidence) with their evidence, read for these ids alone."""
        ids = [d.decision_id for d in decisions.values()]
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            rows = self.conn.execute(f"SELECT decision_id, evidence FROM decisions WHERE decision_id IN ({','.join('?' * len(part))})", part)
            found.update({r[0]: json.loads(r[1]) for r in rows})
        return {key: replace(d, evidence=found.get(d.decision_id, {})) for key, d in decisions.items()}

    def export_json(self, path: Path) -> int:
        """Write every decision (retracted ones too: they are history) to ``path``; returns the count."""
        decisions = self.all()
        payload = {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": now_iso(), "decisions": [asdict(d) for d in decisions]}
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            tmp.replace(path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            where = "no such folder" if isinstance(exc, FileNotFoundError) else exc.strerror or str(exc)
            raise DecisionFileError(f"{path}: cannot write: {where}") from None
        return len(decisions)

    def import_json(self, path: Path) -> dict[str, int]:
        """Merge decisions from an export; all or nothing. A retraction on either side is kept.

        An automatic judgment in force is not copied: this vault's notes make it, or not (a person's
        retraction of one is copied, and holds when the analysis makes it here)."""
        from engram_lab.state.decision_file import read_export  # it builds this module's Decision

        decisions = read_export(path)
        counts = {"added": 0, "unchanged": 0, "retracted": 0}
        with transaction(self.conn):
            for d in decisions:
                row = self.conn.execute("SELECT * FROM decisions WHERE decision_id = ?", (d.decision_id,)).fetchone()
                if row is None and d.actor == "auto" and d.retracted_at is None:
                    counts["unchanged"] += 1
                elif row is None:
                    self._insert(d)
                    counts["added"] += 1
                elif row["retracted_at"] is None and d.retracted_at is not None:
                    self.conn.execute("UPDATE decisions SET retracted_at = ? WHERE decision_id = ?", (d.retracted_at, d.decision_id))
                    counts["retracted"] += 1
                else:
                    counts["unchanged"] += 1
            bump_counter(self.conn, OVERLAY_GENERATION)
        return counts
