"""The resolution state from ledger decisions: precedence, clusters, the distinct veto, exact reversal."""

from __future__ import annotations

import pytest

from engram_lab.resolve.overlay import resolve_state
from engram_lab.state.db import open_ledger
from engram_lab.state.decisions import DecisionLedger

A, B, C, D = (f"urn:engram:entity:person:{x}" for x in "abcd")


@pytest.fixture
def ledger(vault):
    conn = open_ledger(vault)
    yield DecisionLedger(conn)
    conn.close()


def _snapshot(ledger):
    state = resolve_state(ledger.all())
    return state.cluster_of, sorted(state.edges()), sorted(state.distinct_pairs())


@pytest.mark.parametrize("verdict", ["same", "broader", "narrower", "related", "distinct"])
def test_every_judgment_kind_is_recorded_and_retracted_exactly(ledger, verdict):
    before = _snapshot(ledger)
    decision = ledger.record("resolution", A, B, verdict, "user", {"why": "test"})
    state = resolve_state(ledger.all())
    assert state.judgments[(A, B)].verdict == verdict
    assert state.same(A, B) == (verdict == "same")
    if verdict in ("broader", "narrower", "related"):
        assert (A, B, verdict) in state.edges()
    ledger.retract(decision.decision_id)
    assert _snapshot(ledger) == before


def test_user_outranks_machines_on_the_same_pair(ledger):
    ledger.record("resolution", A, B, "same", "auto")
    ledger.record("resolution", A, B, "same", "llm:test-model")
    user = ledger.record("resolution", B, A, "distinct", "user")
    state = resolve_state(ledger.all())
    assert not state.same(A, B) and state.judgments[(A, B)].actor == "user"
    ledger.retract(user.decision_id)
    assert resolve_state(ledger.all()).same(A, B)  # the machine judgment stands again


def test_distinct_blocks_a_merge_arriving_through_a_third_entity(ledger):
    ledger.record("resolution", A, C, "distinct", "user")
    ledger.record("resolution", A, B, "same", "auto")
    blocked = ledger.record("resolution", B, C, "same", "auto")
    state = resolve_state(ledger.all())
    assert state.same(A, B) and not state.same(A, C) and not state.same(B, C)
    assert blocked.decision_id in state.blocked


def test_user_same_wins_over_machine_same_order(ledger):
    ledger.record("resolution", A, B, "same", "auto")
    ledger.record("resolution", C, D, "same", "user")
    ledger.record("resolution", B, C, "same", "user")
    state = resolve_state(ledger.all())
    assert state.same(A, D) and len(state.members()) == 1
    assert state.canonical(D) == min(A, B, C, D)


def test_a_judgment_on_one_entity_twice_is_refused(ledger):
    from engram_lab.errors import EngramError

    with pytest.raises(EngramError, match="two different"):
        ledger.record("resolution", A, A, "same", "user")
