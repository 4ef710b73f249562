"""Query-time scoring: seed legs, their fusion into a reset vector, and passage ranking. Pure numpy.

Every leg can be switched off by a zero weight in :class:`RetrievalSettings`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from engram_lab.index.retrieval_index import RetrievalData
from engram_lab.retrieve.csls import top_candidates
from engram_lab.retrieve.fusion import ranks, reciprocal
from engram_lab.retrieve.ppr import WalkGraph, local_pagerank, personalized_pagerank
from engram_lab.retrieve.settings import RetrievalSettings

# Given candidate fact indices (best first), the ones to keep (a subset), or None to leave them unfiltered.
FactSelector = Callable[[np.ndarray], np.ndarray | None]


@dataclass
class SeedScores:
    """What each leg contributed, kept for explanations (the activation panel) and tests."""

    lexical: dict[int, float] = field(default_factory=dict)  # entity index -> score
    entity_dense: dict[int, float] = field(default_factory=dict)
    facts: dict[int, float] = field(default_factory=dict)  # fact index -> score
    fact_candidates: list[int] = field(default_factory=list)  # what a fact filter was shown (empty: no filter ran)
    passages: np.ndarray | None = None  # per document, fused BM25 + dense in [0, 1]
    section_scores: np.ndarray | None = None  # per section, for choosing the span to show
    passage_cosines: np.ndarray | None = None  # the query against every passage (None: no model loaded)
    bm25_sections: np.ndarray | None = None  # BM25 per section, whether or not the mode weighs it


@dataclass
class Ranking:
    doc_scores: np.ndarray
    entity_scores: np.ndarray
    seeds: SeedScores
    reset: np.ndarray | None


def top_positive(values: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` largest positive values, best first, ties in index order (as a stable sort).

    Partitions instead of sorting everything: ranking 100,000 entity scores for five of them
    was a visible part of a fast search. Only the positive values are partitioned: numpy's partition of an array
    mostly of zeros (a local walk's scores) took 70-100 ms for 580,000 values, against 7 ms for distinct ones.
    """
    if k <= 0 or values.size == 0:
        return []
    candidates = np.flatnonzero(values > 0)
    if k < candidates.size:
        positive = values[candidates]
        kth = np.partition(positive, positive.size - k)[positive.size - k]  # the k-th largest value
        candidates = candidates[positive >= kth]
    order = candidates[np.lexsort((candidates, -values[candidates]))]
    return [int(i) for i in order[:k]]


def _normalise_sum(values: dict[int, float]) -> dict[int, float]:
    total = sum(values.values())
    return {k: v / total for k, v in values.items()} if total > 0 else {}


