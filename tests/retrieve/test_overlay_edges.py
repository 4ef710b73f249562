"""Resolution judgments reach the retrieval graph without an index rebuild; a distinct cuts embedding synonyms."""

from __future__ import annotations

from engram_lab.engine import Engine
from engram_lab.retrieve.graph import adjacency
from engram_lab.resolve.overlay import judged_entities
from engram_lab.retrieve.overlay import blocked_synonyms, judged_present, load_overlay, overlay_edges
from engram_lab.retrieve.searcher import Searcher
from engram_lab.retrieve.settings import RetrievalSettings
from tests.retrieve.test_searcher import NOTES, BagOfWordsEmbedder


def _setup(vault, write, extra=None):
    for name, text in {**NOTES, **(extra or {})}.items():
        write(name, text)
    engine = Engine(vault)
    engine.index(progress=False)
    searcher = Searcher(vault, embedder_factory=BagOfWordsEmbedder)
    searcher.search("Ana Ruiz", k=3)  # builds and loads the retrieval index
    return engine, searcher


def _node(data, name):
    return data.entity_node(data.entities["name"].to_list().index(name))


def test_a_user_same_adds_a_synonym_edge_at_the_next_search(vault, write):
    engine, searcher = _setup(vault, write)
    data = searcher._data
    ana, tom = _node(data, "Ana Ruiz"), _node(data, "Tom Hale")
    settings = RetrievalSettings()
    assert adjacency(data, settings.edges, settings.synonym_threshold)[ana, tom] == 0
    engine.judge("Ana Ruiz", "Tom Hale", "same")
    snapshot = load_overlay(vault)
    edges = overlay_edges(data, snapshot)
    assert edges.filter(edges["type"] == "synonym").height == 1
    assert adjacency(data, settings.edges, settings.synonym_threshold, judged=edges)[ana, tom] > 0
    generation = snapshot.generation
    searcher.search("Ana Ruiz", k=3)
    assert searcher._current_overlay().generation == generation  # picked up by the live searcher


def test_distinct_removes_an_embedding_synonym(vault, write):
    airport = {"airport.md": "# Porto Velho Airport\n\nPorto Velho Airport is an airport in Rondonia.\n"}
    engine, searcher = _setup(vault, write, airport)  # 'Porto Velho' ~ 'Porto Velho Airport' for the test embedder
    data = searcher._data
    a, b = data.synonym_pairs.row(0)[:2] if data.synonym_pairs.height else (None, None)
    assert a is not None, "the test double should give at least one synonym pair"
    names = data.entities["name"].to_list()
    engine.judge(data.entities["entity_iri"][a], data.entities["entity_iri"][b], "distinct")
    blocked = blocked_synonyms(data, load_overlay(vault))
    assert (a, b) in blocked
    settings = RetrievalSettings()
    open_matrix = adjacency(data, settings.edges, -1.0, ("synonym",))
    cut = adjacency(data, settings.edges, -1.0, ("synonym",), blocked=blocked)
    assert open_matrix[data.entity_node(a), data.entity_node(b)] > 0, names
    assert cut[data.entity_node(a), data.entity_node(b)] == 0


def test_a_judgment_on_an_entity_gone_from_the_notes_leaves_the_graph_and_returns_with_it(vault, write):
    airport = {"airport.md": "# Porto Velho Airport\n\nPorto Velho Airport is an airport in Rondonia.\n"}
    engine, searcher = _setup(vault, write, airport)
    data = searcher._data
    a, b = data.synonym_pairs.row(0)[:2]
    iris = data.entities["entity_iri"].to_list()
    ghost = iris[data.entities["name"].to_list().index("Tom Hale")]
    engine.judge(iris[a], ghost, "same")  # a and Tom Hale are one; Tom Hale is not b
    engine.judge(ghost, iris[b], "distinct")
    assert (min(a, b), max(a, b)) in blocked_synonyms(data, load_overlay(vault))  # a's cluster is apart from b
    other = vault / "other.md"
    text = other.read_text()
    other.unlink()  # the only note naming Tom Hale
    engine.index(progress=False)
    searcher.search("Ana Ruiz", k=3)
    gone = searcher._data
    pair = tuple(sorted(gone.entity_position[iris[i]] for i in (a, b)))
    assert pair not in blocked_synonyms(gone, load_overlay(vault))  # joined only through the absent entity
    decisions = load_overlay(vault).decisions
    assert judged_present(decisions, gone) == judged_entities(decisions) & frozenset(gone.entity_position) == {iris[a], iris[b]}
    write("other.md", text)
    engine.index(progress=False)
    searcher.search("Ana Ruiz", k=3)
    back = searcher._data
    pair = tuple(sorted(back.entity_position[iris[i]] for i in (a, b)))
    assert pair in blocked_synonyms(back, load_overlay(vault))


