"""From the decision ledger to the resolution state: which judgment holds for each pair, and the clusters.

Pure functions over ``Decision`` records. Per unordered pair the active judgment
of the strongest actor wins (user > llm > auto; the latest within an actor), so a
user's ``distinct`` outranks any machine ``same`` on that pair. Clusters are
built from winning ``same`` judgments, strongest actor first, and a union that
would put two entities judged ``distinct`` into one cluster is refused: a user's
``distinct`` also blocks merges that would arrive transitively.
Retracting a decision and recomputing gives exactly the state before it.
Given the entities the notes hold now (``present``), a judgment about one that is
gone is left out, and holds again when it returns: the state is a function of the
decisions and the notes only, never of the order things happened in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from engram_lab.last_few import kept_for_last
from engram_lab.state.decisions import Decision

RESOLUTION = "resolution"
_ACTOR_RANK = {"user": 0, "llm": 1, "auto": 2}
INVERSE = {"broader": "narrower", "narrower": "broader", "same": "same", "related": "related", "distinct": "distinct"}

Pair = tuple[str, str]
K = TypeVar("K")


def pair_key(a: str, b: str) -> Pair:
    return (a, b) if a <= b else (b, a)


def actor_rank(actor: str) -> int:
    return _ACTOR_RANK.get(actor.split(":", 1)[0], 3)


def oriented_verdict(decision: Decision, a: str) -> str:
    """The verdict read as 'a VERDICT other' ('broader' means a is the broader one)."""
    return decision.verdict if decision.subject == a else INVERSE[decision.verdict]


def in_force(decisions: Iterable[Decision], kind: str, key: Callable[[Decision], K]) -> dict[K, Decision]:
    """The active decision of ``kind`` that holds per ``key``: the strongest actor (user > llm > auto),
    then the latest (a tie in time goes to the one later in the ledger's order)."""
    best: dict[K, Decision] = {}
    for d in decisions:
        if d.kind != kind or not d.active:
            continue
        current = best.get(key(d))
        if current is None or (actor_rank(d.actor), current.made_at) <= (actor_rank(current.actor), d.made_at):
            best[key(d)] = d
    return best


def winning_judgments(decisions: Iterable[Decision], present: Collection[str] | None = None) -> dict[Pair, Decision]:
    """The resolution judgment in force for each unordered pair of entities (of ``present`` ones, when given)."""
    wanted = (d for d in decisions if d.subject != d.object
              and (present is None or (d.subject in present and d.object in present)))
    return in_force(wanted, RESOLUTION, lambda d: pair_key(d.subject, d.object))


def _union_order(d: Decision) -> tuple[int, str, str, str]:
    """Strongest actor first; a person's or a model's judgments in the order made, automatic ones (which
    the notes make, at whatever time an analysis ran) by pair, so the clusters do not depend on history."""
    rank = actor_rank(d.actor)
    return (rank, "", d.subject, d.object) if d.actor == "auto" else (rank, d.made_at, "", "")


@dataclass
class ResolutionState:
    judgments: dict[Pair, Decision]
    cluster_of: dict[str, str] = field(default_factory=dict)  # entity IRI -> canonical IRI (only merged entities)
    blocked: dict[str, str] = field(default_factory=dict)  # decision id of a 'same' kept apart -> why

    def members(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for iri, canonical in sorted(self.cluster_of.items()):
            out.setdefault(canonical, []).append(iri)
        return out

    def same(self, a: str, b: str) -> bool:
        return a == b or (a in self.cluster_of and self.cluster_of.get(a) == self.cluster_of.get(b))

    def canonical(self, iri: str) -> str:
        return self.cluster_of.get(iri, iri)

    def distinct_pairs(self) -> list[Pair]:
        return [key for key, d in self.judgments.items() if d.verdict == "distinct"]

    def edges(self) -> list[tuple[str, str, str]]:
        """(a, b, verdict) for the judgments that shape the graph: merged pairs, and broader/narrower/related."""
        out = []
        for (a, b), d in self.judgments.items():
            if d.verdict == "same" and self.same(a, b):
                out.append((a, b, "same"))
            elif d.verdict in ("broader", "narrower", "related"):
                out.append((d.subject, d.object, d.verdict))
        return out


def resolve_state(decisions: Iterable[Decision], present: Collection[str] | None = None) -> ResolutionState:
    """Judgments in force and clusters; ``present``: the entities the notes hold (None: every one judged)."""
    judgments = winning_judgments(decisions, present)
    parent: dict[str, str] = {}
    members: dict[str, set[str]] = {}
    apart: dict[str, set[str]] = {}  # entity -> entities it was judged distinct from
    for (a, b), d in judgments.items():
        if d.verdict == "distinct":
            apart.setdefault(a, set()).add(b)
            apart.setdefault(b, set()).add(a)
    kept_from: dict[str, set[str]] = {}  # root -> every entity a member of its cluster was judged distinct from

    def find(x: str) -> str:
        if x not in parent:
            parent[x], members[x], kept_from[x] = x, {x}, set(apart.get(x, ()))
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    state = ResolutionState(judgments)
    sames = sorted((d for d in judgments.values() if d.verdict == "same"), key=_union_order)  # stable: ledger order breaks ties
    for d in sames:
        ra, rb = find(d.subject), find(d.object)
        if ra == rb:
            continue
        clash = _clash(members[ra], members[rb], kept_from[ra], apart)
        if clash is not None:
            state.blocked[d.decision_id] = f"would merge {clash[0]} and {clash[1]}, judged distinct"
            continue
        big, small = (ra, rb) if len(members[ra]) >= len(members[rb]) else (rb, ra)  # the smaller set is copied
        parent[small] = big
        members[big] |= members.pop(small)
        kept_from[big] |= kept_from.pop(small)
    for root, group in members.items():
        if len(group) > 1:
            canonical = min(group)
            for iri in group:
                state.cluster_of[iri] = canonical
    return state


# The states last resolved, by the decisions tuple (``DecisionLedger.verdicts``: the same object while the ledger
# has not moved) and the judged entities present (the state depends on no other): an edit's analysis and the next
# search's walk ask for the same one, and so does the next edit unless it brought or removed a judged entity.
_STATES: list[tuple[tuple[Decision, ...], frozenset[str], ResolutionState]] = []
KEPT_STATES = 2


@kept_for_last
def judged_entities(decisions: tuple[Decision, ...]) -> frozenset[str]:
    """Every entity some decision names."""
    return frozenset(iri for d in decisions for iri in (d.subject, d.object))


def state_among(decisions: tuple[Decision, ...], present: frozenset[str]) -> ResolutionState:
    """``resolve_state(decisions, present)``, remembered: callers must not change the state they get."""
    relevant = judged_entities(decisions) & present
    for kept_decisions, kept_relevant, state in _STATES:
        if kept_decisions is decisions and kept_relevant == relevant:
            return state
    state = resolve_state(decisions, relevant)
    _STATES.insert(0, (decisions, relevant, state))
    del _STATES[KEPT_STATES:]
    return state


def _clash(left: set[str], right: set[str], kept_from_left: set[str], apart: dict[str, set[str]]) -> tuple[str, str] | None:
    """A pair (x in ``left``, y in ``right``) judged distinct, or None; in time of the smaller side, not the clusters'
    product (a vault of similar names grows clusters of thousands, and each merge checked them all)."""
    hits = kept_from_left & right if len(kept_from_left) <= len(right) else {y for y in right if y in kept_from_left}
    for y in sorted(hits):
        for x in sorted(apart[y]):
            if x in left:
                return x, y
    return None
