"""The local graph around a note or an entity (issue 21, item 4): typed edges, node kinds, depth 1 or 2, a cap
that keeps the strongest nodes, one clear error for a bad centre or depth."""

from __future__ import annotations

import polars as pl
import pytest

from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.index.retrieval_index import load, published_retrieval_index
from engram_lab.retrieve.graph import EDGE_TYPES
from engram_lab.retrieve.local_graph import find_centre, local_graph
from engram_lab.sample import copy_sample_vault

REVIEW = "meetings/2026-03-18-sensor-review.md"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    vault = copy_sample_vault(tmp_path_factory.mktemp("local-graph") / "vault")
    Engine(vault).index(progress=False)
    return load(published_retrieval_index(vault))


def _touching(graph, node_id):
    return {e["target"] if e["source"] == node_id else e["source"] for e in graph["edges"] if node_id in (e["source"], e["target"])}


def test_a_note_at_depth_one_is_its_links_and_entities_each_tied_to_it(data):
    graph = local_graph(data, REVIEW, depth=1)
    centre = graph["nodes"][0]
    assert centre["path"] == REVIEW and centre["depth"] == 0 and centre["kind"] == "note" and graph["centre"] == centre["id"]
    ids = [n["id"] for n in graph["nodes"]]
    assert len(ids) == len(set(ids)) and {n["depth"] for n in graph["nodes"][1:]} == {1}
    assert _touching(graph, centre["id"]) == set(ids) - {centre["id"]}, "every depth-1 node is tied to the centre"
    paths = {n["path"] for n in graph["nodes"] if n["kind"] == "note"}
    assert "meetings/2026-01-14-kickoff.md" in paths and "index.md" in paths  # links out and back
    assert {"link", "mention"} <= set(graph["edge_types"]) <= set(EDGE_TYPES)
    assert "note" in graph["node_kinds"] and len(graph["node_kinds"]) > 1  # notes and the entities' own kinds
    assert graph["edge_types"] == sorted({e["type"] for e in graph["edges"]})
    assert not graph["capped"] and graph["shown"] == graph["total"] == len(ids)


def test_a_notebook_is_one_node_however_many_cells(data):
    graph = local_graph(data, "notebooks/freshet-exploration.ipynb")
    paths = [n["path"] for n in graph["nodes"] if n["path"]]
    assert len(paths) == len(set(paths))
    assert all(e["source"] != e["target"] for e in graph["edges"])


def test_an_entity_at_depth_two_reaches_through_its_neighbours(data):
    one, two = local_graph(data, "entity:AquaSense", depth=1), local_graph(data, "entity:AquaSense", depth=2)
    assert one["nodes"][0]["type"] == "entity" and one["nodes"][0]["kind"] == "Organization"
    assert {n["id"] for n in one["nodes"]} < {n["id"] for n in two["nodes"]}
    depth_one = {n["id"] for n in two["nodes"] if n["depth"] == 1}
    for node in (n for n in two["nodes"] if n["depth"] == 2):
        assert _touching(two, node["id"]) & depth_one, f"{node['label']} reached through no depth-1 node"
    relation = [e for e in two["edges"] if e["type"] == "relation"]
    assert relation and any(e.get("label") == "Vendor" for e in relation)  # the predicate, for the edge's tooltip


def test_the_cap_keeps_the_strongest_depth_one_nodes_first(data):
    full = local_graph(data, "Priya Raman", depth=2)
    capped = local_graph(data, "Priya Raman", depth=2, limit=6)
    assert full["total"] > 6 and capped["shown"] == 6 and capped["capped"] and capped["total"] == full["total"]
    kept = {n["id"] for n in capped["nodes"]}
    dropped = [n for n in full["nodes"] if n["id"] not in kept]
    for node in capped["nodes"][1:]:
        for other in dropped:
            assert (node["depth"], -node["score"]) <= (other["depth"], -other["score"])
    assert all(e["source"] in kept and e["target"] in kept for e in capped["edges"])


def test_synonyms_and_judged_edges_are_typed_edges(data):
    a, b = (int(x) for x in data.synonym_pairs.sort("cosine", descending=True).row(0)[:2])
    graph = local_graph(data, data.entity_node(a), synonym_threshold=0.8)
    assert any(e["type"] == "synonym" and {e["source"], e["target"]} == {data.entity_node(a), data.entity_node(b)}
               for e in graph["edges"])
    far = next(i for i in range(data.n_entities) if data.entity_node(i) not in {n["id"] for n in graph["nodes"]})
    judged = pl.DataFrame({"src": [data.entity_node(a)], "dst": [data.entity_node(far)], "type": ["hierarchy"], "weight": [1.0]})
    with_judged = local_graph(data, data.entity_node(a), judged=judged)
    assert data.entity_node(far) in {n["id"] for n in with_judged["nodes"]}


def test_names_resolve_to_notes_first_then_entities_and_aliases(data):
    def path(name):
        return data.documents["path"][find_centre(data, name)]

    def entity(name):
        node = find_centre(data, name)
        assert node >= data.n_passages, f"{name} should be an entity"
        return data.entities["name"][node - data.n_passages], data.entities["kind"][node - data.n_passages]

    assert path("people/marta-hall") == path("People/Marta-Hall.md") == "people/marta-hall.md"
    assert path("2026-03-18 SENSOR REVIEW") == path("AquaSense").replace("orgs/aquasense.md", REVIEW) == REVIEW
    assert entity("entity:AquaSense") == ("AquaSense", "Organization")  # the prefix asks for the entity, not the note
    assert entity("AS-5")[0] == "AS-5" and entity("dr. okafor")[0] == "Amara Okafor"  # a name, an alias
    assert entity("Entity: Priya Raman") == ("Priya Raman", "Person")  # a Person and a Concept share the name
    with pytest.raises(EngramError, match="no note called 'AS-5'"):
        find_centre(data, "note:AS-5")


@pytest.mark.parametrize(("centre", "depth", "message"), [
    ("no/such-note.md", 1, "no note or entity called 'no/such-note.md'"),
    (REVIEW, 0, "depth must be 1 or 2, got 0"),
    (REVIEW, 5, "depth must be 1 or 2, got 5"),
    (10**6, 1, "node 1000000 is not in the retrieval index"),
])
def test_bad_input_is_one_clear_line(data, centre, depth, message):
    with pytest.raises(EngramError, match=message) as caught:
        local_graph(data, centre, depth=depth)
    assert "\n" not in str(caught.value)


def test_a_limit_below_two_is_refused(data):
    with pytest.raises(EngramError, match="limit must be at least 2"):
        local_graph(data, REVIEW, limit=1)
