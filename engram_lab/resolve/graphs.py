"""Quads for the resolution overlay graph and the per-document ``#analysis`` graphs.

Both are projections, rebuilt whole from the ledger and the current statements;
neither ever touches an assertion graph.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from pyoxigraph import Literal, NamedNode, Quad

from engram_lab.graph import vocabulary as v
from engram_lab.resolve.overlay import ResolutionState
from engram_lab.resolve.supersession import Candidate
from engram_lab.state.decisions import Decision


def _stamp(value: str) -> Literal:
    return Literal(value, datatype=v.XSD_DATETIME)


def relation_quad(subject: str, obj: str, verdict: str, blocked: bool, graph: NamedNode) -> Quad | None:
    """The edge a judgment puts in the graph (none when it is kept apart, or for a verdict that draws none)."""
    if blocked:
        return None
    s, o = NamedNode(subject), NamedNode(obj)
    if verdict == "same":
        return Quad(s, v.OWL_SAME_AS, o, graph)
    if verdict == "broader":  # subject is the broader one: object skos:broader subject
        return Quad(o, v.SKOS_BROADER, s, graph)
    if verdict == "narrower":
        return Quad(s, v.SKOS_BROADER, o, graph)
    if verdict == "related":
        return Quad(s, v.SKOS_RELATED, o, graph)
    if verdict == "distinct":
        return Quad(s, v.DISTINCT_FROM, o, graph)
    return None


def judgment_quads(d: Decision, blocked_by: str | None) -> list[Quad]:
    """One judgment in the overlay graph: its node (verdict, pair, actor, time, id, evidence, why it is kept
    apart) and the edge it draws."""
    graph = NamedNode(v.OVERLAY_GRAPH)
    node = NamedNode(v.judgment_iri(d.decision_id))
    quads = [
        Quad(node, v.RDF_TYPE, v.JUDGMENT, graph),
        Quad(node, v.VERDICT, Literal(d.verdict), graph),
        Quad(node, v.JUDGED_SUBJECT, NamedNode(d.subject), graph),
        Quad(node, v.JUDGED_OBJECT, NamedNode(d.object), graph),
        Quad(node, v.PROV_WAS_ATTRIBUTED_TO, Literal(d.actor), graph),
        Quad(node, v.PROV_GENERATED_AT, _stamp(d.made_at), graph),
        Quad(node, v.DECISION_ID, Literal(d.decision_id), graph),
        Quad(node, v.EVIDENCE, Literal(json.dumps(d.evidence, sort_keys=True)), graph),
    ]
    if blocked_by is not None:
        quads.append(Quad(node, v.BLOCKED_BY, Literal(blocked_by), graph))
    edge = relation_quad(d.subject, d.object, d.verdict, blocked_by is not None, graph)
    return quads + ([edge] if edge is not None else [])


def overlay_quads(state: ResolutionState) -> list[Quad]:
    """The whole overlay graph: every judgment in force."""
    return [q for _pair, d in sorted(state.judgments.items()) for q in judgment_quads(d, state.blocked.get(d.decision_id))]


def held_judgments(quads_of: Callable[[NamedNode], Iterable[Quad]]) -> dict[str, str | None]:
    """Decision id -> why it is kept apart (None: it is not), as the overlay graph holds them now.
    ``quads_of(predicate)``: the graph's quads with that predicate."""
    blocked = {q.subject.value: q.object.value for q in quads_of(v.BLOCKED_BY)}
    return {q.object.value: blocked.get(q.subject.value) for q in quads_of(v.DECISION_ID)}


def retired_quads(decision_id: str, node_quads: list[Quad]) -> list[Quad]:
    """Every quad a judgment wrote, its edge included, rebuilt from the node's own quads (the decision may have left
    the ledger's judgments in force since)."""
    graph = NamedNode(v.OVERLAY_GRAPH)
    fields = {q.predicate: q.object.value for q in node_quads}
    edge = None
    if v.JUDGED_SUBJECT in fields and v.JUDGED_OBJECT in fields and v.VERDICT in fields:
        edge = relation_quad(fields[v.JUDGED_SUBJECT], fields[v.JUDGED_OBJECT], fields[v.VERDICT], v.BLOCKED_BY in fields, graph)
    return node_quads + ([edge] if edge is not None else [])


def analysis_quads(doc_id: str, candidates: list[Candidate]) -> list[Quad]:
    """Supersession candidates whose later decision is in ``doc_id``, for its ``#analysis`` graph."""
    graph = NamedNode(v.analysis_graph_iri(doc_id))
    quads: list[Quad] = []
    for c in candidates:
        node = NamedNode(c.iri)
        quads += [
            Quad(node, v.RDF_TYPE, v.SUPERSESSION, graph),
            Quad(node, v.EARLIER, NamedNode(c.earlier.statement), graph),
            Quad(node, v.LATER, NamedNode(c.later.statement), graph),
            Quad(node, v.EARLIER_KEY, NamedNode(c.earlier.key), graph),
            Quad(node, v.LATER_KEY, NamedNode(c.later.key), graph),
            Quad(node, v.STATUS, Literal(c.status), graph),
            Quad(node, v.EVIDENCE, Literal(json.dumps(c.evidence(), sort_keys=True)), graph),
            Quad(node, v.PROV_WAS_DERIVED_FROM, NamedNode(v.document_iri(c.earlier.doc_id)), graph),
            Quad(node, v.PROV_WAS_DERIVED_FROM, NamedNode(v.document_iri(c.later.doc_id)), graph),
        ]
        quads += [Quad(node, v.SHARED_SUBJECT, NamedNode(s) if s.startswith(v.ENTITY_PREFIX) else Literal(s), graph) for s in c.shared]
        if c.verdict_id:
            quads.append(Quad(node, v.DECISION_ID, Literal(c.verdict_id), graph))
    return quads
