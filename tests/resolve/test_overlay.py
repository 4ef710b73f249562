"""The resolution state from ledger decisions: precedence, clusters, the distinct veto, exact reversal."""

from __future__ import annotations

import pytest

from engram_lab.resolve.overlay import resolve_state, state_among
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


def _reference_clusters(decisions):
    """Merge in the state's own order, checking every member pair of the two clusters against 'distinct'."""
    from engram_lab.resolve.overlay import _union_order, winning_judgments

    judgments = winning_judgments(decisions)
    distinct = {key for key, d in judgments.items() if d.verdict == "distinct"}
    cluster = {}
    blocked = set()
    for d in sorted((d for d in judgments.values() if d.verdict == "same"), key=_union_order):
        left, right = cluster.get(d.subject, {d.subject}), cluster.get(d.object, {d.object})
        if left is right:
            continue
        if any((min(x, y), max(x, y)) in distinct for x in left for y in right):
            blocked.add(d.decision_id)
            continue
        merged = left | right
        for iri in merged:
            cluster[iri] = merged
    return {iri: min(group) for iri, group in cluster.items() if len(group) > 1}, blocked


def test_clusters_equal_a_pairwise_reference_on_random_judgments():
    import random

    from engram_lab.state.decisions import Decision

    rng = random.Random(7)
    names = [f"urn:engram:entity:person:{i:02d}" for i in range(14)]
    for trial in range(60):
        decisions = []
        for n in range(rng.randint(5, 40)):
            a, b = rng.sample(names, 2)
            verdict = rng.choice(["same", "same", "same", "distinct", "related"])
            actor = rng.choice(["auto", "auto", "user", "llm:m"])
            decisions.append(Decision(f"d{trial}-{n}", "resolution", a, b, verdict, actor, f"2026-01-01T00:00:{n:02d}", {}))
        state = resolve_state(decisions)
        clusters, blocked = _reference_clusters(decisions)
        assert state.cluster_of == clusters
        assert set(state.blocked) == blocked


def test_state_among_is_resolve_state_remembered(ledger):
    ledger.record("resolution", "e:a", "e:b", "same", "user")
    ledger.record("resolution", "e:b", "e:c", "same", "auto")
    ledger.record("resolution", "e:a", "e:c", "distinct", "user")
    decisions = ledger.verdicts()
    present = frozenset({"e:a", "e:b", "e:c"})
    state = state_among(decisions, present)
    assert state == resolve_state(decisions, present) and state.blocked
    assert state_among(decisions, frozenset(present)) is state  # an equal set of entities is the same question
    fewer = state_among(decisions, frozenset({"e:a", "e:c"}))
    assert fewer == resolve_state(decisions, {"e:a", "e:c"}) and not fewer.cluster_of
    ledger.record("resolution", "e:b", "e:c", "distinct", "user")
    assert state_among(ledger.verdicts(), present) == resolve_state(ledger.all(with_evidence=False), present) != state


def test_state_among_asks_only_about_the_judged_entities_present(ledger):
    """An edit that brings or removes entities no decision names gets the state it had (the same object); one that
    brings a judged entity back gets a new state, equal to resolving from scratch."""
    ledger.record("resolution", "e:a", "e:b", "same", "user")
    ledger.record("resolution", "e:b", "e:c", "same", "auto")
    decisions = ledger.verdicts()
    before = state_among(decisions, frozenset({"e:a", "e:b", "e:x"}))
    after = state_among(decisions, frozenset({"e:a", "e:b", "e:y", "e:z"}))
    assert after is before and after == resolve_state(decisions, {"e:a", "e:b", "e:y", "e:z"})
    back = state_among(decisions, frozenset({"e:a", "e:b", "e:c", "e:y"}))
    assert back is not before and back == resolve_state(decisions, {"e:a", "e:b", "e:c", "e:y"})
    assert back.cluster_of != before.cluster_of
