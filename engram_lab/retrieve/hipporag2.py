"""HippoRAG 2's retrieval as published, without its LLM fact filter: the anchor every evaluation measures against.

Graph and seeds follow the published code (OSU-NLP-Group/HippoRAG, ``HippoRAG.py``), not our own graph:

* phrase nodes are the ends of facts; every fact a passage states adds 1 to the pair's edge statistics in
  both directions, and the undirected igraph graph keeps both directions as parallel edges, so a relation
  edge weighs 2 per statement;
* a passage links (weight 1) to the ends of its own facts only, and a phrase's passage count is the
  number of passages whose facts name it;
* a phrase with more than two letters or digits links to its embedding neighbours at cosine >= 0.8 with
  the cosine as weight, per direction (so usually twice), and such a synonym replaces the fact statistic
  of the same direction, as the published code overwrites it;
* seeds: the top-5 facts by min-max normalised query-fact cosine; each end gets the mean over those facts
  of fact score / its passage count; the top-5 ends seed the walk; every passage seeds with its min-max
  normalised dense score x 0.05; PPR with damping 0.5. With no fact to go on it ranks by dense score.

Deviations, each small: our synonym candidates are each entity's 32 nearest neighbours (the original
looks at up to 2,047 and keeps 101); a pair found from either side counts in both directions; names
count letters of any script (the original strips non-ASCII), as in ``anchor_fact_text``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import polars as pl
import scipy.sparse as sp

from engram_lab.index.retrieval_index import RetrievalData
from engram_lab.retrieve.ppr import WalkGraph, personalized_pagerank, transition_matrix
from engram_lab.retrieve.scoring import Ranking, SeedScores, doc_max, min_max

SYNONYM_THRESHOLD = 0.8
TOP_FACTS = 5
TOP_PHRASES = 5
PASSAGE_NODE_WEIGHT = 0.05
DAMPING = 0.5


@dataclass(frozen=True)
class AnchorGraph:
    walk: WalkGraph
    phrase_passages: np.ndarray  # per entity, how many passages state a fact naming it


def _long_enough(name: str) -> bool:
    return len(re.sub(r"[\W_]", "", name)) > 2


def _fact_passages(data: RetrievalData) -> list[list[int]]:
    position = {doc_id: i for i, doc_id in enumerate(data.documents["doc_id"].to_list())}
    return [[position[d] for d in docs if d in position] for docs in data.facts["doc_ids"].to_list()]


def _phrase_statistics(data: RetrievalData, fact_passages: list[list[int]], size: int) -> sp.csr_matrix:
    """Directed edge statistics among phrases: statements counted both ways, synonyms overwriting them."""
    n_pass = data.n_passages
    subjects, objects = data.facts["s"].to_numpy(), data.facts["o"].to_numpy()
    statements = np.array([len(docs) for docs in fact_passages], dtype=np.float64)
    a, b = subjects + n_pass, objects + n_pass
    distinct = a != b
    facts = sp.coo_matrix((statements[distinct], (a[distinct], b[distinct])), shape=(size, size)).tocsr()
    facts = (facts + facts.T).tocsr()

    is_phrase = np.zeros(data.n_entities, dtype=bool)
    is_phrase[subjects] = True
    is_phrase[objects] = True
    synonyms = data.synonym_pairs.filter(pl.col("cosine") >= SYNONYM_THRESHOLD)
    first, second, cosine = synonyms["a"].to_numpy(), synonyms["b"].to_numpy(), synonyms["cosine"].to_numpy()
    both = is_phrase[first] & is_phrase[second]
    src = np.concatenate([first[both], second[both]])
    dst = np.concatenate([second[both], first[both]])
    cos = np.concatenate([cosine[both], cosine[both]])
    long_name = np.array([_long_enough(name) for name in data.entities["name"].to_list()], dtype=bool)
    looked = long_name[src]  # only a long enough name looks for synonyms
    src, dst, cos = src[looked] + n_pass, dst[looked] + n_pass, cos[looked]
    synonym = sp.coo_matrix((cos, (src, dst)), shape=(size, size)).tocsr()
    overwritten = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(size, size)).tocsr()
    overwritten.data[:] = 1.0
    return (facts - facts.multiply(overwritten) + synonym).tocsr()


def _passage_links(data: RetrievalData, fact_passages: list[list[int]], size: int) -> sp.csr_matrix:
    """Each passage to the ends of its own facts, once each."""
    subjects, objects = data.facts["s"].to_numpy(), data.facts["o"].to_numpy()
    rows: list[int] = []
    cols: list[int] = []
    for f, docs in enumerate(fact_passages):
        for d in docs:
            rows += [d, d]
            cols += [data.n_passages + int(subjects[f]), data.n_passages + int(objects[f])]
    links = sp.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(size, size)).tocsr()
    links.data[:] = 1.0
    return links


def anchor_adjacency(data: RetrievalData) -> tuple[sp.csr_matrix, np.ndarray]:
    """The published graph's undirected weights (both directions' statistics added), and each phrase's passage count."""
    size = data.n_passages + data.n_entities
    fact_passages = _fact_passages(data)
    links = _passage_links(data, fact_passages, size)
    directed = _phrase_statistics(data, fact_passages, size) + links
    phrase_passages = np.asarray(links[: data.n_passages, data.n_passages :].sum(axis=0)).ravel()
    return (directed + directed.T).tocsr(), phrase_passages


