"""Entities and facts patched by the documents an edit touched equal the same rows grouped from scratch, whatever
names, aliases and relations the documents share, and however the tables reorder the rewritten documents' rows."""

from __future__ import annotations

import random

import numpy as np

import polars as pl
from polars.testing import assert_frame_equal

from engram_lab.index.grouping import group_entities, group_facts, patch_entities, patch_facts
from engram_lab.index.tables import SCHEMAS

# Surface names of five entities: an IRI's rows may spell it differently, so which row is "first" matters.
SPELLINGS = {"e:ana": ["Ana Ruiz", "ANA RUIZ", "ana ruiz"], "e:tom": ["Tom Hale"], "e:porto": ["Porto Velho", "Porto velho"],
             "e:lab": ["Kestrel Lab"], "e:orca": ["Orca Bay", "ORCA BAY"]}
PREDICATES = ["visited", "funded", "directed"]
BUCKETS = 3


def _document(rng: random.Random, doc_id: str) -> dict[str, list[dict[str, object]]]:
    named = rng.sample(sorted(SPELLINGS), rng.randint(1, 4))
    entities = [{"doc_id": doc_id, "entity_iri": iri, "name": rng.choice(SPELLINGS[iri]), "kind": "Person",
                 "aliases": rng.sample(["A", "B", "C"], rng.randint(0, 2)), "mentions": 1} for iri in named]
    relations = []
    for _ in range(rng.randint(0, 4)):
        # An object the document may not name itself, now and then a subject too (a fact whose entities no touched
        # document names, which only its key ties to the edit).
        a, b = rng.choice(named if rng.random() < 0.8 else sorted(SPELLINGS)), rng.choice(sorted(SPELLINGS))
        relations.append({"doc_id": doc_id, "subject_iri": a, "subject": rng.choice(SPELLINGS[a]), "predicate": rng.choice(PREDICATES),
                          "predicate_iri": "p", "object_iri": b, "object": rng.choice(SPELLINGS[b]), "cell_id": None,
                          "start": rng.randrange(100), "end": 100, "label": None, "date": None})
    if rng.random() < 0.3:  # a literal object: never a fact
        relations.append({**relations[0], "object_iri": None, "object": "42"} if relations else
                         {"doc_id": doc_id, "subject_iri": named[0], "subject": "x", "predicate": "is", "predicate_iri": "p",
                          "object_iri": None, "object": "42", "cell_id": None, "start": 0, "end": 1, "label": None, "date": None})
    return {"entities": entities, "relations": relations}


class Tables:
    """Rows in buckets as ``TableStore`` keeps them: a rewritten document's rows go to the end of its bucket."""

    def __init__(self) -> None:
        self.buckets: list[dict[str, list[dict[str, object]]]] = [{"entities": [], "relations": []} for _ in range(BUCKETS)]

    def apply(self, doc_id: str, rows: dict[str, list[dict[str, object]]] | None) -> None:
        bucket = self.buckets[int(doc_id[1:]) % BUCKETS]
        for table in ("entities", "relations"):
            bucket[table] = [row for row in bucket[table] if row["doc_id"] != doc_id] + (rows[table] if rows else [])

    def read(self, table: str) -> pl.DataFrame:
        return pl.DataFrame([row for bucket in self.buckets for row in bucket[table]], schema=SCHEMAS[table], orient="row")


