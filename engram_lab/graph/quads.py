"""An extraction becomes the quads of its document's named graph. Pure: data in, quads out.

Every relation is a reified statement carrying its provenance (PROV-O and PAV):
the document it was derived from, the span (only when the words were found),
who wrote the note, and the extraction activity that produced it. The plain
triple is asserted beside it, so simple SPARQL needs no reification.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pyoxigraph import Literal, NamedNode, Quad

from engram_lab.extract.model import EntityRef, Extraction
from engram_lab.graph import vocabulary as v
from engram_lab.vault.model import Span

_SPECIAL_PREDICATES = {"is a": v.IS_A, "links to": v.LINKS_TO, "tag": v.HAS_TAG}


@dataclass(frozen=True)
class DocumentInfo:
    doc_id: str
    path: str
    title: str
    author: str
    extracted_at: dt.datetime


def predicate_node(predicate: str) -> NamedNode:
    return _SPECIAL_PREDICATES.get(predicate) or NamedNode(v.relation_iri(predicate))


def entity_node(ref: EntityRef) -> NamedNode:
    return NamedNode(v.entity_iri(ref.name, ref.kind))


def _span_quads(node: NamedNode, span: Span | None, cell: str | None, graph: NamedNode) -> list[Quad]:
    quads = []
    if span is not None:
        quads.append(Quad(node, v.SPAN_START, Literal(span.start), graph))
        quads.append(Quad(node, v.SPAN_END, Literal(span.end), graph))
    if cell is not None:
        quads.append(Quad(node, v.CELL, Literal(cell), graph))
    return quads


def _span_tuple(span: Span | None) -> tuple[int, int] | None:
    return (span.start, span.end) if span is not None else None


def document_quads(info: DocumentInfo, extraction: Extraction) -> list[Quad]:
    graph = NamedNode(v.document_iri(info.doc_id))
    doc = graph
    activity = NamedNode(v.activity_iri(info.doc_id))
    author = Literal(info.author)
    quads = [
        Quad(doc, v.RDF_TYPE, v.DOCUMENT, graph),
        Quad(doc, v.PATH, Literal(info.path), graph),
        Quad(doc, v.TITLE, Literal(info.title), graph),
        Quad(doc, v.PAV_AUTHORED_BY, author, graph),
        Quad(activity, v.RDF_TYPE, v.PROV_ACTIVITY, graph),
        Quad(activity, v.EXTRACTOR, Literal(extraction.extractor), graph),
        Quad(activity, v.EXTRACTOR_VERSION, Literal(extraction.extractor_version), graph),
        Quad(activity, v.PROV_ENDED_AT, Literal(info.extracted_at.isoformat(), datatype=v.XSD_DATETIME), graph),
    ]
    if extraction.model:
        quads.append(Quad(activity, v.MODEL, Literal(extraction.model), graph))
    quads += [Quad(doc, v.WARNING, Literal(warning), graph) for warning in extraction.warnings]
    for key, value in sorted(extraction.usage.items()):
        quads.append(Quad(activity, NamedNode(v.usage_iri(key)), Literal(value), graph))

    def provenance(node: NamedNode, span: Span | None, cell: str | None, date: dt.date | None) -> list[Quad]:
        """Where a statement came from, who wrote it, what produced it, and when it says it happened."""
        out = [
            Quad(node, v.PROV_WAS_DERIVED_FROM, doc, graph),
            Quad(node, v.PAV_AUTHORED_BY, author, graph),
            Quad(node, v.PROV_WAS_GENERATED_BY, activity, graph),
        ]
        if date is not None:
            out.append(Quad(node, v.DATE, Literal(date.isoformat(), datatype=v.XSD_DATE), graph))
        return out + _span_quads(node, span, cell, graph)

    seen_entities: set[str] = set()
    for ordinal, mention in enumerate(extraction.entities):
        entity = NamedNode(v.entity_iri(mention.name, mention.kind))
        if entity.value not in seen_entities:
            seen_entities.add(entity.value)
            quads += [
                Quad(entity, v.RDF_TYPE, v.ENTITY, graph),
                Quad(entity, v.RDFS_LABEL, Literal(mention.name), graph),
                Quad(entity, v.KIND, NamedNode(v.kind_iri(mention.kind)), graph),
            ]
        quads += [Quad(entity, v.SKOS_ALT_LABEL, Literal(alias), graph) for alias in mention.aliases]
        node = NamedNode(v.mention_iri(info.doc_id, entity.value, _span_tuple(mention.span), mention.cell_id, ordinal))
        quads += [
            Quad(node, v.RDF_TYPE, v.MENTION, graph),
            Quad(node, v.MENTION_OF, entity, graph),
            Quad(node, v.PROV_WAS_DERIVED_FROM, doc, graph),
        ]
        if mention.surface:
            quads.append(Quad(node, v.LABEL, Literal(mention.surface), graph))
        quads += _span_quads(node, mention.span, mention.cell_id, graph)

    for relation in extraction.relations:
        subject = entity_node(relation.subject)
        predicate = predicate_node(relation.predicate)
        obj = entity_node(relation.object) if isinstance(relation.object, EntityRef) else Literal(relation.object)
        node = NamedNode(v.statement_iri(info.doc_id, subject.value, predicate.value, str(obj), _span_tuple(relation.span), relation.cell_id))
        quads += [
            Quad(subject, predicate, obj, graph),
            Quad(predicate, v.RDFS_LABEL, Literal(relation.predicate), graph),
            Quad(node, v.RDF_TYPE, v.RDF_STATEMENT, graph),
            Quad(node, v.RDF_SUBJECT, subject, graph),
            Quad(node, v.RDF_PREDICATE, predicate, graph),
            Quad(node, v.RDF_OBJECT, obj, graph),
            Quad(node, v.LABEL, Literal(relation.label), graph),
        ]
        quads += provenance(node, relation.span, relation.cell_id, relation.date)

    for statement in extraction.statements:
        node = NamedNode(v.statement_iri(info.doc_id, statement.kind, statement.text, str(statement.date), _span_tuple(statement.span), statement.cell_id))
        quads += [
            Quad(node, v.RDF_TYPE, v.DECISION if statement.kind == "decision" else v.CLAIM, graph),
            Quad(node, v.TEXT, Literal(statement.text), graph),
        ]
        quads += [Quad(node, v.ABOUT, entity_node(ref), graph) for ref in statement.about]
        quads += provenance(node, statement.span, statement.cell_id, statement.date)
    return list(dict.fromkeys(quads))
