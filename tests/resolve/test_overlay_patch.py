"""The overlay graph, changed judgment by judgment, holds exactly what writing it whole would: over random histories
of judgments made, retracted and kept apart, and entities leaving and returning."""

from __future__ import annotations

import random
from pathlib import Path

from engram_lab.graph import vocabulary as v
from engram_lab.graph.store import STORE_DIR, GraphStore
from engram_lab.resolve.graphs import overlay_quads
from engram_lab.resolve.overlay import RESOLUTION, resolve_state
from engram_lab.resolve.run import _write_projections
from engram_lab.state.db import engram_dir, open_ledger
from engram_lab.state.decisions import DecisionLedger

ENTITIES = [f"urn:engram:entity:concept:e{i}" for i in range(9)]
VERDICTS = ["same", "same", "same", "distinct", "broader", "narrower", "related"]


def _held(vault: Path) -> set[tuple[str, str, str]]:
    store = GraphStore(engram_dir(vault) / STORE_DIR)
    try:
        return {(str(q.subject), str(q.predicate), str(q.object)) for q in store.quads(v.OVERLAY_GRAPH)}
    finally:
        store.close()


def _whole(tmp_path: Path, ledger: DecisionLedger, present: set[str]) -> set[tuple[str, str, str]]:
    """The overlay graph written whole into a store of its own, read back (the store writes literals its own way)."""
    store = GraphStore(tmp_path / "whole")
    try:
        store.replace_graph(v.OVERLAY_GRAPH, overlay_quads(resolve_state(ledger.all(), present)))
        return {(str(q.subject), str(q.predicate), str(q.object)) for q in store.quads(v.OVERLAY_GRAPH)}
    finally:
        store.close()


def test_patched_overlay_equals_the_whole_graph_after_every_step(tmp_path: Path) -> None:
    rng = random.Random(11)
    vault = tmp_path / "vault"
    vault.mkdir()
    conn = open_ledger(vault)
    ledger = DecisionLedger(conn)
    kept_apart = 0
    try:
        for step in range(40):
            for _ in range(rng.randint(0, 4)):
                a, b = rng.sample(ENTITIES, 2)
                ledger.record(RESOLUTION, a, b, rng.choice(VERDICTS), rng.choice(["auto", "user"]), {"step": step, "why": rng.random()})
            live = [d for d in ledger.all() if d.active]
            for d in rng.sample(live, min(len(live), rng.randint(0, 2))):
                ledger.retract(d.decision_id)
            present = set(rng.sample(ENTITIES, rng.randint(4, len(ENTITIES))))  # entities leave and come back
            state = resolve_state(ledger.all(with_evidence=False), present)
            _write_projections(vault, state, [], None)
            assert _held(vault) == _whole(tmp_path, ledger, present), step
            kept_apart += bool(state.blocked)
    finally:
        conn.close()
    assert kept_apart  # the history reached merges kept apart by a 'distinct'


def _merge_kept_apart(ledger: DecisionLedger, a: str, b: str, c: str):  # type: ignore[no-untyped-def]
    """a same b, b same c (automatic), a distinct c (a person's): one merge is kept apart. Returns the 'distinct'."""
    ledger.record(RESOLUTION, a, b, "same", "auto", {"rule": "acronym"})
    ledger.record(RESOLUTION, b, c, "same", "auto", {"rule": "initials"})
    return ledger.record(RESOLUTION, a, c, "distinct", "user")


def test_the_history_keeps_merges_apart_and_empties_the_graph(tmp_path: Path) -> None:
    """The cases the random history must reach: a 'same' kept apart by a 'distinct', then let go; an empty overlay."""
    vault = tmp_path / "vault"
    vault.mkdir()
    a, b, c = ENTITIES[:3]
    conn = open_ledger(vault)
    ledger = DecisionLedger(conn)
    try:
        veto = _merge_kept_apart(ledger, a, b, c)
        for present in ({a, b, c}, {a, b}, {a, b, c}):
            state = resolve_state(ledger.all(with_evidence=False), present)
            _write_projections(vault, state, [], None)
            assert _held(vault) == _whole(tmp_path, ledger, present)
        assert resolve_state(ledger.all(), {a, b, c}).blocked
        ledger.retract(veto.decision_id)
        for d in [d for d in ledger.all() if d.active]:
            ledger.retract(d.decision_id)
        _write_projections(vault, resolve_state(ledger.all(with_evidence=False), {a, b, c}), [], None)
        assert _held(vault) == set()
    finally:
        conn.close()


