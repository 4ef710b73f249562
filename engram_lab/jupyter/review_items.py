"""What a review panel shows for one queued item, as plain data: every evidence number under its
name, and words as the notes wrote them. Kept out of the widget so it is tested without a front end,
and so a blank "cosine" or a stem such as "sampl" cannot reach the reader unnoticed.
"""

from __future__ import annotations

from typing import Any

from engram_lab.resolve.service import supersession_item
from engram_lab.state.review import QueuedPair

__all__ = ["EVIDENCE_NUMBERS", "evidence_rows", "pair_item", "supersession_item"]

# Every number PairEvidence carries, in reading order, with the name a reader sees.
EVIDENCE_NUMBERS: tuple[tuple[str, str], ...] = (
    ("score", "score"),
    ("surface", "name similarity (Jaro-Winkler)"),
    ("edit", "edit distance (capped at 3)"),
    ("cosine", "label cosine"),
    ("shared_docs", "shared notes"),
    ("shared_neighbours", "shared relation neighbours"),
    ("kinds_compatible", "kinds compatible"),
    ("ambiguous", "short form has several expansions"),
)
_MISSING = {"cosine": "not computed (no embedding of both names)"}


def _shown(key: str, value: Any) -> str:
    if value is None:
        return _MISSING.get(key, "unknown")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def evidence_rows(evidence: dict[str, Any], score: float) -> list[dict[str, str]]:
    """``[{"name", "value"}]`` for every evidence number, the pair's score first; never a blank value."""
    values = {**evidence, "score": score}
    return [{"name": name, "value": _shown(key, values.get(key))} for key, name in EVIDENCE_NUMBERS]


def pair_item(p: QueuedPair) -> dict[str, Any]:
    return {"a": p.a, "b": p.b, "score": p.score, "rule": p.rule, "evidence": p.evidence,
            "numbers": evidence_rows(p.evidence, p.score), "sources": ", ".join(p.evidence.get("sources") or [])}
