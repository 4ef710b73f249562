"""Search over an indexed vault in every mode, loading each costly thing once.

The embedding model and the retrieval index load on the first search that
needs them; ``auto`` never loads the model and uses whatever retrieval index was
last published (so its answer may lag behind the notes, and says so). A search
never rebuilds the retrieval index silently: ``engram index`` builds it; when it
is behind the notes the other modes answer from it plus keyword hits for the
changed notes (``retrieve.behind``), and only when there is none usable does a
search build one, with a progress bar and a line saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from engram_lab.collector import fewer_collections
from engram_lab.errors import EngramError
from engram_lab.index.derived import ledger_counters, read_generation, refresh_keyword_index
from engram_lab.index.embeddings import Embedder, EmbeddingCache, default_embedder, lazy_embedder
from engram_lab.index.keyword import ChunkKey, KeywordIndex
from engram_lab.index.progress import MATRICES, StageProgress
from engram_lab.index.retrieval_index import RetrievalData, load, published_retrieval_index, refresh_retrieval_index
from engram_lab.index.row_vectors import RowVectors
from engram_lab.retrieve.behind import ChangedNotes, behind_line, changed_notes, choose_index, merge_keyword_hits
from engram_lab.retrieve.confidence import MatchSignals, confidence, leg_agreement, match_signals
from engram_lab.retrieve.change_pairs import complete_change_pair
from engram_lab.retrieve.context import assemble
from engram_lab.retrieve.fact_filter import LLMFactFilter
from engram_lab.retrieve.graph import adjacency
from engram_lab.retrieve.hipporag2 import AnchorGraph, anchor_graph, hipporag2_rank
from engram_lab.retrieve.keyword_search import KeywordSearcher, keyword_results, section_texts
from engram_lab.retrieve.lexical import match_names
from engram_lab.retrieve.overlay import OverlaySnapshot, blocked_synonyms, label_superseded, load_overlay, overlay_edges
from engram_lab.retrieve.ppr import SINGLE_PRECISION_FLOOR, WalkGraph, transition_matrix
from engram_lab.retrieve.results import SearchResult, assemble_context
from engram_lab.retrieve.scoring import FactSelector, Ranking, SeedScores, doc_max, rank, rrf_ranking, top_positive
from engram_lab.retrieve.settings import ABLATIONS, AUTO_HEADER, AUTO_MAX_RESULTS, MODES, RetrievalSettings, settings_for
from engram_lab.state.db import engram_dir, open_ledger
from engram_lab.state.documents import DocumentTable
from engram_lab.vault.root import require_vault

BM25_HITS = 200  # chunks BM25 ranks per query (``rrf`` fuses ranks, so it needs a ranked list, not just the best few)


@dataclass
class SearchOutcome:
    query: str
    mode: str
    results: list[SearchResult]
    context: str
    ranking: Ranking | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)  # what the search could not do as configured, and what it asked a model
    confidence: float | None = None  # how likely the best result answers the query, in [0, 1] (retrieve.confidence)
    signals: MatchSignals | None = None  # what the confidence was computed from


class Searcher:
    def __init__(self, vault: Path, embedder_factory: Callable[[], Embedder] = default_embedder,
                 settings: RetrievalSettings | None = None, fact_filter: LLMFactFilter | None = None) -> None:
        """``fact_filter``: a model that keeps the facts bearing on the question (see ``configured_fact_filter``)."""
        self.vault = require_vault(vault)
        if not (self.vault / ".engram" / "ledger.sqlite").exists():
            raise EngramError(f"{vault}: not indexed yet; run `engram index {vault}` first")
        self.embedder_factory = embedder_factory
        self._lazy_embedder = lazy_embedder(embedder_factory)
        self.base = settings or RetrievalSettings()
        self.fact_filter = fact_filter
        if fact_filter is not None:  # how many candidates it sees is the vault's setting
            self.base = self.base.with_(fact_filter_candidates=fact_filter.candidates)
        self._data: RetrievalData | None = None
        self._behind: tuple[Path, int, ChangedNotes] | None = None  # (index folder, ledger generation, what differs)
        self._keyword: KeywordIndex | None = None
        self._keyword_folder: Path | None = None
        self._walks: dict[tuple[object, ...], WalkGraph] = {}
        self._keyword_searcher: KeywordSearcher | None = None
        self._anchor: tuple[RetrievalData, np.ndarray, AnchorGraph] | None = None
        self._overlay: OverlaySnapshot | None = None
        self._built: RetrievalData | None = None  # an index ``prepare_built`` prepared before it was published

    # -- loading -------------------------------------------------------------
    @property
    def loaded_data(self) -> RetrievalData | None:
        """The retrieval index the last search used (for explanations); None before any graph search."""
        return self._data

    def judged_edges(self) -> pl.DataFrame | None:
        """The judgment edges of the current overlay over the loaded index (for explanations)."""
        return overlay_edges(self._data, self._current_overlay()) if self._data is not None else None

    def embedder(self) -> Embedder:
        """The query model, loaded on first use (its name is known before: checking an index loads nothing)."""
        return self._lazy_embedder

    def _load_data(self, allow_stale: bool, generation: int | None = None, notes: list[str] | None = None) -> RetrievalData | None:
        """``notes`` receives the line saying why a search built the index, when it had to."""
        if allow_stale:
            folder = published_retrieval_index(self.vault, known=self._data.folder if self._data else None)
        else:
            generation = ledger_counters(self.vault).sections if generation is None else generation
            folder = self._index_for_embedding_search(generation, [] if notes is None else notes)
        if folder is None:
            return None
        if self._data is None or self._data.folder != folder:
            self._data = load(folder)
            built, self._built = self._built, None
            # The walks ``prepare_built`` made for this very object stand (it held the object: its id is not reused).
            self._walks = {key: walk for key, walk in self._walks.items() if self._data is built and key[0] == id(built)}
            if self._keyword_folder is None:
                self._keyword = None
        return self._data

    def _index_for_embedding_search(self, generation: int, notes: list[str]) -> Path:
        """The fresh index, else the last published one (the search then says it is behind), else a new one, built
        here with a progress bar because nothing can answer without it (the search says why)."""
        choice = choose_index(self.vault, self.embedder().name, generation)
        if choice.folder is not None:
            return choice.folder
        notes.append(f"built the retrieval index first ({choice.why_build}); `engram index` builds it ahead of searches")
        with StageProgress() as bar:
            return refresh_retrieval_index(self.vault, self.embedder(), generation, progress=bar)

    def _changes_since(self, data: RetrievalData, generation: int) -> ChangedNotes | None:
        """What differs between the loaded index and the ledger at ``generation`` (None when the index is current)."""
        if read_generation(data.folder) == generation:
            return None
        if self._behind is None or self._behind[:2] != (data.folder, generation):
            conn = open_ledger(self.vault)
            try:
                rows = DocumentTable(conn).all()
            finally:
                conn.close()
            self._behind = (data.folder, generation, changed_notes(data.documents, rows))
        return self._behind[2] or None

    def prepare(self, mode: str = "full", progress: StageProgress | None = None) -> None:
        """Load what a ``mode`` search needs from the current index (data, the walk's matrices, the name matcher), so
        the first search after an index run in a long-lived process pays for none of it."""
        counters = ledger_counters(self.vault)
        settings = settings_for(mode, self.base)
        data = self._load_data(allow_stale=not settings.needs_embeddings, generation=counters.sections, notes=[])
        if data is None or data.n_passages == 0:
            return
        if progress is not None:
            progress.stage(MATRICES, 2)
        self._walk_for(data, settings, counters.overlay)
        if progress is not None:
            progress.advance()
        match_names(data, "")  # patches the vault's name matcher to this index
        data.ready_for_search()
        if progress is not None:
            progress.advance()

    def prepare_built(self, data: RetrievalData, mode: str = "full") -> None:
        """What ``prepare`` computes from the index alone (the walk's matrices for the overlay as it stands, the search
        reads), for an index just built, while its files are written and the analysis runs: at 100,000 notes, ~2.5 s
        that waited for both. ``prepare`` keeps them when the published folder loads as this same object."""
        if data.n_passages == 0:
            return
        self._built = data
        self._walk_for(data, settings_for(mode, self.base), ledger_counters(self.vault).overlay)
        data.ready_for_search()

    def _walk_for(self, data: RetrievalData, settings: RetrievalSettings, overlay_generation: int) -> None:
        """The walk's matrices a search with ``settings`` reads on ``data``, for the overlay at that generation."""
        settings = settings.for_facts(data.facts_from_language_model)
        if settings.use_ppr:
            self._walk(data, settings, overlay=self._current_overlay(overlay_generation))

    def _anchor_index(self, data: RetrievalData) -> tuple[np.ndarray, AnchorGraph]:
        """HippoRAG 2's fact vectors (its own text form, cached on disk) and graph, built on the first hipporag2 search."""
        if self._anchor is None or self._anchor[0] is not data:
            cache = EmbeddingCache(engram_dir(self.vault) / "vectors" / "cache.sqlite")
            try:
                vectors = cache.embed(self.embedder(), data.anchor_texts)
            finally:
                cache.close()
            self._anchor = (data, vectors, anchor_graph(data))
        return self._anchor[1], self._anchor[2]

    def _keyword_index(self, generation: int | None = None) -> KeywordIndex:
        folder = refresh_keyword_index(self.vault, generation)
        if self._keyword is None or folder != self._keyword_folder:
            self._keyword, self._keyword_folder = KeywordIndex.load(folder), folder
        return self._keyword

    def _section_texts(self, keys: list[ChunkKey]) -> Iterator[tuple[str, str]]:
        return section_texts(self.vault, keys)

    def _current_overlay(self, generation: int | None = None) -> OverlaySnapshot:
        """Judgments and supersessions, reloaded only when the ledger's overlay generation moved."""
        if generation is None:
            generation = ledger_counters(self.vault).overlay
        if self._overlay is None or generation != self._overlay.generation:
            self._overlay = load_overlay(self.vault)
        return self._overlay

    def _walk(self, data: RetrievalData, settings: RetrievalSettings, overlay: OverlaySnapshot | None = None) -> WalkGraph:
        key = (id(data), settings.edges, settings.synonym_threshold, overlay.generation if overlay else None)
        single = settings.ppr_single_precision and settings.ppr_tolerance >= SINGLE_PRECISION_FLOOR
        wanted = (*key, "float32") if single else key
        if wanted not in self._walks:  # a float32 walk keeps no float64 matrix beside it (the defaults walk float32)
            for stale in [held for held in self._walks if held[3] != key[3]]:  # built for an overlay since moved
                del self._walks[stale]
            walk = self._walks.get(key)
            if walk is None:
                judged = overlay_edges(data, overlay) if overlay else None
                blocked = blocked_synonyms(data, overlay) if overlay else None
                matrix = adjacency(data, settings.edges, settings.synonym_threshold, judged=judged, blocked=blocked)
                walk = transition_matrix(matrix, symmetric=True)  # adjacency adds each edge both ways
            self._walks[wanted] = walk.single_precision() if single else walk
        return self._walks[wanted]

    # -- searching -----------------------------------------------------------
    @fewer_collections()
    def search(self, query: str, k: int = 10, mode: str = "full", settings: RetrievalSettings | None = None) -> SearchOutcome:
        if not query.strip():
            raise EngramError("the query is empty")
        if mode not in MODES and mode not in ABLATIONS:
            raise EngramError(f"unknown search mode {mode!r}; available: {', '.join(MODES)}")
        started = time.perf_counter()
        chosen = settings or settings_for(mode, self.base)
        counters = ledger_counters(self.vault)  # one ledger read per search, shared by every index it consults
        overlay = self._current_overlay(counters.overlay)
        notes: list[str] = []
        data = None if mode == "keyword" else self._load_data(not chosen.needs_embeddings, counters.sections, notes)
        if mode == "auto":
            k = min(k, AUTO_MAX_RESULTS)
        if data is None or data.n_passages == 0:
            # keyword mode, or auto before any full search has built the graph: BM25 over the ledger's sections
            if self._keyword_searcher is None:
                self._keyword_searcher = KeywordSearcher(self.vault)
            results = label_superseded(self._keyword_searcher.search(query, k), overlay)
            context = assemble_context(results)
            if mode == "auto":
                context = f"[{AUTO_HEADER}]\n\n{context}"
            signals = match_signals(self._keyword_searcher.index, query, results[0].text if results else None, None,
                                    texts=self._section_texts)
            return SearchOutcome(query, mode, results, context, seconds=time.perf_counter() - started,
                                 confidence=confidence(signals), signals=signals)
        ranking = self._rank(data, query, mode, chosen, overlay, counters.sections, notes)
        if chosen.change_pairs and mode != "hipporag2":
            ranking.doc_scores = complete_change_pair(data, ranking.doc_scores, query, k)
        changes = self._changes_since(data, counters.sections) if chosen.needs_embeddings else None
        if changes is None:
            results = self._results(data, ranking, k)
        else:  # ranked with an index behind the notes: its stale notes out, the changed ones in by keywords
            keyword = keyword_results(self.vault, self._keyword_index(counters.sections), query, max(2 * k, 20))
            results = merge_keyword_hits(self._results(data, ranking, k + len(changes.stale)), keyword, changes, k)
            notes.append(behind_line(changes))
        results = label_superseded(results, overlay)
        seeds = sorted(_seed_entities(data, ranking), key=lambda i: -ranking.entity_scores[i] if ranking.entity_scores.size else 0)
        context = assemble(data, results, ranking.entity_scores, seeds)
        if mode == "auto":
            context = f"[{AUTO_HEADER}]\n\n{context}"
        cosines, bm25 = ranking.seeds.passage_cosines, ranking.seeds.bm25_sections
        measured = cosines is not None and cosines.size > 0
        agreement = leg_agreement(data.sections["doc_index"].to_numpy(), bm25, cosines) if measured and bm25 is not None else None
        signals = match_signals(self._keyword_index(counters.sections), query, results[0].text if results else None,
                                float(cosines.max()) if measured else None, agreement, self._section_texts)
        return SearchOutcome(query, mode, results, context, ranking, time.perf_counter() - started, notes,
                             confidence(signals), signals)

    def _rank(self, data: RetrievalData, query: str, mode: str, settings: RetrievalSettings, overlay: OverlaySnapshot,
              sections_generation: int, notes: list[str]) -> Ranking:
        settings = settings.for_facts(data.facts_from_language_model)
        q = self.embedder().encode([query])[0] if settings.needs_embeddings or mode == "hipporag2" else None
        section_cos = data.section_vectors @ q if q is not None else None
        ranking = self._rank_legs(data, query, mode, settings, overlay, sections_generation, notes, q, section_cos)
        ranking.seeds.passage_cosines = section_cos
        return ranking

    def _rank_legs(self, data: RetrievalData, query: str, mode: str, settings: RetrievalSettings, overlay: OverlaySnapshot,
                   sections_generation: int, notes: list[str], q: np.ndarray | None, section_cos: np.ndarray | None) -> Ranking:
        if mode == "hipporag2":
            anchor_facts, graph = self._anchor_index(data)
            fact_cos = anchor_facts @ q if anchor_facts.size else np.zeros(0)
            return hipporag2_rank(data, graph, section_cos, fact_cos)
        bm25 = self._bm25_sections(data, query, sections_generation)
        lexical = {}
        if settings.lexical > 0:
            lexical = match_names(data, query, fuzzy=settings.lexical_fuzzy)
        graph_legs = mode not in ("dense", "rrf")
        entity_cos = _cosines(data.entity_vectors, q) if graph_legs and settings.entity_dense > 0 else None
        fact_cos = _cosines(data.fact_vectors, q) if graph_legs and settings.fact_dense > 0 else None
        if mode == "dense":
            ranking = _dense_only(data, section_cos)
        elif mode == "rrf":
            ranking = rrf_ranking(data, bm25 if settings.bm25 > 0 else np.zeros_like(bm25), section_cos)
        else:
            walk = self._walk(data, settings, overlay=overlay) if settings.use_ppr else None
            ranking = rank(data, settings, walk, lexical=lexical, bm25_sections=bm25, section_cos=section_cos,
                           entity_cos=entity_cos, fact_cos=fact_cos, fact_selector=self._fact_selector(data, query, notes))
        ranking.seeds.bm25_sections = bm25  # every mode's, for the confidence's leg agreement
        return ranking

    def _bm25_sections(self, data: RetrievalData, query: str, sections_generation: int) -> np.ndarray:
        """BM25's scores per section row of ``data`` (zero beyond its best ``BM25_HITS``)."""
        bm25 = np.zeros(data.sections.height)
        hits = self._keyword_index(sections_generation).search(query, BM25_HITS)
        for hit, row in zip(hits, data.section_rows([hit.key[:3] for hit in hits])):
            if row is not None:
                bm25[row] = hit.score
        return bm25

    def _fact_selector(self, data: RetrievalData, query: str, notes: list[str]) -> FactSelector | None:
        """The configured filter as the pure scorer's callback; what it did goes to ``notes``."""
        model = self.fact_filter
        if model is None:
            return None
        texts = data.facts["text"]

        def select(candidates: np.ndarray) -> np.ndarray | None:
            reply = model.select(query, [texts[int(i)] for i in candidates])
            notes.append(reply.note)
            return None if reply.kept is None else candidates[reply.kept]

        return select

    def _results(self, data: RetrievalData, ranking: Ranking, k: int) -> list[SearchResult]:
        order = top_positive(ranking.doc_scores, k)
        section_scores = ranking.seeds.section_scores
        doc_index = data.sections["doc_index"].to_numpy()
        results = []
        for d in order:
            candidates = np.flatnonzero(doc_index == d)
            if candidates.size == 0:
                continue
            best = int(candidates[np.argmax(section_scores[candidates])]) if section_scores is not None else int(candidates[0])
            section = data.sections.row(best, named=True)
            document = data.documents.row(d, named=True)
            results.append(SearchResult(
                rank=len(results) + 1, path=document["path"], cell_id=section["cell_id"], doc_id=document["doc_id"],
                score=float(ranking.doc_scores[d]), span=(section["start"], section["end"]), heading=section["heading"],
                heading_path=tuple(p for p in section["heading_path"].split(" > ") if p), text=section["text"],
                status=document["status"], date=document["date"].isoformat() if document.get("date") else None,
            ))
        return results


def _seed_entities(data: RetrievalData, ranking: Ranking) -> set[int]:
    """Entities the query reached directly: by name, by label embedding, or as an end of a seeded fact."""
    found = set(ranking.seeds.lexical) | set(ranking.seeds.entity_dense)
    subjects, objects = data.facts["s"].to_numpy(), data.facts["o"].to_numpy()
    for fact in ranking.seeds.facts:
        found |= {int(subjects[fact]), int(objects[fact])}
    return found


def _cosines(vectors: RowVectors, q: np.ndarray | None) -> np.ndarray | None:
    """The query's cosine with every row, computed only for a leg that is weighed: at 100,000 notes each product
    reads ~0.9 GB of vectors, and ``full`` weighs the entity labels at 0 by default."""
    return vectors @ q if q is not None and vectors.size else None


def _dense_only(data: RetrievalData, section_cos: np.ndarray) -> Ranking:
    seeds = SeedScores(section_scores=section_cos)
    return Ranking(doc_max(np.clip(section_cos, 1e-9, None), data), np.zeros(data.n_entities), seeds, None)
