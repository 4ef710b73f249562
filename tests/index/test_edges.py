"""The walk's typed edges, built by column operations, equal a row-by-row reference on random inputs: relations and
is-a facts, self-loops, link facts left out, repeated mentions summed, notes about the entities their titles name,
note links."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

from engram_lab.graph import vocabulary as v
from engram_lab.index.note_links import NoteLinkResolver
from engram_lab.index.retrieval_index import EDGE_TYPE, NeighbourSets, _edges, labels_of
from engram_lab.retrieve.graph import EDGE_TYPES

NAMES = ["Marta Hall", "Mill Reach", "Acme Corp", "Oslo", "marta hall", "Port Kalo", "Tide Gauge", "Zoë Ångström",
         "ZOË ångström", "Straße 9"]
PREDICATES = [v.IS_A.value, v.LINKS_TO.value, "urn:p:works-for", "urn:p:located-in"]


def reference(documents, facts, raw_entities, links, entities) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    """The loop the column version replaced."""
    n_pass = documents.height
    position = {doc_id: i for i, doc_id in enumerate(documents["doc_id"].to_list())}
    entity_index = {iri: i for i, iri in enumerate(entities["entity_iri"].to_list())}
    entity_names = entities["name"].to_list()
    rows: list[tuple[int, int, str]] = []
    for s, o, predicate in zip(facts["s"].to_list(), facts["o"].to_list(), facts["predicate_iri"].to_list()):
        if s != o and predicate == v.IS_A.value:
            rows.append((n_pass + s, n_pass + o, "hierarchy"))
        elif s != o and predicate != v.LINKS_TO.value:
            rows.append((n_pass + s, n_pass + o, "relation"))
    for doc_id, iri in zip(raw_entities["doc_id"].to_list(), raw_entities["entity_iri"].to_list()):
        if iri in entity_index:
            rows.append((position[doc_id], n_pass + entity_index[iri], "mention"))
    named: dict[str, list[int]] = {}
    for index, name in enumerate(entity_names):
        named.setdefault(v.normalise_label(name), []).append(index)
    for i, title in enumerate(documents["title"].to_list()):
        rows.extend((i, n_pass + entity, "about") for entity in named.get(v.normalise_label(title), ()))
    resolve = NoteLinkResolver(documents["title"].to_list(), documents["path"].to_list())
    for doc_id, target in zip(links["doc_id"].to_list(), links["object"].to_list()):
        other = resolve(target or "")
        if other is not None and other != position[doc_id]:
            rows.append((position[doc_id], other, "link"))
    frame = pl.DataFrame({"src": [r[0] for r in rows], "dst": [r[1] for r in rows], "type": [r[2] for r in rows],
                          "weight": [1.0] * len(rows)}, schema={"src": pl.Int64, "dst": pl.Int64, "type": pl.String, "weight": pl.Float64})
    grouped = frame.group_by(["src", "dst", "type"]).agg(pl.col("weight").sum()).sort(["type", "src", "dst"])
    return grouped.cast({"type": EDGE_TYPE})  # sorted as strings: the Enum's order must be the same


def _inputs(rng: random.Random):  # type: ignore[no-untyped-def]
    n_docs, n_entities = rng.randint(1, 6), len(NAMES)
    doc_ids = [f"doc{i}" for i in range(n_docs)]
    documents = pl.DataFrame({"doc_id": doc_ids, "title": [rng.choice([*NAMES, "Notes"]) for _ in doc_ids],
                              "path": [f"n{i}.md" for i in range(n_docs)]})
    facts = pl.DataFrame({"s": [rng.randrange(n_entities) for _ in range(12)], "o": [rng.randrange(n_entities) for _ in range(12)],
                          "predicate_iri": [rng.choice(PREDICATES) for _ in range(12)]}, schema={"s": pl.Int64, "o": pl.Int64, "predicate_iri": pl.String})
    iris = [f"urn:e{i}" for i in range(n_entities)]
    raw = pl.DataFrame({"doc_id": [rng.choice(doc_ids) for _ in range(15)],
                        "entity_iri": [rng.choice([*iris, "urn:unknown"]) for _ in range(15)]})
    links = pl.DataFrame({"doc_id": [rng.choice(doc_ids) for _ in range(4)],
                          "object": [rng.choice(["n0.md", "n1", "Notes", None, "elsewhere"]) for _ in range(4)]},
                         schema={"doc_id": pl.String, "object": pl.String})
    return documents, facts, raw, links, pl.DataFrame({"entity_iri": iris, "name": NAMES})


def test_edges_equal_the_row_by_row_reference():
    rng = random.Random(7)
    for _ in range(200):
        inputs = _inputs(rng)
        assert_frame_equal(_edges(*inputs), reference(*inputs))


def test_a_vault_without_facts_still_has_its_mention_edges():
    """A vault whose notes hold no relation yet (only pending notes, say) passes an empty facts frame, whose columns
    polars may type as strings."""
    rng = random.Random(1)
    documents, _, raw, links, entities = _inputs(rng)
    for dtype in (pl.String, pl.Int64):
        facts = pl.DataFrame({"s": [], "o": [], "predicate_iri": []}, schema={"s": dtype, "o": dtype, "predicate_iri": pl.String})
        edges = _edges(documents, facts, raw, links, entities)
        assert_frame_equal(edges, reference(documents, facts, raw, links, entities), check_dtypes=False)
        assert edges.filter(pl.col("type") == "mention").height > 0


def test_entity_adjacency_sets_equal_the_edge_by_edge_loop_in_iteration_order_too():
    """The bridge search walks each set in its iteration order, so order is part of the contract."""
    rng = random.Random(7)
    for size in (0, 1, 5, 200, 3000):
        a = np.array([rng.randrange(400) for _ in range(size)], dtype=np.int64)
        b = np.array([rng.choice([x, rng.randrange(400)]) for x in a.tolist()], dtype=np.int64)  # self-loops too
        expected: dict[int, set[int]] = {}
        for x, y in zip(a.tolist(), b.tolist()):
            expected.setdefault(x, set()).add(y)
            expected.setdefault(y, set()).add(x)
        got = NeighbourSets(a, b)
        assert got == expected and len(got) == len(expected) and (size == 0 or -1 not in got)
        assert list(got) == list(expected) and all(list(got[k]) == list(expected[k]) for k in expected)


def test_the_edge_type_enum_holds_every_type_in_string_order():
    """Sorting by the Enum must give the order a string sort gave (saved indexes and tests compare row order)."""
    assert list(EDGE_TYPE.categories) == sorted(EDGE_TYPES)


def test_a_vault_with_no_edges_gives_an_empty_frame_of_the_same_columns():
    documents, facts, raw, links, entities = _inputs(random.Random(2))
    edges = _edges(documents, facts.clear(), raw.clear(), links.clear(), entities.clear())
    assert edges.is_empty() and edges.schema == _edges(documents, facts, raw, links, entities).schema


def test_labels_made_by_column_operations_equal_normalise_label():
    """ASCII texts are folded by column operations, the rest by ``normalise_label`` itself; both must agree with it
    on any text: punctuation runs, underscores, control characters, leading and trailing separators, accents,
    compatibility forms, case folds that change length."""
    rng = random.Random(11)
    alphabet = list("abcXYZ019 _-.,!?'\t\n()/&~\x00\x7f") + ["é", "ß", "İ", "ﬁ", "＿", "Ⅷ", "\u0301", "Ω"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(20000)]
    texts += ["Dr. A. Okafor", "", "---", "__init__", "ÉCOLE Normale", "straße"]
    assert labels_of(pl.Series(texts)).to_list() == [v.normalise_label(text) for text in texts]
    assert labels_of(pl.Series([], dtype=pl.String)).to_list() == []


def test_sorted_positions_answer_as_a_dictionary_of_the_column_does():
    from engram_lab.index.retrieval_index import SortedPositions, positions_of

    rng = random.Random(4)
    alphabet = ["a", "b", "Z", "é", "ß", "中", "-", "/", ":"]
    for size in (0, 1, 2, 7, 300):
        keys = sorted({"".join(rng.choices(alphabet, k=rng.randint(0, 6))) for _ in range(size)})
        positions = SortedPositions(pl.Series(keys, dtype=pl.String))
        expected = {key: row for row, key in enumerate(keys)}
        assert dict(positions) == expected and len(positions) == len(expected) and list(positions) == keys
        probes = [*keys, *("".join(rng.choices(alphabet, k=rng.randint(0, 6))) for _ in range(50)), 3, None]
        for probe in probes:
            assert (probe in positions) == (probe in expected)
            assert positions.get(probe) == expected.get(probe)
        found = {probe: expected[probe] for probe in probes if probe in expected}
        assert positions_of(positions, probes) == found == positions_of(expected, probes)  # one search, as a dict gives
