"""Retrieval settings per mode. The defaults of ``full`` were chosen on musique-dev (see BENCHMARKS.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engram_lab.config import RetrievalConfig

MODES = ("full", "auto", "keyword", "dense", "graph-off", "hipporag2", "rrf")
ABLATIONS = ("no-csls", "csls", "no-fact-filter")  # full with CSLS forced off / on, or without the LLM filter: for evaluation
AUTO_MAX_RESULTS = 8
AUTO_HEADER = "partial and possibly stale: verify with a full search"


@dataclass(frozen=True)
class EdgeWeights:
    relation: float = 1.0
    synonym: float = 1.0  # multiplied by the cosine
    hierarchy: float = 0.0  # "X is a Y" edges: 0 by default, they lost on musique-dev (BENCHMARKS.md)
    mention: float = 1.0
    link: float = 0.5
    # A note and the entity its title names (the note is that entity's page). On musique-dev this edge
    # raised Recall@5 / ALL@10 with imported triples (0.720 / 0.58 -> 0.748 / 0.70) and was neutral with
    # the heuristic extractor; 10 was best of 1, 3, 10, 20, 40, 100 (BENCHMARKS.md).
    about: float = 10.0


@dataclass(frozen=True)
class RetrievalSettings:
    """Which legs seed the graph, how they are weighed, and how the graph is walked.

    Defaults for ``full`` were chosen on musique-dev with both extractors (heuristic and imported
    GPT-3.5 triples); the search is in BENCHMARKS.md. There, the lexical and entity-label legs
    lowered Recall@5, so they default to off; every leg can be switched on by weight. CSLS depends
    on where the facts came from (see ``csls``).
    """

    lexical: float = 0.0
    entity_dense: float = 0.0
    fact_dense: float = 1.0
    bm25: float = 0.3
    passage_dense: float = 1.0
    passage_share: float = 0.9  # share of the reset mass that starts on passages rather than entities
    # The least share of the passage seed the BM25 leg keeps. The dense leg scores every passage, so its mass grows
    # with the vault while BM25's stays on the few notes holding the query's words: at 10,000 notes a note holding a
    # query's rare words, first in every single leg, ranked 6th-10th in `full`. 0.015 ranks it first (6 of 6) and
    # moves no figure on rust-rfcs or musique-dev heuristic; imported triples R@5 0.752 -> 0.762. 0.05 cost musique-dev
    # ALL@10 0.70 -> 0.60, 0.005 left the note 3rd-4th (BENCHMARKS.md). Most queries' BM25 share is above it already.
    bm25_floor: float = 0.015
    # The share of a note's passage score that its best single section earns by both legs at once (scoring.both_legs),
    # beside its best BM25 section plus its best dense section. rust-rfcs (notes of many sections) `full` R@2 / R@5 /
    # R@10 / ALL@10 0.787 / 0.934 / 0.983 / 0.978 -> 0.798 / 0.940 / 0.994 / 0.989, graph-off R@5 0.914 -> 0.934;
    # musique-dev (one section per passage) unchanged with both extractors; 0.3 and 0.7 gave the same R@10 and ALL@10
    # (BENCHMARKS.md, session 26). The halfway point, not a fitted one.
    section_fusion: float = 0.5
    top_entities: int = 5
    top_facts: int = 5
    # With an LLM fact filter configured (``[retrieval]`` in engram.toml), it sees this many candidate facts
    # and the walk is seeded from at most ``top_facts`` of those it keeps.
    fact_filter: bool = True
    fact_filter_candidates: int = RetrievalConfig.candidates  # the vault's engram.toml default, one number
    # A fact's seed score adds this share of the query's similarity to the section that states it, so a
    # fact from a passage about the question beats a look-alike fact from an unrelated one. On musique-dev
    # 0.25 raised Recall@2 / Recall@5 with both extractors (imported triples 0.478 / 0.748 -> 0.555 / 0.752,
    # heuristic 0.440 / 0.695 -> 0.460 / 0.718; ALL@10 0.70 -> 0.70 and 0.66 -> 0.70); 0.35 and more cost the
    # heuristic extractor ALL@10 (BENCHMARKS.md).
    fact_context: float = 0.25
    passage_candidates: int = 0  # sections the dense passage leg keeps (0: every section, min-max scaled)
    # None: by extractor. On when most facts come from a language model (LLM extractor, imported triples),
    # off for the heuristic extractor: on musique-dev CSLS raised Recall@5 with GPT-3.5 triples
    # (0.678 -> 0.720) and lowered it with the heuristic extractor (0.692 -> 0.673); BENCHMARKS.md.
    csls: bool | None = None
    use_ppr: bool = True
    damping: float = 0.5  # 1 - restart probability
    # L1 change at which a whole walk stops (a large graph's goes local: ``ppr_local``). Its scores sum to 1; at
    # damping 0.5 what is left after the stop is at most the last change. 1e-4 over a float32 matrix instead of 1e-7
    # over float64 (session 23): no ranking and no confidence moved on any question of the three dev sets, ~14 steps
    # instead of ~23 at a quarter less memory traffic each (10,000 notes: full p50 72 -> 56 ms, alternating runs;
    # BENCHMARKS.md). 1e-7 had replaced 1e-10 in session 20. A tolerance below ``ppr.SINGLE_PRECISION_FLOOR`` walks
    # float64 whatever this flag says.
    ppr_tolerance: float = 1e-4
    ppr_single_precision: bool = True  # walk a float32 matrix (only sensible with a loose tolerance)
    # Above 0, a large graph's walk pushes the seeds' mass locally (ppr.local_pagerank) instead of stepping over the
    # whole graph, leaving no node's score off by more than this times its edge weight; the tolerance above then only
    # picks the matrix's precision. At 100,000 notes `full`'s walk took ~30 ms against ~170. Walked locally whatever
    # their size, rust-rfcs and both musique-dev vaults kept every metric of `full` and `auto` at 1e-7, and the
    # abstention AUROC; 1e-6 lost one musique-dev R@5 (BENCHMARKS.md, session 28). 0: always the whole walk.
    ppr_local: float = 1e-7
    # Stored entries from which the walk goes local. Each push round costs ~0.15 ms of scipy's overhead, and `full`
    # seeds every passage, so a smaller graph walks whole faster: 10,000 notes (580,000 entries) 9.7 ms whole against
    # 14.7 local; 100,000 notes (10.4 million) ~170 against ~30.
    ppr_local_from: int = 1_000_000
    lexical_fuzzy: bool = True  # also match names within a small edit distance (slow on very large vaults)
    synonym_threshold: float = 0.8
    edges: EdgeWeights = field(default_factory=EdgeWeights)
    # The passage seed (as a share of its sum) added to the walk's score of each note: the walk may add notes, not
    # displace the ones the passages point at. 0.1 on all three dev sets (BENCHMARKS.md): MuSiQue heuristic R@5
    # 0.708 -> 0.732, imported 0.745 -> 0.752 (ALL@10 0.68 -> 0.70), rust-rfcs R@2 0.775 -> 0.781; 0.2 and more
    # lost MuSiQue R@5.
    final_blend: float = 0.1
    # The note the passage seed (BM25 + dense) ranks first stays first after the walk (scoring.best_first): musique-dev
    # R@2 0.450 -> 0.503 (heuristic) and 0.552 -> 0.562 (imported triples), R@5 0.718 -> 0.732 and 0.762 -> 0.772,
    # rust-rfcs R@2 / R@10 / ALL@10 unchanged, R@5 one question lower (BENCHMARKS.md, session 21). The walk's first
    # place had often gone to a note neither leg ranked high (issue 16).
    passage_best_first: bool = True
    # The mass the walk carries into a note, beyond its own restart share, is divided by (chunks in the note) ** this:
    # a long note names more entities and so collects more of the walk than its relevance earns (0: no division).
    walk_length_norm: float = 1.0
    # A question about change over time gets the other-dated counterpart of its best note (retrieve.change_pairs).
    change_pairs: bool = True
    needs_embeddings: bool = True

    def with_(self, **changes: object) -> RetrievalSettings:
        return replace(self, **changes)  # type: ignore[arg-type]

    def for_facts(self, from_language_model: bool) -> RetrievalSettings:
        """These settings with CSLS decided, when left to the extractor (``csls=None``)."""
        return self if self.csls is not None else self.with_(csls=from_language_model)


def settings_for(mode: str, base: RetrievalSettings | None = None) -> RetrievalSettings:
    full = base or RetrievalSettings()
    if mode in ("full", "hipporag2"):  # hipporag2 carries its own published settings; it only needs the model
        return full
    if mode == "no-csls":
        return full.with_(csls=False)
    if mode == "csls":
        return full.with_(csls=True)
    if mode == "no-fact-filter":
        return full.with_(fact_filter=False)
    if mode == "graph-off":
        return full.with_(use_ppr=False)
    if mode == "auto":  # names in the query and BM25 seed the graph; no model is loaded
        # A fast, partial answer: exact and normalised names only, and a walk stopped early: a small graph's whole
        # walk at an L1 change of 1e-3 (about ten iterations at damping 0.5, no score moved by more than 0.1 %), a
        # local one from 300,000 entries: its few seeds make it the quicker there (40 queries: rust-rfcs' 67,000
        # entries 0.5 ms whole against 2.7 local; 10,000 notes' 580,000 entries 7.1 against 5.1; 100,000 notes' 10.4
        # million 125 against 14).
        return full.with_(lexical=1.0, entity_dense=0.0, fact_dense=0.0, passage_dense=0.0, bm25=1.0, passage_share=0.5,
                          needs_embeddings=False, ppr_tolerance=1e-3, ppr_local_from=300_000, lexical_fuzzy=False,
                          passage_best_first=False)  # measured for `full` only
    if mode == "keyword":
        return full.with_(lexical=0.0, entity_dense=0.0, fact_dense=0.0, passage_dense=0.0, use_ppr=False, needs_embeddings=False,
                          change_pairs=False)
    if mode == "rrf":  # BM25 and dense chunk ranks fused; no graph (the anchor real notes are measured against)
        return full.with_(lexical=0.0, entity_dense=0.0, fact_dense=0.0, bm25=1.0, passage_dense=1.0, use_ppr=False, change_pairs=False)
    if mode == "dense":
        return full.with_(lexical=0.0, entity_dense=0.0, fact_dense=0.0, bm25=0.0, use_ppr=False, change_pairs=False)
    raise ValueError(f"unknown mode {mode!r}")
