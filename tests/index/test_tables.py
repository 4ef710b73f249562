"""Bucketed Parquet tables: replace and remove one document's rows without touching others."""

from __future__ import annotations

import polars as pl

from engram_lab.index.tables import SCHEMAS, DocumentRows, TableStore, bucket_of, rewritten_docs


def rows(doc_id: str, name: str) -> DocumentRows:
    out = DocumentRows()
    out.rows["documents"].append({"doc_id": doc_id, "path": f"{name}.md", "iri": f"urn:engram:doc:{doc_id}", "title": name,
                                  "kind": "markdown", "status": "indexed", "author": "a", "extractor": "heuristic",
                                  "extractor_version": "1", "model": None, "content_hash": "h"})
    out.rows["entities"].append({"doc_id": doc_id, "entity_iri": f"urn:e:{name}", "name": name, "kind": "Concept", "aliases": [], "mentions": 1})
    return out


def test_apply_replace_and_remove(tmp_path):
    store = TableStore(tmp_path)
    ids = ["0000aaaa", "0001bbbb", "0002cccc"]
    store.apply({doc_id: rows(doc_id, f"n{i}") for i, doc_id in enumerate(ids)})
    assert sorted(store.read("entities")["name"].to_list()) == ["n0", "n1", "n2"]
    store.apply({ids[0]: rows(ids[0], "renamed"), ids[1]: None})
    assert sorted(store.read("entities")["name"].to_list()) == ["n2", "renamed"]
    assert sorted(store.read("documents")["doc_id"].to_list()) == [ids[0], ids[2]]
    assert set(store.read("relations").columns) == set(SCHEMAS["relations"])
    assert len({bucket_of(i) for i in ids}) == 3


def test_rewritten_docs_are_those_whose_rows_moved_in_content_or_order():
    old = pl.DataFrame({"doc_id": ["a", "a", "b", "c"], "x": [1, 2, 3, 4]})
    assert rewritten_docs(old, old) == set()
    assert rewritten_docs(old, pl.DataFrame({"doc_id": ["a", "a", "c", "b"], "x": [1, 2, 4, 3]})) == {"b"}  # b written again
    assert rewritten_docs(old, pl.DataFrame({"doc_id": ["a", "a", "c", "b"], "x": [1, 2, 4, 5]})) == {"b"}
    assert rewritten_docs(old, pl.DataFrame({"doc_id": ["a", "a", "c"], "x": [1, 2, 4]})) == {"b"}  # deleted
    assert rewritten_docs(old, pl.DataFrame({"doc_id": ["a", "a", "b", "c", "d"], "x": [1, 2, 3, 4, 9]})) == {"d"}  # new
    assert rewritten_docs(old, pl.DataFrame({"doc_id": ["b", "c", "a"], "x": [3, 4, 1]})) == {"a"}  # a lost a row
    assert rewritten_docs(pl.DataFrame(schema=old.schema), old) == {"a", "b", "c"}
    interleaved = pl.DataFrame({"doc_id": ["a", "b", "a", "b"], "x": [1, 3, 2, 4]})  # never written so, never trusted
    assert rewritten_docs(interleaved, pl.DataFrame({"doc_id": ["a", "a", "b", "b"], "x": [1, 2, 3, 4]})) == {"a", "b"}