def min_max(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.where(values > 0, 1.0, 0.0)


def doc_max(section_values: np.ndarray, data: RetrievalData) -> np.ndarray:
    """Per document, the best of its sections."""
    out = np.zeros(data.n_passages)
    np.maximum.at(out, data.sections["doc_index"].to_numpy(), section_values)
    return out


def passage_leg(data: RetrievalData, settings: RetrievalSettings, bm25_sections: np.ndarray, section_cos: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Fused BM25 and dense passage scores, per document and per section; per document, BM25 keeps at least
    ``bm25_floor`` of the sum (``floored``), and ``section_fusion`` of the score goes to the note's best single
    section by both legs (``both_legs``)."""
    lexical_doc, dense_doc, per_section = _note_by_each_leg(data, settings, bm25_sections, section_cos)
    doc = floored(lexical_doc, dense_doc, settings.bm25_floor)
    share = settings.section_fusion
    if share <= 0 or settings.bm25 <= 0 or settings.passage_dense <= 0 or section_cos is None or not section_cos.size \
            or settings.passage_candidates > 0:  # a dense leg cut to candidates is not fused by section (not measured)
        return doc, per_section
    both = both_legs(data, settings, bm25_sections, section_cos, floor_weights(lexical_doc, dense_doc, settings.bm25_floor))
    return (1 - share) * _max_scaled(doc) + share * _max_scaled(both), per_section


def both_legs(data: RetrievalData, settings: RetrievalSettings, bm25_sections: np.ndarray, section_cos: np.ndarray,
              weights: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """Per note, its best section with BM25 and the dense leg added up in that one section (each scaled to [0, 1]
    over the sections, the dense leg CSLS-adjusted where ``csls``, each times its ``weights``: the floor's, as the
    notes' sums set them in ``passage_leg``): what rank fusion over chunks rewards. A note scored by its best BM25
    section plus its best dense section, two different sections, outranked the one section that answers by its
    words and its meaning at once (rust-rfcs rr-L23: 14th in ``full``, 3rd in ``rrf``)."""
    lexical = bm25_sections / bm25_sections.max() if bm25_sections.any() else np.zeros_like(section_cos)
    dense = _dense_scores(data, settings, section_cos)
    return doc_max(weights[0] * settings.bm25 * lexical + weights[1] * settings.passage_dense * min_max(dense), data)


def _dense_scores(data: RetrievalData, settings: RetrievalSettings, section_cos: np.ndarray) -> np.ndarray:
    """The query's cosine with each section, CSLS-adjusted (``2 cos - density``) where ``csls``."""
    return 2 * section_cos - data.section_density if settings.csls else section_cos


def _note_by_each_leg(data: RetrievalData, settings: RetrievalSettings, bm25_sections: np.ndarray,
                      section_cos: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per note, its best BM25 section and its best dense section, each weighed (before the floor); and per section,
    both."""
    lexical_doc = np.zeros(data.n_passages)
    dense_part = np.zeros(data.n_passages)
    per_section = np.zeros(data.sections.height)
    if settings.bm25 > 0 and bm25_sections.any():
        normalised = bm25_sections / bm25_sections.max()
        per_section += settings.bm25 * normalised
        lexical_doc = settings.bm25 * doc_max(normalised, data)
    if settings.passage_dense > 0 and section_cos is not None and section_cos.size:
        if settings.passage_candidates > 0:
            chosen = top_candidates(section_cos, data.section_density if settings.csls else None, settings.passage_candidates)
            kept = np.zeros_like(section_cos)
            kept[chosen] = section_cos[chosen]
            dense_doc = doc_max(kept, data)
            nonzero = dense_doc > 0
            if nonzero.any():
                dense_doc[nonzero] = min_max(dense_doc[nonzero]) * 0.9 + 0.1
        else:  # every passage, scaled to [0, 1]; CSLS adjusts the scores themselves
            adjusted = _dense_scores(data, settings, section_cos)
            dense_doc = min_max(doc_max(adjusted - adjusted.min() + 1e-9, data))
        dense_part = settings.passage_dense * dense_doc
        per_section += settings.passage_dense * np.clip(section_cos, 0, None)
    return lexical_doc, dense_part, per_section


def floor_weights(lexical: np.ndarray, dense: np.ndarray, floor: float) -> tuple[float, float]:
    """The factors for the lexical and the dense part that give the lexical part ``floor`` of their sum when its
    share is below it (the sum unchanged), else 1 and 1: every passage's dense score counts, so without this the
    notes holding a query's words weigh less and less in a larger vault."""
    lex_total, dense_total = float(lexical.sum()), float(dense.sum())
    total = lex_total + dense_total
    if floor <= 0 or lex_total <= 0 or dense_total <= 0 or lex_total >= floor * total:
        return 1.0, 1.0
    return total * floor / lex_total, total * (1 - floor) / dense_total


def floored(lexical: np.ndarray, dense: np.ndarray, floor: float) -> np.ndarray:
    """``lexical + dense`` with the ``floor_weights`` (in the arithmetic it always had: ties stay ties)."""
    if floor_weights(lexical, dense, floor) == (1.0, 1.0):
        return lexical + dense
    lex_total, dense_total = float(lexical.sum()), float(dense.sum())
    return (lex_total + dense_total) * (floor * lexical / lex_total + (1 - floor) * dense / dense_total)


def fact_scores(data: RetrievalData, settings: RetrievalSettings, q_fact_cos: np.ndarray, q_section_cos: np.ndarray | None) -> np.ndarray:
    """Query-fact cosines, plus ``fact_context`` times the query's cosine with the section stating each fact."""
    if settings.fact_context <= 0 or q_section_cos is None or not q_section_cos.size:
        return q_fact_cos
    sections = data.fact_sections
    context = np.where(sections >= 0, q_section_cos[np.maximum(sections, 0)], 0.0)
    return q_fact_cos + settings.fact_context * context


def entity_legs(data: RetrievalData, settings: RetrievalSettings, lexical: dict[int, float],
                q_entity_cos: np.ndarray | None, q_fact_cos: np.ndarray | None, seeds: SeedScores,
                q_section_cos: np.ndarray | None = None, fact_selector: FactSelector | None = None) -> np.ndarray:
    """The entity part of the reset vector: each leg normalised to sum 1, then weighted and added."""
    passages = data.entities["passages"].to_numpy().astype(float)
    out = np.zeros(data.n_entities)
    if settings.lexical > 0 and lexical:
        seeds.lexical = {i: s / max(passages[i], 1.0) for i, s in lexical.items()}
        for i, s in _normalise_sum(seeds.lexical).items():
            out[i] += settings.lexical * s
    if settings.entity_dense > 0 and q_entity_cos is not None and q_entity_cos.size:
        chosen = top_candidates(q_entity_cos, data.entity_density if settings.csls else None, settings.top_entities)
        seeds.entity_dense = {int(i): max(float(q_entity_cos[i]), 0.0) for i in chosen}
        for i, s in _normalise_sum(seeds.entity_dense).items():
            out[i] += settings.entity_dense * s
    if settings.fact_dense > 0 and q_fact_cos is not None and q_fact_cos.size:
        q_fact_cos = fact_scores(data, settings, q_fact_cos, q_section_cos)
        density = data.fact_density if settings.csls else None
        kept = None
        if fact_selector is not None and settings.fact_filter:
            candidates = top_candidates(q_fact_cos, density, max(settings.fact_filter_candidates, settings.top_facts))
            seeds.fact_candidates = [int(i) for i in candidates]
            kept = fact_selector(candidates)
        # The filter's answer, even nothing (passages alone seed then); without one, the best facts as always.
        chosen = np.asarray(kept, dtype=np.int64)[: settings.top_facts] if kept is not None else top_candidates(q_fact_cos, density, settings.top_facts)
        seeds.facts = {int(i): max(float(q_fact_cos[i]), 0.0) for i in chosen}
        subjects, objects = data.facts["s"].to_numpy(), data.facts["o"].to_numpy()
        fact_entities: dict[int, float] = {}
        for f, score in seeds.facts.items():
            for e in (int(subjects[f]), int(objects[f])):
                fact_entities[e] = fact_entities.get(e, 0.0) + score / max(passages[e], 1.0)
        for i, s in _normalise_sum(fact_entities).items():
            out[i] += settings.fact_dense * s
    return out


def rank(data: RetrievalData, settings: RetrievalSettings, walk: WalkGraph | None, *, lexical: dict[int, float],
         bm25_sections: np.ndarray, section_cos: np.ndarray | None, entity_cos: np.ndarray | None, fact_cos: np.ndarray | None,
         fact_selector: FactSelector | None = None) -> Ranking:
    seeds = SeedScores()
    passage_doc, passage_section = passage_leg(data, settings, bm25_sections, section_cos)
    seeds.passages, seeds.section_scores = passage_doc, passage_section
    entity_reset = entity_legs(data, settings, lexical, entity_cos, fact_cos, seeds, section_cos, fact_selector)
    p_total, e_total = passage_doc.sum(), entity_reset.sum()
    share = settings.passage_share if p_total > 0 and e_total > 0 else (1.0 if p_total > 0 else 0.0)
    reset = np.concatenate([
        passage_doc / p_total * share if p_total > 0 else passage_doc,
        entity_reset / e_total * (1 - share) if e_total > 0 else entity_reset,
    ])
    if settings.use_ppr and walk is not None and reset.sum() > 0:
        scores = _walked(walk, reset, settings)
        walked = length_normalised(scores[: data.n_passages], reset[: data.n_passages] / reset.sum(), settings.damping,
                                   data.chunks_per_note, settings.walk_length_norm)
        doc_scores = walked + settings.final_blend * (passage_doc / p_total if p_total > 0 else 0)
        if settings.passage_best_first:
            doc_scores = best_first(doc_scores, passage_doc)
        return Ranking(doc_scores, scores[data.n_passages :], seeds, reset)
    # No walk: a note scores by its own passage seed plus the seeds of the entities it mentions, the latter divided
    # by the note's length as the walk's inflow is (a long note mentions more of anything). The two parts are each
    # scaled to a maximum of 1 and weighed by the passage share: as shares of one reset vector, the few seeded
    # entities' mass outweighed the passage seed spread over every note (rust-rfcs R@10 0.966 -> 0.983, BENCHMARKS.md).
    mentions = data.edges.filter(pl.col("type") == "mention")
    mentioned = np.zeros(data.n_passages)
    if e_total > 0 and mentions.height:
        entity_part = reset[data.n_passages :]
        np.add.at(mentioned, mentions["src"].to_numpy(), entity_part[mentions["dst"].to_numpy() - data.n_passages])
    mentioned /= np.maximum(data.chunks_per_note, 1) ** settings.walk_length_norm
    doc_scores = share * _max_scaled(reset[: data.n_passages]) + (1 - share) * _max_scaled(mentioned)
    return Ranking(doc_scores, reset[data.n_passages :], seeds, reset)


def _walked(walk: WalkGraph, reset: np.ndarray, settings: RetrievalSettings) -> np.ndarray:
    """The walk's scores: pushed locally from the seeds when the settings ask for it and the graph is large enough
    to pay for it, else stepped over the whole graph."""
    if settings.ppr_local > 0 and walk.transition_t.nnz >= settings.ppr_local_from:
        return local_pagerank(walk, reset, settings.damping, settings.ppr_local)
    return personalized_pagerank(walk, reset, settings.damping, tol=settings.ppr_tolerance,
                                 parallel=not settings.needs_embeddings)  # the query encoder's threads hold the cores


def best_first(doc_scores: np.ndarray, passage_doc: np.ndarray) -> np.ndarray:
    """``doc_scores`` with the passage seed's best note scored just above the best: the walk may add notes to a
    search, not displace the one its words and meaning point at most (musique-dev R@2 0.450 -> 0.503 with the
    heuristic extractor, 0.552 -> 0.562 with imported triples; rust-rfcs R@2 unchanged; BENCHMARKS.md)."""
    if not passage_doc.size or passage_doc.max() <= 0:
        return doc_scores
    best = int(np.argmax(passage_doc))
    if int(np.argmax(doc_scores)) == best:  # already first (argmax: the first of tied bests, as the ranking breaks ties)
        return doc_scores
    top = float(doc_scores.max())
    lifted = doc_scores.copy()
    kind = doc_scores.dtype.type  # just above in the scores' own precision (float32 would round a float64 step away)
    lifted[best] = np.nextafter(kind(top), kind(np.inf))
    return lifted


def _max_scaled(values: np.ndarray) -> np.ndarray:
    top = values.max() if values.size else 0.0
    return values / top if top > 0 else values


def length_normalised(walked: np.ndarray, reset: np.ndarray, damping: float, chunks: np.ndarray, exponent: float) -> np.ndarray:
    """Note scores of the walk with the mass it carried in (beyond the restart share) divided by ``chunks ** exponent``.

    A note's walk score is its restart share, ``(1 - damping) * reset``, plus what flows in from the entities it
    names; a long note names more entities, so on notes of mixed length the walk ranks the longest first whatever
    the query (rust-rfcs: Recall@2 0.25). Dividing the inflow by the note's length in chunks removes that bias
    and leaves a vault of equal-length passages (MuSiQue) ranked as before.
    """
    if exponent <= 0:
        return walked
    restart = (1.0 - damping) * reset
    return restart + (walked - restart) / np.maximum(chunks, 1) ** exponent


def chunk_rrf(bm25_sections: np.ndarray, section_cos: np.ndarray | None) -> np.ndarray:
    """Per passage (chunk), the reciprocal-rank fusion of its BM25 rank (hits only) and its dense rank."""
    fused = reciprocal(ranks(bm25_sections, positive_only=True))
    if section_cos is not None and section_cos.size:
        fused = fused + reciprocal(ranks(section_cos))
    return fused


def rrf_ranking(data: RetrievalData, bm25_sections: np.ndarray, section_cos: np.ndarray | None) -> Ranking:
    """The ``rrf`` anchor: BM25 and dense chunk ranks fused (k = 60), a note scored by its best chunk."""
    fused = chunk_rrf(bm25_sections, section_cos)
    return Ranking(doc_max(fused, data), np.zeros(data.n_entities), SeedScores(section_scores=fused), None)
