"""What the overlay graph holds, recorded beside the analysis so a new process need not read it back from the graph.

Changing the overlay graph needs the judgments it holds (``_write_overlay``). Reading them from the store took
7.5 s the first time a process deleted a note of the 100,000-note benchmark (94,000 judgments, two predicates). The
record is a plain table (decision id, why it is kept apart), written after the graph and before the ledger's
overlay digest is set. It is trusted only when its own digest equals the ledger's: a run killed in between, a
writer that did not record, or a damaged file all read as no record, and the graph is read as before.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl

from engram_lab.index.tables import write_parquet_atomic

HELD_FILE = "overlay_held.parquet"
_SCHEMA = {"decision_id": pl.String, "blocked_by": pl.String}


def judgments_digest(held: dict[str, str | None]) -> str:
    """The digest the ledger keeps of the overlay graph: its judgments and why each is kept apart ("" for none)."""
    payload = sorted((decision_id, why if why is not None else "") for decision_id, why in held.items())
    return hashlib.sha256(json.dumps(payload).encode("utf-8")).hexdigest()


def record_held(folder: Path, held: dict[str, str | None]) -> None:
    """Record ``held`` (decision id -> why it is kept apart, or None) as the overlay graph now holds it."""
    frame = pl.DataFrame({"decision_id": list(held), "blocked_by": list(held.values())}, schema=_SCHEMA)
    write_parquet_atomic(frame, folder / HELD_FILE)


def recorded_held(folder: Path, digest: str) -> dict[str, str | None] | None:
    """The recorded judgments when they are what the ledger's ``digest`` says the graph holds, else None."""
    try:
        frame = pl.read_parquet(folder / HELD_FILE)
        held = dict(zip(frame["decision_id"].to_list(), frame["blocked_by"].to_list()))
    except (OSError, pl.exceptions.PolarsError, pl.exceptions.PanicException, KeyError):  # a damaged file can panic
        return None
    return held if judgments_digest(held) == digest else None
