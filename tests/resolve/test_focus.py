"""What an incremental analysis re-scores: entity digests move with every input of a pair's evidence and with
nothing else, and the view's relation neighbours equal a pairwise reference."""

from __future__ import annotations

import random

import polars as pl
import pytest
from polars.testing import assert_series_equal

from engram_lab.graph.vocabulary import entity_iri
from engram_lab.resolve.evidence import Expansions
from engram_lab.resolve.focus import (_sorted_lists, entity_digests, keep_recorded, keep_stored_digests, moved_entities, record_digests,
                                      stored_digests)
from engram_lab.state.db import open_ledger, transaction
from tests.resolve.helpers import view_of

BASE = [("d1", "Marta Hall", "Person"), ("d2", "Mill Reach", "Place"), ("d1", "Acme Corp", "Organization"),
        ("d3", "Hall", "Person"), ("d4", "Northern Estuary Research Institute", "Organization"), ("d5", "NERI", "Organization")]
RELATIONS = [("d1", "Marta Hall", "Person", "Acme Corp", "Organization")]


def as_dict(frame) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Entity IRI -> digest as the ledger writes it (hex)."""
    return {iri: f"{digest:016x}" for iri, digest in zip(frame["entity_iri"].to_list(), frame["digest"].to_list())}


def digest_frame(entities=BASE, relations=RELATIONS, aliases=None):  # type: ignore[no-untyped-def]
    view = view_of(entities, relations, aliases)
    return entity_digests(view, Expansions(view))


def digests(entities=BASE, relations=RELATIONS, aliases=None):  # type: ignore[no-untyped-def]
    return as_dict(digest_frame(entities, relations, aliases))


def moved(after: dict[str, str]) -> set[str]:
    before = digests()
    return {iri for iri in before.keys() | after.keys() if before.get(iri) != after.get(iri)}


def iri(name: str, kind: str) -> str:
    return entity_iri(name, kind)


def test_digests_are_stable_and_each_input_moves_only_what_reads_it():
    assert digests() == digests()
    marta, acme, hall = iri("Marta Hall", "Person"), iri("Acme Corp", "Organization"), iri("Hall", "Person")
    neri, institute = iri("NERI", "Organization"), iri("Northern Estuary Research Institute", "Organization")
    # a second note: its doc set, and the spelling's note count
    assert moved(digests([*BASE, ("d9", "Acme Corp", "Organization")])) == {acme}
    # an alias
    assert moved(digests(aliases={"Mill Reach": ["the Reach"]})) == {iri("Mill Reach", "Place")}
    # a relation: both ends' neighbours
    assert moved(digests(relations=[])) == {marta, acme}
    # a new long name ending in "Hall": the surname "Hall" now has two expansions to count
    assert moved(digests([*BASE, ("d6", "Jon Hall", "Person")])) == {hall, iri("Jon Hall", "Person")}
    # a second expansion of the acronym
    assert moved(digests([*BASE, ("d7", "North East Rail Inspectorate", "Organization")])) == {neri, iri("North East Rail Inspectorate", "Organization")}
    # the same spelling under another kind: how many notes write it, counted over every kind
    assert moved(digests([*BASE, ("d8", "Mill Reach", "Organization")])) == {iri("Mill Reach", "Place"), iri("Mill Reach", "Organization")}
    assert institute not in moved(digests([*BASE, ("d7", "North East Rail Inspectorate", "Organization")]))


def test_view_neighbours_equal_a_pairwise_reference():
    rng = random.Random(5)
    names = [(f"Name{i} Person", "Person") for i in range(12)]
    for _ in range(30):
        entities = [(f"d{rng.randrange(4)}", *rng.choice(names)) for _ in range(10)]
        relations = [(f"d{rng.randrange(4)}", *rng.choice(names), *rng.choice(names)) for _ in range(8)]
        view = view_of(entities, relations)
        want = [set() for _ in range(view.size)]
        for _, s, sk, o, ok in relations:
            a, b = view.index.get(iri(s, sk)), view.index.get(iri(o, ok))
            if a is not None and b is not None and a != b:
                want[a].add(b)
                want[b].add(a)
        assert [set(n) for n in view.neighbours] == want
        assert view.frame["neighbour_iris"].to_list() == [sorted(view.iris[j] for j in n) for n in want]
        asked = view_of(entities, relations).neighbours  # row by row, as a focused pass asks: a binary search each
        assert all(set(asked[row]) == want[row] for row in range(view.size)) and asked._all is None


def test_neighbour_rows_found_one_by_one_equal_those_built_at_once(monkeypatch):
    from engram_lab.resolve.entities import NeighbourRows

    rng = random.Random(9)
    names = [(f"Name{i} Person", "Person") for i in range(30)]
    entities = [(f"d{rng.randrange(6)}", *rng.choice(names)) for _ in range(40)]
    relations = [(f"d{rng.randrange(6)}", *rng.choice(names), *rng.choice(names)) for _ in range(60)]
    whole = [set(n) for n in view_of(entities, relations).neighbours]  # iteration builds every row's at once
    view = view_of(entities, relations)
    order = rng.sample(range(view.size), view.size)
    assert {row: set(view.neighbours[row]) for row in order} == dict(enumerate(whole)) and view.neighbours._all is None
    monkeypatch.setattr(NeighbourRows, "EAGER_AFTER", 5)  # a full pass asks for many: built at once after a few
    eager = view_of(entities, relations).neighbours
    assert [set(eager[row]) for row in order] == [whole[row] for row in order] and eager._all is not None


def test_focus_rows_are_the_moved_entities_and_every_entity_of_a_changed_note():
    from engram_lab.resolve.run import focus_rows

    rng = random.Random(11)
    names = [(f"Name{i} Person", "Person") for i in range(15)]
    for _ in range(30):
        view = view_of([(f"d{rng.randrange(6)}", *rng.choice(names)) for _ in range(20)])
        moved_iris = set(rng.sample(view.iris, rng.randrange(3))) | {"urn:engram:entity:person:gone"}
        changed = {f"d{rng.randrange(8)}" for _ in range(rng.randrange(3))}
        want = {i for i, (entity, docs) in enumerate(zip(view.iris, view.doc_sets)) if entity in moved_iris or docs & changed}
        assert focus_rows(view, moved_iris, changed) == want


def _recorded_table(conn) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return dict(conn.execute("SELECT entity_iri, digest FROM analysed_entities").fetchall())


def test_recorded_digests_are_kept_in_the_process_until_another_writer_moves_them(vault):
    conn, other = open_ledger(vault), open_ledger(vault)
    try:
        first = digest_frame()
        with transaction(conn):
            recorded = record_digests(conn, stored_digests(conn), first, None, set())
        keep_recorded(conn, recorded)
        kept = stored_digests(conn)
        assert as_dict(kept) == as_dict(first) == _recorded_table(conn) and stored_digests(conn) is kept  # not read back
        second = digest_frame([*BASE[:-1], ("d9", "Acme Corp", "Organization")])  # NERI's note deleted, Acme in another
        moved, gone = moved_entities(kept, second)
        assert gone == {iri("NERI", "Organization")} and moved == {iri("Acme Corp", "Organization")}
        with transaction(other):  # another process records (and does not tell this one)
            record_digests(other, stored_digests(other), second, moved, gone)
        assert as_dict(stored_digests(conn)) == as_dict(second) == _recorded_table(conn)
    finally:
        conn.close()
        other.close()


def test_what_a_process_keeps_after_a_record_equals_what_the_ledger_holds(vault):
    """Recorded in this process and kept (not read back): the moved rows replaced, the gone ones dropped, the rest
    as they were, exactly what a new process would read."""
    conn = open_ledger(vault)
    try:
        first, second = digest_frame(), digest_frame([*BASE[:-1], ("d9", "Acme Corp", "Organization"), ("d6", "Jon Hall", "Person")])
        with transaction(conn):
            keep = record_digests(conn, stored_digests(conn), first, None, set())
        keep_recorded(conn, keep)
        moved, gone = moved_entities(stored_digests(conn), second)
        assert moved == {iri("Acme Corp", "Organization"), iri("Jon Hall", "Person"), iri("Hall", "Person")}
        with transaction(conn):
            keep = record_digests(conn, stored_digests(conn), second, moved, gone)
        keep_recorded(conn, keep)
        assert as_dict(stored_digests(conn)) == as_dict(second) == _recorded_table(conn)
        assert moved_entities(stored_digests(conn), second) == (set(), set())
    finally:
        conn.close()


def test_digests_kept_at_warm_up_are_read_once_and_dropped_when_another_writer_moves_them(vault):
    conn, other = open_ledger(vault), open_ledger(vault)
    try:
        first = digest_frame()
        with transaction(other):
            record_digests(other, stored_digests(other), first, None, set())
        keep_stored_digests(conn)  # a long-lived process warming up: the ledger read once
        kept = stored_digests(conn)
        assert as_dict(kept) == as_dict(first) == _recorded_table(conn) and stored_digests(conn) is kept
        second = digest_frame([*BASE[:-1], ("d9", "Acme Corp", "Organization")])
        with transaction(other):
            record_digests(other, stored_digests(other), second, *moved_entities(first, second))
        assert as_dict(stored_digests(conn)) == as_dict(second) == _recorded_table(conn)
    finally:
        conn.close()
        other.close()


def test_a_rolled_back_record_is_never_kept(vault):
    conn = open_ledger(vault)
    try:
        first = digest_frame()
        with pytest.raises(RuntimeError):
            with transaction(conn):
                record_digests(conn, stored_digests(conn), first, None, set())
                raise RuntimeError("the analysis failed before committing")
        assert as_dict(stored_digests(conn)) == {} == _recorded_table(conn)
    finally:
        conn.close()


def test_a_focus_holding_most_of_the_vault_runs_as_the_full_pass(vault, write, monkeypatch):
    from engram_lab.indexer import index_vault
    from engram_lab.resolve import run
    from engram_lab.state.documents import DocumentTable

    for i, (person, org) in enumerate([("Marta Hall", "Acme Corp"), ("Ivo Berg", "Delta Labs"), ("Ana Ruiz", "Kite Works")]):
        write(f"n{i}.md", f"# Note {i}\n\n{person} works for {org}.\n")
    index_vault(vault, progress=False)
    conn = open_ledger(vault)
    try:
        docs = {row.doc_id for row in DocumentTable(conn).all()}
    finally:
        conn.close()
    focuses: list = []
    real = run.score_candidates
    monkeypatch.setattr(run, "score_candidates", lambda view, focus, *rest: focuses.append(focus) or real(view, focus, *rest))
    run.analyse_vault(vault, changed_docs=docs)  # a first run: every note is new
    run.analyse_vault(vault, changed_docs={sorted(docs)[0]})
    assert focuses[0] is None and 0 < len(focuses[1]) <= 3  # the one note's entities


def test_label_embedding_neighbours_come_from_the_published_index_in_process_and_from_disk(vault, write):
    from engram_lab.index.recent import forget
    from engram_lab.index.retrieval_index import refresh_retrieval_index
    from engram_lab.indexer import index_vault
    from engram_lab.resolve.run import embedding_neighbours, load_tables
    from tests.retrieve.test_searcher import BagOfWordsEmbedder

    write("a.md", "# Suppliers\n\nMarta Hall works for Acme Corp.\n")
    write("b.md", "# Vendors\n\nIvo Berg works for Acme Corp Ltd.\n")
    index_vault(vault, progress=False)
    view = load_tables(vault).view
    assert embedding_neighbours(vault, view) == {}  # no retrieval index yet
    refresh_retrieval_index(vault, BagOfWordsEmbedder())
    position = {iri: i for i, iri in enumerate(view.iris)}
    acme, ltd = position[iri("Acme Corp", "Organization")], position[iri("Acme Corp Ltd", "Organization")]
    pair = (min(acme, ltd), max(acme, ltd))
    in_process = embedding_neighbours(vault, view)
    assert in_process[pair] == pytest.approx(2 / 6 ** 0.5, rel=1e-5)  # two words of three shared
    forget()
    assert embedding_neighbours(vault, view) == in_process
    assert set(embedding_neighbours(vault, view, {acme})) == {p for p in in_process if acme in p}


@pytest.mark.parametrize("seed", range(30))
def test_index_pairs_map_to_ours_as_a_dictionary_of_iris_would_and_a_focus_keeps_those_touching_it(seed):
    from engram_lab.resolve.run import index_pairs_as_ours

    rng = random.Random(seed)
    ours = [f"e{i}" for i in rng.sample(range(60), rng.randint(0, 30))]
    index = rng.sample(ours, rng.randint(0, len(ours))) + [f"x{i}" for i in range(rng.randint(0, 5))]  # some not ours
    rng.shuffle(index)
    pairs = sorted({(a, b) for a, b in ((rng.randrange(len(index)), rng.randrange(len(index))) for _ in range(rng.randint(0, 80))
                                        if index) if a < b})
    frame = pl.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs], "cosine": [rng.random() for _ in pairs]},
                         schema={"a": pl.Int64, "b": pl.Int64, "cosine": pl.Float64})
    position = {iri: i for i, iri in enumerate(ours)}
    expected = {}
    for a, b, cosine in frame.iter_rows():
        x, y = position.get(index[a]), position.get(index[b])
        if x is not None and y is not None and x != y:
            expected[(min(x, y), max(x, y))] = cosine
    found = index_pairs_as_ours(frame, pl.Series(index, dtype=pl.String), pl.Series(ours, dtype=pl.String))
    assert found == expected and list(found) == list(expected)  # the pairs' order too
    focus = set(rng.sample(range(len(ours)), rng.randint(0, len(ours))))
    focused = index_pairs_as_ours(frame, pl.Series(index, dtype=pl.String), pl.Series(ours, dtype=pl.String), focus)
    assert list(focused.items()) == [(p, c) for p, c in expected.items() if p[0] in focus or p[1] in focus]


def test_lists_are_sorted_as_list_sort_sorts_them():
    rng = random.Random(11)
    for _ in range(50):
        lists = [None if rng.random() < 0.05 else [rng.choice(["a", "b", "c", "d", "e", None]) for _ in range(rng.choice([0, 1, 1, 2, 3, 5]))]
                 for _ in range(rng.randint(0, 40))]
        series = pl.Series("labels", lists, dtype=pl.List(pl.String))
        assert_series_equal(_sorted_lists(series), series.list.sort())
