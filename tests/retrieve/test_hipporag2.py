"""The hipporag2 anchor against HippoRAG 2's recipe written out the way its code does it (differential)."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import networkx as nx
import numpy as np
import pytest

from engram_lab.engine import Engine
from engram_lab.indexer import index_vault
from engram_lab.retrieve.hipporag2 import anchor_adjacency, anchor_graph, hipporag2_rank
from engram_lab.retrieve.scoring import doc_max
from engram_lab.retrieve.searcher import Searcher
from tests.retrieve.test_searcher import NOTES, BagOfWordsEmbedder

EXTRA = {  # a near-synonym of 'Porto Velho' for the test embedder, and a fact stated in two notes
    "airport.md": "# Porto Velho Airport\n\nPorto Velho Airport is an airport in Rondonia.\n",
    "again.md": "# Ana Ruiz again\n\nAna Ruiz was born in Porto Velho. Mia Lund was born in Oslo.\n",
}
QUERIES = ("Where was the director of Blue Harbour born?", "Which airport is in Rondonia?", "Tom Hale film")


class WordsEmbedder(BagOfWordsEmbedder):
    """The bag of words over words only, so that facts written as Python tuples (the anchor's form) match too."""

    def encode(self, texts):
        return super().encode([re.sub(r"[^\w\s]", " ", text) for text in texts])


TRIPLES = {  # GPT-style triples for the imported variant: a synonym that is also a fact, two short names
    "film.md": [["Blue Harbour", "directed by", "Ana Ruiz"]],
    "person.md": [["Ana Ruiz", "born in", "Porto Velho"], ["Ana Ruiz", "lived in", "U K"]],
    "city.md": [["Porto Velho", "capital of", "Rondonia"]],
    "airport.md": [["Porto Velho Airport", "serves", "Porto Velho"], ["Porto Velho Airport", "located in", "Rondonia"]],
    "again.md": [["Ana Ruiz", "born in", "Porto Velho"], ["Mia Lund", "lived in", "K U"]],
    "other.md": [["Green Valley", "directed by", "Tom Hale"]],
}


def _searcher(vault, write, tmp_path, imported: bool) -> Searcher:
    notes = {**NOTES, **EXTRA}
    for name, text in notes.items():
        write(name, text)
    index_vault(vault, progress=False)
    if imported:
        docs = [{"passage": notes[name].split("\n", 2)[2].strip(), "extracted_entities": [], "extracted_triples": triples}
                for name, triples in TRIPLES.items()]
        path = tmp_path / "openie-test-model.json"
        path.write_text(json.dumps({"docs": docs}))
        assert Engine(vault).import_openie(path).matched == len(TRIPLES)
    searcher = Searcher(vault, embedder_factory=WordsEmbedder)
    searcher.search("Ana Ruiz", k=3)
    return searcher


@pytest.fixture
def data(vault, write, tmp_path):
    return _searcher(vault, write, tmp_path, imported=False)


def published_graph(data) -> tuple[nx.MultiGraph, dict[int, set[int]]]:
    """HippoRAG 2's graph as its code builds it: a dict of edge statistics, then one undirected edge per entry."""
    n_pass = data.n_passages
    position = {d: i for i, d in enumerate(data.documents["doc_id"].to_list())}
    names = data.entities["name"].to_list()
    stats: dict[tuple[int, int], float] = {}
    chunks_of: dict[int, set[int]] = defaultdict(set)
    for s, o, docs in zip(data.facts["s"].to_list(), data.facts["o"].to_list(), data.facts["doc_ids"].to_list()):
        for doc in docs:
            stats[(n_pass + s, n_pass + o)] = stats.get((n_pass + s, n_pass + o), 0.0) + 1
            stats[(n_pass + o, n_pass + s)] = stats.get((n_pass + o, n_pass + s), 0.0) + 1
            chunks_of[s].add(position[doc])
            chunks_of[o].add(position[doc])
    for entity, chunks in chunks_of.items():
        for chunk in chunks:
            stats[(chunk, n_pass + entity)] = 1.0
    for a, b, cosine in data.synonym_pairs.iter_rows():
        if cosine < 0.8 or a not in chunks_of or b not in chunks_of:
            continue
        for u, v in ((a, b), (b, a)):
            if len(re.sub(r"[\W_]", "", names[u])) > 2:
                stats[(n_pass + u, n_pass + v)] = cosine
    graph = nx.MultiGraph()
    graph.add_nodes_from(range(n_pass + data.n_entities))
    for (u, v), weight in stats.items():
        if u != v:
            graph.add_edge(u, v, weight=weight)
    return graph, chunks_of


def published_scores(data, graph, chunks_of, section_cos, fact_cos) -> np.ndarray:
    scores = (fact_cos - fact_cos.min()) / (fact_cos.max() - fact_cos.min())
    top = np.argsort(-scores, kind="stable")[:5]
    subjects, objects = data.facts["s"].to_list(), data.facts["o"].to_list()
    total, occurs = np.zeros(data.n_entities), np.zeros(data.n_entities)
    for f in top:
        for end in (subjects[f], objects[f]):
            total[end] += scores[f] / len(chunks_of[end])
            occurs[end] += 1
    phrase = np.divide(total, occurs, out=np.zeros_like(total), where=occurs > 0)
    phrase[np.argsort(-phrase, kind="stable")[5:]] = 0.0
    dense = doc_max(section_cos, data)
    passage = (dense - dense.min()) / (dense.max() - dense.min()) * 0.05
    reset = np.concatenate([passage, phrase])
    ranks = nx.pagerank(graph, alpha=0.5, personalization=dict(enumerate(reset)), weight="weight", tol=1e-13, max_iter=500)
    return np.array([ranks[i] for i in range(data.n_passages)])


@pytest.mark.parametrize("imported", [False, True], ids=["heuristic", "imported"])
def test_anchor_matches_the_published_recipe(vault, write, tmp_path, imported):
    searcher = _searcher(vault, write, tmp_path, imported)
    loaded = searcher._load_data(allow_stale=False)
    assert loaded.synonym_pairs.filter(loaded.synonym_pairs["cosine"] >= 0.8).height, "the fixture should hold a synonym"
    reference_graph, chunks_of = published_graph(loaded)
    graph = anchor_graph(loaded)
    fact_vectors, _ = searcher._anchor_index(loaded)
    for query in QUERIES:
        q = WordsEmbedder().encode([query])[0]
        section_cos, fact_cos = loaded.section_vectors @ q, fact_vectors @ q
        assert fact_cos.max() > fact_cos.min(), query
        ours = hipporag2_rank(loaded, graph, section_cos, fact_cos).doc_scores
        reference = published_scores(loaded, reference_graph, chunks_of, section_cos, fact_cos)
        np.testing.assert_allclose(ours / ours.sum(), reference / reference.sum(), atol=1e-6)


def test_anchor_graph_weights(data):
    loaded = data._load_data(allow_stale=False)
    adjacency, phrase_passages = anchor_adjacency(loaded)
    names = loaded.entities["name"].to_list()
    n_pass = loaded.n_passages
    ana, porto = n_pass + names.index("Ana Ruiz"), n_pass + names.index("Porto Velho")
    assert adjacency[ana, porto] == 4.0  # stated in two notes, counted both ways
    assert phrase_passages[names.index("Ana Ruiz")] == 3  # film, person and again name her in a fact
    in_facts = set(loaded.facts["s"].to_list()) | set(loaded.facts["o"].to_list())
    for entity in set(range(loaded.n_entities)) - in_facts:  # mentioned but in no fact: no node edges at all
        assert adjacency[n_pass + entity].nnz == 0, names[entity]


def test_no_facts_means_dense_ranking(data):
    loaded = data._load_data(allow_stale=False)
    q = WordsEmbedder().encode(["Porto Velho"])[0]
    section_cos = loaded.section_vectors @ q
    ranking = hipporag2_rank(loaded, anchor_graph(loaded), section_cos, np.zeros(0))
    np.testing.assert_array_equal(ranking.doc_scores, doc_max(section_cos, loaded))
    assert ranking.reset is None
