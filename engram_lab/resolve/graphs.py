"""Quads for the resolution overlay graph and the per-document ``#analysis`` graphs.

Both are projections, rebuilt whole from the ledger and the current statements;
neither ever touches an assertion graph.
"""

from __future__ import annotations

import json

from pyoxigraph import Literal, NamedNode, Quad

from engram_lab.graph import vocabulary as v
from engram_lab.resolve.overlay import ResolutionState
from engram_lab.resolve.supersession import Candidate


def _stamp(value: str) -> Literal:
    return Literal(value, datatype=v.XSD_DATETIME)


def overlay_quads(state: ResolutionState) -> list[Quad]:
    graph = NamedNode(v.OVERLAY_GRAPH)
    quads: list[Quad] = []
    for (_a, _b), d in sorted(state.judgments.items()):
        node = NamedNode(v.judgment_iri(d.decision_id))
        subject, obj = NamedNode(d.subject), NamedNode(d.object)
        quads += [
            Quad(node, v.RDF_TYPE, v.JUDGMENT, graph),
            Quad(node, v.VERDICT, Literal(d.verdict), graph),
            Quad(node, v.JUDGED_SUBJECT, subject, graph),
            Quad(node, v.JUDGED_OBJECT, obj, graph),
            Quad(node, v.PROV_WAS_ATTRIBUTED_TO, Literal(d.actor), graph),
            Quad(node, v.PROV_GENERATED_AT, _stamp(d.made_at), graph),
            Quad(node, v.DECISION_ID, Literal(d.decision_id), graph),
            Quad(node, v.EVIDENCE, Literal(json.dumps(d.evidence, sort_keys=True)), graph),
        ]
        if d.decision_id in state.blocked:
            quads.append(Quad(node, v.BLOCKED_BY, Literal(state.blocked[d.decision_id]), graph))
        elif d.verdict == "same":
            quads.append(Quad(subject, v.OWL_SAME_AS, obj, graph))
        elif d.verdict == "broader":  # subject is the broader one: object skos:broader subject
            quads.append(Quad(obj, v.SKOS_BROADER, subject, graph))
        elif d.verdict == "narrower":
            quads.append(Quad(subject, v.SKOS_BROADER, obj, graph))
        elif d.verdict == "related":
            quads.append(Quad(subject, v.SKOS_RELATED, obj, graph))
        elif d.verdict == "distinct":
            quads.append(Quad(subject, v.DISTINCT_FROM, obj, graph))
    return quads


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