def test_judgment_edges_name_both_nodes_with_the_verdicts_type_and_weight_in_judgment_order(vault, write):
    engine, searcher = _setup(vault, write)
    data = searcher._data
    engine.judge("Ana Ruiz", "Tom Hale", "same")
    engine.judge("Porto Velho", "Rondonia", "broader")
    engine.judge("Blue Harbour", "Green Valley", "related")
    snapshot = load_overlay(vault)
    want = []
    for a, b, verdict in snapshot.among(data).edges:  # the reference: one row per judgment in force, as a loop
        kind, weight = {"same": ("synonym", 1.0), "broader": ("hierarchy", 1.0), "narrower": ("hierarchy", 1.0),
                        "related": ("relation", 0.5)}[verdict]
        want.append({"src": data.entity_node(data.entity_position[a]), "dst": data.entity_node(data.entity_position[b]),
                     "type": kind, "weight": weight})
    assert len(want) == 3 and overlay_edges(data, snapshot).to_dicts() == want


def test_an_index_with_the_same_judged_entities_reuses_the_judgments_and_a_new_judgment_is_seen(vault, write):
    """The next index after an edit (a new data object) reads the judgments the state already listed; a judgment
    made since is in the next snapshot's edges."""
    engine, searcher = _setup(vault, write)
    engine.judge("Ana Ruiz", "Tom Hale", "same")
    first, snapshot = searcher._data, load_overlay(vault)
    found = snapshot.among(first)
    write("extra.md", "# Extra\n\nQuinn Vale met Ana Ruiz in Porto Velho.\n")
    engine.index(progress=False)
    searcher.search("Quinn Vale", k=3)
    second = searcher._data
    assert second is not first and "Quinn Vale" in second.entities["name"].to_list()
    assert load_overlay(vault).among(second) is found  # no decision moved, no judged entity came or went
    engine.judge("Porto Velho", "Rondonia", "broader")
    verdicts = {verdict for _, _, verdict in load_overlay(vault).among(second).edges}
    assert verdicts == {"same", "broader"}


def _reference_adjacency(data, weights, threshold, types, judged):  # type: ignore[no-untyped-def]
    """Edge by edge into a dense matrix, both ways: what ``adjacency`` must equal."""
    import numpy as np

    n = data.n_passages + data.n_entities
    out = np.zeros((n, n))
    per_type = {"relation": weights.relation, "hierarchy": weights.hierarchy, "mention": weights.mention,
                "link": weights.link, "about": weights.about, "synonym": weights.synonym}
    rows = [*data.edges.iter_rows(named=True), *(judged.iter_rows(named=True) if judged is not None else [])]
    for edge in rows:
        if types is None or edge["type"] in types:
            out[edge["src"], edge["dst"]] += edge["weight"] * per_type[edge["type"]]
            out[edge["dst"], edge["src"]] += edge["weight"] * per_type[edge["type"]]
    if types is None or "synonym" in types:
        for a, b, cosine in data.synonym_pairs.iter_rows():
            if cosine >= threshold:
                out[data.entity_node(a), data.entity_node(b)] += cosine * weights.synonym
                out[data.entity_node(b), data.entity_node(a)] += cosine * weights.synonym
    return out


def test_the_adjacency_equals_the_edge_by_edge_sum_for_any_weights_types_and_judgments(vault, write):
    import numpy as np

    from engram_lab.retrieve.settings import EdgeWeights

    engine, searcher = _setup(vault, write)
    data = searcher._data
    engine.judge("Ana Ruiz", "Tom Hale", "same")
    judged = overlay_edges(data, load_overlay(vault))
    assert data.edges["type"].n_unique() >= 3 and judged.height
    for weights, types, threshold in ((RetrievalSettings().edges, None, 0.8),
                                      (EdgeWeights(relation=2.0, hierarchy=0.5, mention=0.3, link=0.0, about=4.0), None, -1.0),
                                      (EdgeWeights(), ("mention", "synonym"), 0.5), (EdgeWeights(), ("relation",), 0.0)):
        for with_judgments in (None, judged):
            got = adjacency(data, weights, threshold, types, judged=with_judgments).toarray()
            np.testing.assert_allclose(got, _reference_adjacency(data, weights, threshold, types, with_judgments))