def test_patched_entities_and_facts_equal_grouping_from_scratch():
    rng = random.Random(18)
    for trial in range(40):
        tables, docs = Tables(), [f"d{i}" for i in range(rng.randint(2, 9))]
        for doc in docs:
            tables.apply(doc, _document(rng, doc))
        entities = group_entities(tables.read("entities"))
        facts = group_facts(tables.read("relations"), entities)
        for step in range(6):
            touched = set(rng.sample(docs, rng.randint(1, min(3, len(docs)))))
            if rng.random() < 0.3:
                touched.add(f"d{100 + trial * 10 + step}")  # a new note
            for doc in sorted(touched):
                tables.apply(doc, None if rng.random() < 0.2 else _document(rng, doc))  # deleted, or rewritten
            rows, relations = tables.read("entities"), tables.read("relations")
            patched_entities, regrouped = patch_entities(entities, rows, touched)
            patched, entities_from = patched_entities
            patched_facts, facts_from = patch_facts(facts, entities, relations, patched_entities, touched, regrouped)
            _assert_kept_rows_stand(entities, patched, entities_from)
            _assert_kept_rows_stand(facts.drop("s", "o"), patched_facts.drop("s", "o"), facts_from)  # rows renumbered
            entities, facts = group_entities(rows), group_facts(relations, group_entities(rows))
            assert_frame_equal(patched, entities)
            assert_frame_equal(patched_facts, facts)


def _assert_kept_rows_stand(previous: pl.DataFrame, patched: pl.DataFrame, kept_from: np.ndarray) -> None:
    """Each kept row equals the previous row it names, and no previous row is named twice (vectors and neighbour
    lists are carried over by it)."""
    kept = np.flatnonzero(kept_from >= 0)
    assert np.unique(kept_from[kept]).size == kept.size
    assert_frame_equal(patched[kept], previous[kept_from[kept]])


def test_an_untouched_entity_keeps_the_name_its_first_row_gives():
    tables = Tables()
    first = {"entities": [{"doc_id": "d0", "entity_iri": "e:ana", "name": "Ana Ruiz", "kind": "Person", "aliases": [], "mentions": 1}],
             "relations": []}
    second = {"entities": [{"doc_id": "d3", "entity_iri": "e:ana", "name": "ANA RUIZ", "kind": "Person", "aliases": [], "mentions": 1}],
              "relations": []}
    tables.apply("d0", first)
    tables.apply("d3", second)  # the same bucket, after d0
    entities = group_entities(tables.read("entities"))
    assert entities["name"].to_list() == ["Ana Ruiz"]
    tables.apply("d0", first)  # rewritten unchanged: now after d3, so the first row spells it as d3 does
    (patched, _), _ = patch_entities(entities, tables.read("entities"), {"d0"})
    assert patched["name"].to_list() == ["ANA RUIZ"] == group_entities(tables.read("entities"))["name"].to_list()


def test_a_fact_an_edited_note_now_states_about_entities_it_does_not_name_gains_that_note():
    """Neither entity is regrouped (no touched note names them): only the fact's key ties it to the edit."""
    def relation(doc_id: str) -> dict[str, object]:
        return {"doc_id": doc_id, "subject_iri": "e:ana", "subject": "Ana Ruiz", "predicate": "visited", "predicate_iri": "p",
                "object_iri": "e:porto", "object": "Porto Velho", "cell_id": None, "start": 0, "end": 9, "label": None, "date": None}

    def entity(doc_id: str, iri: str) -> dict[str, object]:
        return {"doc_id": doc_id, "entity_iri": iri, "name": SPELLINGS[iri][0], "kind": "Person", "aliases": [], "mentions": 1}

    tables = Tables()
    tables.apply("d0", {"entities": [entity("d0", "e:ana"), entity("d0", "e:porto")], "relations": [relation("d0")]})
    tables.apply("d1", {"entities": [entity("d1", "e:lab")], "relations": []})
    entities = group_entities(tables.read("entities"))
    facts = group_facts(tables.read("relations"), entities)
    tables.apply("d1", {"entities": [entity("d1", "e:lab")], "relations": [relation("d1")]})
    rows, relations = tables.read("entities"), tables.read("relations")
    patched_entities, regrouped = patch_entities(entities, rows, {"d1"})
    patched_facts, _ = patch_facts(facts, entities, relations, patched_entities, {"d1"}, regrouped)
    assert_frame_equal(patched_facts, group_facts(relations, group_entities(rows)))
    assert patched_facts["doc_ids"].to_list() == [["d0", "d1"]]