def _write_history(tmp_path: Path, monkeypatch, seed: int, steps: int, disturb) -> None:  # type: ignore[no-untyped-def]
    """Random steps of automatic judgments among entities that come and go, each written by ``write_projections`` and
    checked against the graph written whole. ``disturb(step, conn)`` runs before each write and says whether the
    write must read the graph back; a write it does not disturb must not (after the first)."""
    from engram_lab.resolve import run

    rng = random.Random(seed)
    vault = tmp_path / "vault"
    vault.mkdir()
    conn = open_ledger(vault)
    ledger = DecisionLedger(conn)
    reads: list[int] = []
    real = run.held_judgments
    monkeypatch.setattr(run, "held_judgments", lambda quads_of: reads.append(1) or real(quads_of))
    try:
        for step in range(steps):
            for _ in range(rng.randint(1, 3)):
                a, b = rng.sample(ENTITIES, 2)
                ledger.record(RESOLUTION, a, b, rng.choice(VERDICTS), "auto", {"step": step})
            present = set(rng.sample(ENTITIES, rng.randint(5, len(ENTITIES))))
            reread = disturb(step, vault, conn, ledger)
            before = len(reads)
            run.write_projections(vault, resolve_state(ledger.all(with_evidence=False), present), [])
            assert _held(vault) == _whole(tmp_path, ledger, present), step
            if reread:
                assert len(reads) == before + 1, step
            elif step > 0:
                assert len(reads) == before, step  # written from what this process knew the graph held
    finally:
        conn.close()


def test_a_process_writes_from_what_it_wrote_last_unless_another_writer_moved_the_graph(tmp_path: Path, monkeypatch) -> None:
    """The overlay graph is not read back while the ledger carries the digest this process wrote beside it; it is
    when the digest is another's, or gone (a run killed while writing)."""
    from engram_lab.resolve import run
    from engram_lab.state.db import set_meta, transaction

    def disturb(step: int, vault: Path, conn, ledger) -> bool:  # type: ignore[no-untyped-def]
        if step % 6 == 5:  # another writer's digest: this process must read the graph
            with transaction(conn):
                set_meta(conn, run.OVERLAY_DIGEST, "another process's" if step % 12 == 5 else "")
        return step % 6 == 5

    _write_history(tmp_path, monkeypatch, 5, 24, disturb)


def test_a_new_process_writes_from_the_record_while_it_matches_the_ledgers_digest(tmp_path: Path, monkeypatch) -> None:
    """A process that has not written the graph yet (its memory cleared) takes what the graph holds from the record
    beside the analysis, without reading the graph, while the record's digest is the ledger's; a writer that moved
    the graph without recording it, or a damaged record, sends it back to the graph."""
    from engram_lab.resolve import run
    from engram_lab.resolve.held_record import HELD_FILE
    from engram_lab.state.db import set_meta, transaction

    def disturb(step: int, vault: Path, conn, ledger) -> bool:  # type: ignore[no-untyped-def]
        run._HELD.clear()  # a new process
        if step % 6 == 3:  # another writer moved the graph and set its digest, but kept no record
            moved = resolve_state(ledger.all(with_evidence=False), set(ENTITIES))
            run._write_projections(vault, moved, [], None)
            with transaction(conn):
                set_meta(conn, run.OVERLAY_DIGEST, run._overlay_digest(moved))
        if step % 6 == 5:
            (engram_dir(vault) / run.ANALYSIS_DIR / HELD_FILE).write_bytes(b"not a table")
        return step % 6 in (3, 5)

    _write_history(tmp_path, monkeypatch, 8, 18, disturb)


def test_the_overlay_digest_is_the_one_ledgers_already_carry(tmp_path: Path) -> None:
    """Vaults indexed before the record existed carry the overlay digest in its first form (each judgment's id and
    why it is kept apart, "" for none, sorted, as JSON): the same state must give the same digest, or each would
    rewrite its overlay once for nothing."""
    import hashlib
    import json

    from engram_lab.resolve import run

    a, b, c = ENTITIES[:3]
    conn = open_ledger(tmp_path)
    ledger = DecisionLedger(conn)
    try:
        _merge_kept_apart(ledger, a, b, c)
        state = resolve_state(ledger.all(with_evidence=False), {a, b, c})
    finally:
        conn.close()
    assert state.blocked
    first_form = sorted((d.decision_id, state.blocked.get(d.decision_id, "")) for d in state.judgments.values())
    assert run._overlay_digest(state) == hashlib.sha256(json.dumps(first_form).encode("utf-8")).hexdigest()


def test_a_record_that_makes_the_reader_panic_reads_as_none(tmp_path: Path, monkeypatch) -> None:
    """Some damaged Parquet files make polars panic (a BaseException, not an error): that reads as no record too."""
    import polars as pl

    from engram_lab.resolve import held_record

    held_record.record_held(tmp_path, {"d-1": None})
    digest = held_record.judgments_digest({"d-1": None})
    assert held_record.recorded_held(tmp_path, digest) == {"d-1": None}

    def panic(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise pl.exceptions.PanicException("range end index out of range")

    monkeypatch.setattr(held_record.pl, "read_parquet", panic)
    assert held_record.recorded_held(tmp_path, digest) is None