def anchor_graph(data: RetrievalData) -> AnchorGraph:
    adjacency, phrase_passages = anchor_adjacency(data)
    return AnchorGraph(transition_matrix(adjacency), phrase_passages)


def phrase_seeds(data: RetrievalData, graph: AnchorGraph, fact_scores: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Each end of the top facts: the mean of fact score / passage count over those facts; the best five kept."""
    total = np.zeros(data.n_entities)
    occurrences = np.zeros(data.n_entities)
    subjects, objects = data.facts["s"].to_numpy(), data.facts["o"].to_numpy()
    for f in top:
        for end in (int(subjects[f]), int(objects[f])):
            total[end] += fact_scores[f] / max(graph.phrase_passages[end], 1.0)
            occurrences[end] += 1
    weights = np.divide(total, occurrences, out=np.zeros_like(total), where=occurrences > 0)
    keep = np.argsort(-weights, kind="stable")[:TOP_PHRASES]
    seeds = np.zeros_like(weights)
    seeds[keep] = weights[keep]
    return seeds


def hipporag2_rank(data: RetrievalData, graph: AnchorGraph, section_cos: np.ndarray, fact_cos: np.ndarray) -> Ranking:
    """Passages ranked as HippoRAG 2 ranks them; ``fact_cos`` are cosines with facts in its tuple form."""
    seeds = SeedScores()
    dense_doc = doc_max(section_cos, data)
    if fact_cos.size == 0:
        return Ranking(dense_doc, np.zeros(data.n_entities), seeds, None)
    fact_scores = min_max(fact_cos)
    top = np.argsort(-fact_scores, kind="stable")[:TOP_FACTS]
    seeds.facts = {int(f): float(fact_scores[f]) for f in top}
    entity_weights = phrase_seeds(data, graph, fact_scores, top)
    seeds.entity_dense = {int(i): float(w) for i, w in enumerate(entity_weights) if w > 0}
    passage_weights = min_max(dense_doc) * PASSAGE_NODE_WEIGHT
    seeds.passages = passage_weights
    reset = np.concatenate([passage_weights, entity_weights])
    if reset.sum() <= 0:
        return Ranking(dense_doc, np.zeros(data.n_entities), seeds, None)
    scores = personalized_pagerank(graph.walk, reset, damping=DAMPING)
    return Ranking(scores[: data.n_passages], scores[data.n_passages :], seeds, reset)
