"""Review queues in the ledger: resolution pairs waiting for a person, and supersession candidates.

Both are derived (an analysis pass rewrites them) but live in the ledger so the
CLI, magics, panels and the server read them without opening the graph store.
The resolution queue holds every pair the evidence puts up for review, decided or
not; a pair with a judgment in force is hidden when read, so a retraction (or an
import) shows or hides it at once, with the evidence it had.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any

from engram_lab.errors import EngramError
from engram_lab.state.db import iri_table
from engram_lab.state.documents import now_iso


@dataclass(frozen=True)
class QueuedPair:
    a: str
    b: str
    score: float
    rule: str
    evidence: dict[str, Any]


@dataclass(frozen=True)
class StoredCandidate:
    earlier: str
    later: str
    earlier_doc: str
    later_doc: str
    later_date: str
    evidence: dict[str, Any]


SORTS: dict[str, str] = {  # how a person can order the resolution queue
    "score": "score DESC, a, b",
    "rule": "rule, score DESC, a, b",
}
_JUDGED = ("SELECT 1 FROM decisions d WHERE d.kind = 'resolution' AND d.retracted_at IS NULL AND "
           "((d.subject = q.a AND d.object = q.b) OR (d.subject = q.b AND d.object = q.a))")


class ReviewQueue:
    """Callers hold the transaction (``with transaction(conn):``) around the writes."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def pairs(self, limit: int | None = None, *, include_decided: bool = False, sort: str = "score") -> list[QueuedPair]:
        """Pairs waiting for review: those without an active resolution judgment, unless ``include_decided``.
        ``sort``: a key of ``SORTS`` (highest score first, or grouped by the rule that proposed them)."""
        if sort not in SORTS:
            raise EngramError(f"cannot sort the review queue by {sort!r}; use one of: {', '.join(SORTS)}")
        where = "" if include_decided else f"WHERE NOT EXISTS ({_JUDGED})"
        sql = f"SELECT * FROM resolution_queue q {where} ORDER BY {SORTS[sort]}" + (f" LIMIT {int(limit)}" if limit else "")
        return [QueuedPair(r["a"], r["b"], r["score"], r["rule"], json.loads(r["evidence"])) for r in self.conn.execute(sql)]

    def keys(self) -> set[tuple[str, str]]:
        """Every queued pair (a, b), decided or not, without reading its evidence (an analysis pass asks this of
        hundreds of thousands of rows on a large vault)."""
        return {(r[0], r[1]) for r in self.conn.execute("SELECT a, b FROM resolution_queue")}

    def keys_touching(self, iris: set[str]) -> set[tuple[str, str]]:
        """The queued pairs (a, b) with an entity in ``iris``, through the indexes on a and on b."""
        table = iri_table(self.conn, iris)
        rows = self.conn.execute(f"SELECT a, b FROM resolution_queue WHERE a IN (SELECT iri FROM {table}) "
                                 f"UNION SELECT a, b FROM resolution_queue WHERE b IN (SELECT iri FROM {table})")
        return {(r[0], r[1]) for r in rows}

    def rule_counts(self) -> dict[str, int]:
        """How many waiting pairs each rule proposed: what a bulk dismissal of one rule would take off the queue."""
        rows = self.conn.execute(f"SELECT rule, COUNT(*) FROM resolution_queue q WHERE NOT EXISTS ({_JUDGED}) "
                                 "GROUP BY rule ORDER BY rule")
        return {r[0]: int(r[1]) for r in rows}

    def put(self, a: str, b: str, score: float, rule: str, evidence: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO resolution_queue VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(a, b) DO UPDATE SET "
            "score = excluded.score, rule = excluded.rule, evidence = excluded.evidence, updated_at = excluded.updated_at",
            (a, b, score, rule, json.dumps(evidence, sort_keys=True), now_iso()),
        )

    def remove_touching(self, iris: set[str]) -> None:
        """Drop queued pairs with an entity in ``iris`` (they are about to be re-scored, or are gone)."""
        table = iri_table(self.conn, iris)
        self.conn.execute(f"DELETE FROM resolution_queue WHERE a IN (SELECT iri FROM {table}) OR b IN (SELECT iri FROM {table})")

    def keep_only(self, iris: Set[str]) -> None:
        """Drop queued pairs whose entities no longer exist in the vault."""
        self._remove_where(lambda a, b: a not in iris or b not in iris)

    def _remove_where(self, drop: Callable[[str, str], bool]) -> None:
        rows = self.conn.execute("SELECT a, b FROM resolution_queue").fetchall()
        self.conn.executemany("DELETE FROM resolution_queue WHERE a = ? AND b = ?",
                              [(r["a"], r["b"]) for r in rows if drop(r["a"], r["b"])])

    def candidates(self) -> list[StoredCandidate]:
        rows = self.conn.execute("SELECT * FROM supersession_candidates ORDER BY later_date, earlier, later")
        return [StoredCandidate(r["earlier"], r["later"], r["earlier_doc"], r["later_doc"], r["later_date"], json.loads(r["evidence"]))
                for r in rows]

    def candidate_count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM supersession_candidates").fetchone()[0])

    def candidate_docs(self) -> set[str]:
        """Every note a supersession candidate refers to (as the earlier or the later decision)."""
        rows = self.conn.execute("SELECT earlier_doc, later_doc FROM supersession_candidates").fetchall()
        return {r[0] for r in rows} | {r[1] for r in rows}

    def replace_candidates(self, rows: list[StoredCandidate], before: list[StoredCandidate] | None = None) -> bool:
        """Replace every supersession candidate; True when anything changed. ``before``: the stored ones,
        when the caller has already read them."""
        stored = self.candidates() if before is None else before
        if {_row_key(c) for c in stored} == {_row_key(c) for c in rows}:
            return False
        self.conn.execute("DELETE FROM supersession_candidates")
        self.conn.executemany(
            "INSERT INTO supersession_candidates VALUES (?, ?, ?, ?, ?, ?)",
            [(c.earlier, c.later, c.earlier_doc, c.later_doc, c.later_date, json.dumps(c.evidence, sort_keys=True)) for c in rows],
        )
        return True


def _row_key(c: StoredCandidate) -> tuple[str, str, str]:
    return c.earlier, c.later, json.dumps(c.evidence, sort_keys=True)
