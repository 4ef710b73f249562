"""Quads carry provenance; the store swaps a document's graph whole and answers SPARQL as DataFrames."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from pyoxigraph import Literal, NamedNode, Quad

from engram_lab.errors import EngramError
from engram_lab.extract.heuristic.extractor import VERSION, HeuristicExtractor
from engram_lab.extract.segment import segment_document
from engram_lab.graph import vocabulary as v
from engram_lab.graph.quads import DocumentInfo, document_quads
from engram_lab.graph.store import GraphStore
from engram_lab.vault import parse_document

TEXT = "---\nauthor: Priya Raman\n---\n# Paris\n\nParis is the capital of France.\n"


def quads_for(text=TEXT, doc_id="d1"):
    doc = parse_document(text, "p.md", "markdown")
    extraction = HeuristicExtractor().extract(doc, segment_document(doc))
    info = DocumentInfo(doc_id, "p.md", doc.title, doc.author or "owner", dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))
    return document_quads(info, extraction)


def objects(quads, subject, predicate):
    return [q.object for q in quads if q.subject == subject and q.predicate == predicate]


def test_every_statement_has_provenance():
    quads = quads_for()
    graph = NamedNode(v.document_iri("d1"))
    assert {q.graph_name for q in quads} == {graph}
    statements = [q.subject for q in quads if q.predicate == v.RDF_TYPE and q.object == v.RDF_STATEMENT]
    assert statements
    for node in statements:
        assert objects(quads, node, v.PROV_WAS_DERIVED_FROM) == [graph]
        assert objects(quads, node, v.PAV_AUTHORED_BY) == [Literal("Priya Raman")]
        (activity,) = objects(quads, node, v.PROV_WAS_GENERATED_BY)
        assert objects(quads, activity, v.EXTRACTOR) == [Literal("heuristic")]
        assert objects(quads, activity, v.EXTRACTOR_VERSION) == [Literal(VERSION)]
        start, end = objects(quads, node, v.SPAN_START), objects(quads, node, v.SPAN_END)
        label = objects(quads, node, v.LABEL)[0].value
        assert TEXT[int(start[0].value) : int(end[0].value)] == label
    capital = NamedNode(v.relation_iri("capital of"))
    paris, france = NamedNode(v.entity_iri("Paris", "Place")), NamedNode(v.entity_iri("France", "Concept"))
    assert Quad(paris, capital, france, graph) in quads  # the asserted triple beside its statement


def test_identifiers_are_stable_and_derived():
    assert {q.subject for q in quads_for()} == {q.subject for q in quads_for()}
    assert v.entity_iri("Dr. A.  Okafor", "Person") == v.entity_iri("dr a okafor", "Person") != v.entity_iri("Dr. A. Okafor", "Organization")
    assert v.analysis_graph_iri("d1") == v.document_iri("d1") + "#analysis"


def test_replace_graph_is_whole(tmp_path):
    store = GraphStore(tmp_path / "store")
    graph = v.document_iri("d1")
    store.replace_graph(graph, quads_for())
    store.replace_graph(v.document_iri("d2"), quads_for(doc_id="d2"))
    store.replace_graph(graph, quads_for("# Paris\n\nParis is in Europe.\n"))
    labels = {q.object.value for q in store.quads(graph) if q.predicate == v.LABEL}
    assert "Paris is in Europe." in labels and "Paris is the capital of France." not in labels
    store.drop_graph(v.document_iri("d2"))
    assert store.graphs() == {graph}
    store.replace_graph(graph, [])
    assert store.graphs() == set()
    store.close()


def test_sparql_returns_dataframes(tmp_path):
    store = GraphStore(tmp_path / "store")
    store.replace_graph(v.document_iri("d1"), quads_for())
    frame = store.query(f"SELECT ?label WHERE {{ ?e <{v.RDFS_LABEL.value}> ?label }} ORDER BY ?label")
    assert isinstance(frame, pl.DataFrame) and "Paris" in frame["label"].to_list()
    assert store.query("ASK { ?s ?p ?o }")["ask"].to_list() == [True]
    assert store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 3").columns == ["s", "p", "o"]
    with pytest.raises(EngramError, match="SPARQL syntax error"):
        store.query("SELECT WHERE {")
    store.close()


def test_settle_keeps_the_data_and_drops_the_write_ahead_log(tmp_path):
    store = GraphStore(tmp_path / "store")
    for i in range(50):
        store.replace_graph(f"urn:engram:doc:{i}", quads_for(doc_id=f"d{i}"))
    written = len(store)
    logs_before = sum(f.stat().st_size for f in (tmp_path / "store").glob("*.log"))
    store.settle()
    assert logs_before > 0
    assert sum(f.stat().st_size for f in (tmp_path / "store").glob("*.log")) == 0  # the next open has nothing to replay
    assert len(store) == written
    store.replace_graph("urn:engram:doc:0", [])  # still writable after the reopen
    store.close()
    assert len(GraphStore(tmp_path / "store", read_only=True)) < written


def test_replacing_several_graphs_at_once_equals_replacing_each(tmp_path):
    from pyoxigraph import Literal, NamedNode, Quad

    from engram_lab.graph.store import GraphStore

    def quads(graph: str, n: int) -> list[Quad]:
        return [Quad(NamedNode(f"urn:x:s{i}"), NamedNode("urn:x:p"), Literal(f"{graph}-{i}"), NamedNode(graph)) for i in range(n)]

    one, batch = GraphStore(tmp_path / "one"), GraphStore(tmp_path / "batch")
    for store in (one, batch):
        store.replace_graph("urn:g:old", quads("urn:g:old", 3))
    wanted = [("urn:g:a", quads("urn:g:a", 2)), ("urn:g:old", quads("urn:g:new-content", 1)), ("urn:g:b", [])]
    for graph, q in wanted:
        one.replace_graph(graph, q)
    batch.replace_graphs(wanted)
    assert batch.graphs() == one.graphs() == {"urn:g:a", "urn:g:old"}
    for graph in ("urn:g:a", "urn:g:old"):
        assert sorted(map(str, batch.quads(graph))) == sorted(map(str, one.quads(graph)))
    assert len(batch.quads("urn:g:old")) == 1  # replaced whole, not added to
