"""The entity view patched from the one a process built last equals the view built whole from the tables, after
random rewrites (identical ones included: they move a note's rows), deletions and new notes."""

from __future__ import annotations

import random

import pytest
from polars.testing import assert_frame_equal

import engram_lab.resolve.entities as entities_module
from engram_lab.index.tables import DocumentRows, TableStore
from engram_lab.resolve.entities import entity_view, table_entity_view
from tests.index.test_grouping import _document


def _doc_id(n: int) -> str:
    return f"{n % 5:04x}{n:012x}"  # hex like real ids; five buckets, several notes in each (their order matters)


def _apply(store: TableStore, changes: dict[str, dict[str, list[dict[str, object]]] | None]) -> None:
    out: dict[str, DocumentRows | None] = {}
    for doc, rows in changes.items():
        out[doc] = None if rows is None else DocumentRows({"documents": [], "segments": [], "mentions": [], "statements": [], **rows})
    store.apply(out)


def _assert_equal(patched, whole) -> None:  # type: ignore[no-untyped-def]
    assert_frame_equal(patched.frame, whole.frame)
    assert list(patched.neighbours) == list(whole.neighbours)


@pytest.mark.parametrize("seed", range(6))
def test_a_patched_view_equals_the_view_built_whole(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    patches = []
    real = entities_module.patched_entity_view
    monkeypatch.setattr(entities_module, "patched_entity_view", lambda *args: patches.append(1) or real(*args))
    store = TableStore(tmp_path / f"tables-{seed}")
    docs: dict[str, dict[str, list[dict[str, object]]]] = {_doc_id(i): {} for i in range(40)}
    for doc in docs:
        docs[doc] = _document(rng, doc)
    _apply(store, dict(docs))
    _assert_equal(table_entity_view(store), entity_view(store.read("entities"), store.read("relations")))
    for step in range(12):
        changes: dict[str, dict[str, list[dict[str, object]]] | None] = {}
        for doc in rng.sample(sorted(docs), rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.2:
                changes[doc] = None
                del docs[doc]
            else:  # rewritten, or written again as it was (its rows move to the end of its bucket)
                docs[doc] = docs[doc] if roll < 0.4 else _document(rng, doc)
                changes[doc] = docs[doc]
        if rng.random() < 0.3:
            new = _doc_id(100 + step)
            docs[new] = changes[new] = _document(rng, new)
        _apply(store, changes)
        _assert_equal(table_entity_view(store), entity_view(store.read("entities"), store.read("relations")))
    assert len(patches) >= 10  # the patch ran (a step over the patch share would have built whole)


def test_a_view_read_twice_with_nothing_rewritten_shares_its_frame_but_not_what_callers_derive(tmp_path):
    store = TableStore(tmp_path / "tables")
    rng = random.Random(1)
    _apply(store, {_doc_id(i): _document(rng, _doc_id(i)) for i in range(5)})
    first, second = table_entity_view(store), table_entity_view(store)
    assert first.frame is second.frame and first is not second
    first.name_keys  # derived on the caller's view only
    assert "name_keys" not in second.__dict__ and "name_keys" not in entities_module._KEPT.get(store.base)[2].__dict__


def _named(doc: str, *iris: str) -> list[dict[str, object]]:
    return [{"doc_id": doc, "entity_iri": iri, "name": iri[2:].title(), "kind": "Place", "aliases": [], "mentions": 1} for iri in iris]


def _link(doc: str, subject: str, obj: str) -> dict[str, object]:
    return {"doc_id": doc, "subject_iri": subject, "subject": subject, "predicate": "near", "predicate_iri": "p",
            "object_iri": obj, "object": obj, "cell_id": None, "start": 0, "end": 1, "label": None, "date": None}


def test_an_entity_that_goes_or_comes_leaves_or_enters_the_neighbours_of_notes_nobody_edited(tmp_path):
    """A note links Porto to Orca Bay but only another note names Orca Bay: deleting that note drops Orca Bay from
    Porto's neighbours, though Porto's note did not change; writing it again brings it back."""
    store = TableStore(tmp_path / "tables")
    a, b = _doc_id(1), _doc_id(2)
    orca_note = {"entities": _named(b, "e:orca"), "relations": []}
    _apply(store, {a: {"entities": _named(a, "e:porto"), "relations": [_link(a, "e:porto", "e:orca")]}, b: orca_note})
    assert table_entity_view(store).frame["neighbour_iris"].to_list() == [["e:porto"], ["e:orca"]]
    for change in (None, orca_note):
        _apply(store, {b: change})
        _assert_equal(table_entity_view(store), entity_view(store.read("entities"), store.read("relations")))


def test_labels_and_documents_read_by_row_equal_the_whole_column(tmp_path):
    store = TableStore(tmp_path / "tables")
    rng = random.Random(4)
    _apply(store, {_doc_id(i): _document(rng, _doc_id(i)) for i in range(12)})
    view = table_entity_view(store)
    labels, docs = view.frame["labels"].to_list(), view.frame["doc_ids"].to_list()
    for row in reversed(range(view.size)):  # any order, each row converted once and remembered
        assert view.labels[row] == list(labels[row] or []) and view.doc_sets[row] == frozenset(docs[row] or [])
        assert view.labels[row] is view.labels[row]
    assert list(view.labels) == [list(x or []) for x in labels] and len(view.doc_sets) == view.size
