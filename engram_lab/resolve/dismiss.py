"""Bulk dismissal: every pair one rule put up for review, judged ``distinct`` by a person at once.

On a real vault a weak rule (``similar`` names, one-edit neighbours) can queue hundreds of pairs a
reader rejects at a glance. Each pair gets its own ledger decision, so the overlay, precedence and
retraction work as for one click; they share a batch id in their evidence, so one undo (or
``engram retract VAULT BATCH``) retracts them together and every pair is back on the queue.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from engram_lab.errors import EngramError
from engram_lab.resolve.overlay import RESOLUTION
from engram_lab.resolve.run import changing_decisions
from engram_lab.state.db import transaction
from engram_lab.state.decisions import Decision
from engram_lab.state.review import ReviewQueue

BATCH_PREFIX = "b-"


@dataclass(frozen=True)
class Dismissal:
    batch_id: str
    rule: str
    decisions: list[Decision]


def is_batch_id(text: str) -> bool:
    return text.startswith(BATCH_PREFIX)


def dismiss_rule(vault: Path, rule: str, *, actor: str = "user") -> Dismissal:
    """Judge ``distinct`` every pair waiting for review that ``rule`` proposed, in one transaction."""
    with changing_decisions(vault) as ledger:
        queue = ReviewQueue(ledger.conn)
        counts = queue.rule_counts()
        if rule not in counts:
            waiting = ", ".join(f"{r} ({n})" for r, n in counts.items()) or "none, the queue is empty"
            raise EngramError(f"no pairs from rule {rule!r} wait for review; rules waiting: {waiting}")
        batch_id = f"{BATCH_PREFIX}{uuid.uuid4().hex[:16]}"
        with transaction(ledger.conn):
            decisions = [
                ledger.record_within(RESOLUTION, p.a, p.b, "distinct", actor, {
                    "batch": batch_id, "dismissed_rule": rule, "score": p.score,
                    "names": [p.evidence.get("name_a"), p.evidence.get("name_b")],
                    "kinds": [p.evidence.get("kind_a"), p.evidence.get("kind_b")]})
                for p in queue.pairs() if p.rule == rule
            ]
    return Dismissal(batch_id, rule, decisions)


def retract_batch(vault: Path, batch_id: str) -> list[Decision]:
    """Undo a bulk dismissal: its decisions still in force are retracted and their pairs are back for review."""
    with changing_decisions(vault) as ledger:
        return ledger.retract_batch(batch_id)
