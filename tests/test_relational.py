"""The relational layer kept in step with the notes: graphs, tables and ledger across every kind of change."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram_lab.engine import Engine
from engram_lab.graph import vocabulary as v
from engram_lab.graph.store import GraphStore
from engram_lab.index.tables import SCHEMAS, TableStore
from engram_lab.indexer import index_vault
from engram_lab.sample import copy_sample_vault
from tests.conftest import ledger_rows




def graph_of(vault, path):
    store = GraphStore(vault / ".engram" / "store", read_only=True)
    try:
        return store.quads(v.document_iri(ledger_rows(vault)[path].doc_id))
    finally:
        store.close()


def labels(quads):
    return {q.object.value for q in quads if q.predicate == v.LABEL}


def touch_later(path):
    stamp = time.time_ns() + 5_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_deleted_sentence_leaves_no_stale_triple(vault, write):
    path = write("a.md", "# Paris\n\nParis is the capital of France. Paris hosted the 1900 Olympics.\n")
    index_vault(vault, progress=False)
    assert "Paris is the capital of France." in labels(graph_of(vault, "a.md"))
    path.write_text("# Paris\n\nParis hosted the 1900 Olympics.\n")
    touch_later(path)
    index_vault(vault, progress=False)
    after = graph_of(vault, "a.md")
    assert "Paris is the capital of France." not in labels(after)
    assert not any(q.predicate.value == v.relation_iri("capital of") for q in after)


def test_delete_and_rename_move_graphs(vault, write):
    write("a.md", "# Alpha\n\nAlpha Corp was founded by Jane Roe.\n")
    write("b.md", "# Beta\n\nBeta Lake is near Gamma Town.\n")
    index_vault(vault, progress=False)
    doc_a = ledger_rows(vault)["a.md"].doc_id
    (vault / "a.md").rename(vault / "moved.md")
    (vault / "b.md").unlink()
    report = index_vault(vault, progress=False)
    assert report.renamed == [("a.md", "moved.md")] and report.deleted == ["b.md"]
    store = GraphStore(vault / ".engram" / "store", read_only=True)
    assert store.graphs() == {v.document_iri(doc_a)}
    paths = [q.object.value for q in store.quads(v.document_iri(doc_a)) if q.predicate == v.PATH]
    store.close()
    assert paths == ["moved.md"]
    assert TableStore(vault / ".engram" / "tables").read("documents")["path"].to_list() == ["moved.md"]


def test_pending_review_notes_stay_out_of_the_graph_until_accepted(vault, write):
    path = write("learned/x.md", "---\nstatus: pending-review\n---\n# Claim\n\nAcme Corp bought Widget Works.\n")
    index_vault(vault, progress=False)
    assert graph_of(vault, "learned/x.md") == []
    assert Engine(vault).search("Acme Widget", k=1)[0].status == "pending-review"
    path.write_text(path.read_text().replace("pending-review", "accepted"))
    touch_later(path)
    index_vault(vault, progress=False)
    assert "Acme Corp bought Widget Works." in labels(graph_of(vault, "learned/x.md"))


def test_sample_vault_tables_agree_with_store_and_ledger(tmp_path):
    engine = Engine(copy_sample_vault(tmp_path / "s"))
    engine.index(progress=False)
    rows = ledger_rows(engine.vault)
    tables = TableStore(engine.vault / ".engram" / "tables")
    documents = tables.read("documents")
    assert sorted(documents["path"].to_list()) == sorted(rows)
    store = GraphStore(engine.vault / ".engram" / "store", read_only=True)
    graphs = store.graphs()
    entity_iris = {q.subject.value for q in store.quads() if q.predicate == v.RDF_TYPE and q.object == v.ENTITY}
    store.close()
    indexed = {row.doc_id for row in rows.values() if row.status == "indexed"}
    assert {g for g in graphs if v.is_assertion_graph(g)} == {v.document_iri(d) for d in indexed}
    assert v.OVERLAY_GRAPH in graphs  # the analysis pass ran after indexing
    assert set(tables.read("entities")["entity_iri"].to_list()) == entity_iris
    assert set(tables.read("entities")["doc_id"].to_list()) == indexed
    frame = engine.sparql(f"SELECT ?name WHERE {{ ?e <{v.KIND.value}> <{v.kind_iri('Person')}> ; <{v.RDFS_LABEL.value}> ?name }}")
    assert {"Amara Okafor", "Jonas Lindqvist", "Priya Raman", "Marta Hall"} <= set(frame["name"].to_list())


# -- rebuild equivalence ---------------------------------------------------------------------------

SENTENCES = [
    "Paris is the capital of France.", "Jane Roe founded Acme Corp in 1990.", "He moved to Berlin.",
    "The Vessel River flows into the North Sea.", "Acme Corp was bought by Widget Works.", "Marta Hall visited Mill Reach.",
]
NAMES = ["a.md", "b.md", "sub/c.md", "d.md"]


def canonical(vault):
    """Graphs and tables with document ids replaced by paths, so incremental and fresh indexes compare."""
    rows = ledger_rows(vault)
    path_of = {row.doc_id: row.path for row in rows.values()}
    store = GraphStore(vault / ".engram" / "store", read_only=True)
    graphs = {}
    for graph in store.graphs():
        doc_id = graph.removeprefix(v.DOCUMENT_PREFIX)
        quads = [q for q in store.quads(graph) if q.predicate != v.PROV_ENDED_AT]
        node_names = {}
        for q in quads:  # statement and mention IRIs hash the document id: name them by their content
            if q.subject.value.startswith((v.STATEMENT_PREFIX, v.MENTION_PREFIX)):
                node_names.setdefault(q.subject.value, []).append((q.predicate.value, str(q.object)))
        def name(term):
            text = str(term).replace(doc_id, path_of[doc_id])
            return repr(sorted(node_names[term.value])).replace(doc_id, path_of[doc_id]) if term.value in node_names else text
        graphs[path_of[doc_id]] = sorted((name(q.subject), str(q.predicate), name(q.object)) for q in quads)
    store.close()
    tables = TableStore(vault / ".engram" / "tables")
    frames = {}
    for table in SCHEMAS:
        frame = tables.read(table)
        frame = frame.with_columns(frame["doc_id"].replace(path_of)).drop([c for c in ("iri",) if c in frame.columns])
        frames[table] = sorted(map(repr, frame.rows()))
    return graphs, frames


operations = st.lists(
    st.tuples(st.sampled_from(["create", "edit", "delete", "rename"]), st.sampled_from(NAMES), st.sampled_from(NAMES),
              st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=3)),
    min_size=1, max_size=5,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations)
def test_incremental_index_equals_fresh_index(tmp_path_factory, steps):
    vault = tmp_path_factory.mktemp("vault")
    for op, name, other, sentences in steps:
        path, target = vault / name, vault / other
        body = f"# {name}\n\n" + " ".join(sentences) + "\n"
        if op in ("create", "edit"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
            touch_later(path)
        elif op == "delete" and path.exists():
            path.unlink()
        elif op == "rename" and path.exists() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            path.rename(target)
        index_vault(vault, progress=False)
    fresh = tmp_path_factory.mktemp("fresh")
    shutil.copytree(vault, fresh, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".engram"))
    index_vault(fresh, progress=False)
    assert canonical(vault) == canonical(fresh)


@pytest.mark.parametrize("bad", ['{"docs": 3}', "[]", '{"docs": [{"no": "passage"}]}'])
def test_import_openie_rejects_other_shapes(vault, write, tmp_path, bad):
    write("a.md", "# A\n\ntext")
    path = tmp_path / "openie-test.json"
    path.write_text(bad)
    with pytest.raises(Exception, match="openie-test.json"):
        Engine(vault).import_openie(path)


def test_import_openie_stores_triples_with_import_extractor(vault, write, tmp_path):
    write("p1.md", "# Paris\n\nParis is the capital of France.\n")
    write("p2.md", "# Berlin\n\nBerlin is in Germany.\n")
    path = tmp_path / "openie-gpt-test.json"
    path.write_text('{"docs": [{"passage": "Paris\\nParis is the capital of France.", "extracted_entities": ["Paris", "France", NaN],'
                    ' "extracted_triples": [["Paris", "capital of", "France"], ["bad", "triple"], ["Paris", "in", "Europe"]]},'
                    ' {"passage": "Nowhere\\nnot in the vault", "extracted_entities": NaN, "extracted_triples": []}]}')
    engine = Engine(vault)
    report = engine.import_openie(path)
    assert (report.model, report.matched, report.unmatched, report.dropped_triples) == ("gpt-test", 1, 1, 1)
    rows = ledger_rows(vault)
    assert rows["p1.md"].extractor == "import:gpt-test" and rows["p2.md"].extractor == "heuristic"
    quads = graph_of(vault, "p1.md")
    assert {"Paris | capital of | France", "Paris | in | Europe"} <= labels(quads)
    spans = {q.subject.value: q.object.value for q in quads if q.predicate == v.SPAN_START}
    europe = next(q.subject.value for q in quads if q.predicate == v.LABEL and q.object.value == "Paris | in | Europe")
    assert europe not in spans  # "Europe" is not in the note: no invented span
    assert index_vault(vault, progress=False).unchanged == 2  # imported triples survive a plain index run
    assert ledger_rows(vault)["p1.md"].extractor == "import:gpt-test"
