"""The engine facade: one vault, the stages wired together, nothing more.

Each method delegates to a stage module; the facade only keeps what is costly to
load (the search index) between calls and drops it when an index run changes it.
An index run builds everything a search reads, so no search has to.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from engram_lab.collector import fewer_collections
from engram_lab.errors import EngramError
from engram_lab.extract.openie import ImportedExtractor, match_passages, model_from_filename, read_openie
from engram_lab.graph.store import STORE_DIR, query_read_only
from engram_lab.index.derived import refresh_keyword_index
from engram_lab.index.embeddings import Embedder, default_embedder, lazy_embedder
from engram_lab.index.progress import ANALYSIS, KEYWORDS, StageListener, StageProgress
from engram_lab.index.retrieval_index import RetrievalData, refresh_retrieval_index, warm_edges
from engram_lab.indexer import IndexReport, index_vault, reindex_with
from engram_lab.ingest import IngestedFile, ingest_file
from engram_lab.learn import LearnResult, accept_learned, learn, pending_learned
from engram_lab.retrieve.fact_filter import configured_fact_filter
from engram_lab.retrieve.results import SearchResult
from engram_lab.retrieve.searcher import SearchOutcome, Searcher
from engram_lab.retrieve.settings import ABLATIONS, MODES
from engram_lab.resolve.dismiss import Dismissal, dismiss_rule, retract_batch
from engram_lab.resolve.run import AnalysisInputs, AnalysisReport, read_inputs, warm_analysis
from engram_lab.resolve.service import (
    import_decisions, judge_pair, pending_pairs, pending_rules, retract_decision, run_analysis, supersession_candidates,
    supersession_verdict,
)
from engram_lab.state.db import ANALYSED_GENERATION, engram_dir, ledger_connection, open_ledger, read_counter, set_counter, transaction
from engram_lab.state.decisions import Decision, DecisionLedger
from engram_lab.state.document_rows import DocumentReads
from engram_lab.state.documents import DocumentTable
from engram_lab.state.review import QueuedPair, StoredCandidate
from engram_lab.status import StatusReport, vault_status
from engram_lab.vault import scan_vault
from engram_lab.vault.safe_open import read_vault_text
from engram_lab.vault.root import require_vault

SEARCH_MODES = MODES


@dataclass(frozen=True)
class ImportReport:
    model: str
    matched: int
    unmatched: int
    dropped_triples: int
    index: IndexReport


def _focused(report: IndexReport, full: bool, analysed: int) -> bool:
    """Whether the analysis after ``report``'s run scores only what the changed notes touch: the last analysis
    (``analysed``: its sections generation) saw the state before the run, and no full pass was asked for."""
    return not full and analysed == report.generation_before


class Engine:
    def __init__(self, vault: Path | str, embedder_factory: Callable[[], Embedder] = default_embedder) -> None:
        """``embedder_factory``: the embedding model for the index and the queries (loaded once per process by default)."""
        self.vault = require_vault(Path(vault))
        self.embedder_factory = embedder_factory
        self._searcher: Searcher | None = None
        self.analysis: AnalysisReport | None = None
        self._analysis_warm = False  # whether a warm index run has read the analysis's kept state in this engine

    @fewer_collections()
    def index(self, *, full: bool = False, progress: bool | None = None, on_stage: StageListener | None = None,
              warm: bool = False) -> IndexReport:
        """Index the notes, run the analysis pass (resolution, supersession) over what changed, and build every index
        a search reads, under one progress display naming the stage (``on_stage(stage, done, total)`` hears it too).

        ``warm``: also load the new index and the walk's matrices now (a long-lived process: a kernel, the server).
        """
        started = time.perf_counter()
        with StageProgress(progress, on_stage) as bar:
            report = index_vault(self.vault, full=full, progress=progress, stages=bar)
            # On the other core: the analysis's reads of the tables while BM25 and the retrieval index are built, then
            # the walk's matrices while the index's files are written and the analysis runs.
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-analysis") as reader:
                read_at = self._reads_beside(report, full)
                inputs = None if read_at is None else (read_at, reader.submit(read_inputs, self.vault))
                with self._preparing(warm) as prepare:
                    self._build_search_indexes(bar, prepare)
                    bar.stage(ANALYSIS, 1)
                    self.analysis = self._analyse(report, full, inputs)  # after the retrieval index: it reads its synonym pairs
            warming = warm and not self._analysis_warm
            if warming and self.analysis is None:
                warm_analysis(self.vault)  # nothing to analyse now: read what the next edit's pass keeps
            self._analysis_warm = self._analysis_warm or warm
            bar.advance()
            if warm:
                self.searcher.prepare(progress=bar)
                if warming and (data := self.searcher.loaded_data) is not None:
                    warm_edges(data)
            if warming:
                # What the start-up loaded and kept (millions of objects at 100,000 notes) goes to the oldest generation
                # now (0.3 s); else the first edit's young collections walked all of it again and again (+4 s of CPU).
                gc.collect()
        report.seconds = time.perf_counter() - started  # the whole run, search indexes included
        return report

    @contextmanager
    def _preparing(self, warm: bool) -> Iterator[Callable[[RetrievalData | None], None]]:
        """With ``warm``, what the block hands the callback is prepared on a thread while the block goes on: an index
        just built (``Searcher.prepare_built``, while its files are written and the analysis runs: mostly Python, where
        the matrices are mostly numpy and scipy), or None for the published one (``prepare``). The walk is built for
        the overlay as it stands before the analysis; when the analysis moves it, the ``prepare`` after the block
        builds it again. A failure here is left to that ``prepare`` to raise."""
        if not warm:
            yield lambda data: None
            return
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="engram-prepare") as pool:
            pending: list[Future[None]] = []

            def prepare(data: RetrievalData | None) -> None:
                searcher = self.searcher
                pending.append(pool.submit(searcher.prepare) if data is None else pool.submit(searcher.prepare_built, data))

            try:
                yield prepare
            finally:
                if any(job.exception() is not None for job in pending):
                    self._searcher = None  # a fresh searcher for the prepare that follows, which raises it again

    def _build_search_indexes(self, bar: StageProgress,
                              prepare: Callable[[RetrievalData | None], None] = lambda data: None) -> None:
        """BM25 and the retrieval index (embeddings through the cache, so only new texts are encoded, then neighbours).
        ``prepare``: handed the new retrieval index once built, or None once the published one is current."""
        self._searcher = None
        bar.stage(KEYWORDS, 1)
        reads = DocumentReads()  # both indexes read every document row: once
        refresh_keyword_index(self.vault, reads=reads)
        bar.advance()
        built: list[RetrievalData] = []

        def on_built(data: RetrievalData) -> None:
            built.append(data)
            prepare(data)

        refresh_retrieval_index(self.vault, lazy_embedder(self.embedder_factory), progress=bar, reads=reads, on_built=on_built)
        if not built:
            prepare(None)

    def _reads_beside(self, report: IndexReport, full: bool) -> int | None:
        """The ledger's sections generation now, when this run's analysis is a pass focused on fewer notes than stayed
        as they were, else None: only then do its reads of the tables go beside the search indexes' build (a first
        run's build holds the most memory it ever will, and its analysis waits for it as before)."""
        changes = len(report.added) + len(report.updated) + len(report.renamed) + len(report.deleted)
        if full or changes == 0 or changes >= report.unchanged:
            return None
        conn = open_ledger(self.vault)
        try:
            generation = DocumentTable(conn).generation()
            return generation if _focused(report, full, read_counter(conn, ANALYSED_GENERATION)) else None
        finally:
            conn.close()

    def _analyse(self, report: IndexReport, full: bool,
                 inputs: tuple[int, Future[AnalysisInputs]] | None = None) -> AnalysisReport | None:
        """Focused on the changed notes when the last analysis saw the state before this run, else over everything.
        ``inputs``: the sections generation, then the tables' reads begun at it. They are used only while the ledger
        is still at it: tables another process indexed since would be analysed under a generation they are not."""
        conn = open_ledger(self.vault)
        try:
            documents = DocumentTable(conn)
            generation, analysed = documents.generation(), read_counter(conn, ANALYSED_GENERATION)
            # The changed notes' ids by path: reading all 10,000 rows took 0.1 s of every edit.
            ids = {row.doc_id for path in {*report.added, *report.updated, *(n for _, n in report.renamed)}
                   if (row := documents.by_path(path)) is not None}
        finally:
            conn.close()
        if analysed == generation and not full:
            return None
        focus = ids if _focused(report, full, analysed) else None
        read = inputs[1].result() if inputs is not None and inputs[0] == generation else None
        result = run_analysis(self.vault, focus, read)
        conn = open_ledger(self.vault)
        try:
            with transaction(conn):
                set_counter(conn, ANALYSED_GENERATION, generation)
        finally:
            conn.close()
        return result

    @fewer_collections()
    def analyse(self) -> AnalysisReport:
        """The whole analysis pass over every entity (``engram resolve --rescan``)."""
        report = run_analysis(self.vault, None)
        self._searcher = None
        return report

    def pending_pairs(self, limit: int | None = None, *, sort: str = "score") -> list[QueuedPair]:
        return pending_pairs(self.vault, limit, sort=sort)

    def pending_rules(self) -> dict[str, int]:
        return pending_rules(self.vault)

    def dismiss_rule(self, rule: str) -> Dismissal:
        """A person's ``distinct`` on every waiting pair ``rule`` proposed; undone as one by ``retract_batch``."""
        dismissal = dismiss_rule(self.vault, rule)
        self._searcher = None
        return dismissal

    def retract_batch(self, batch_id: str) -> list[Decision]:
        decisions = retract_batch(self.vault, batch_id)
        self._searcher = None
        return decisions

    def judge(self, a: str, b: str, verdict: str, *, force: bool = False) -> Decision:
        """A person's judgment 'A VERDICT B'; it outranks every machine judgment on that pair."""
        decision = judge_pair(self.vault, a, b, verdict, force=force)
        self._searcher = None
        return decision

    def retract(self, decision_id: str) -> Decision:
        decision = retract_decision(self.vault, decision_id)
        self._searcher = None
        return decision

    def learn(self, title: str, body: str, sources: list[str], *, force: bool = False) -> LearnResult:
        """Write a learned note (pending review) and index it, so it is searchable at once."""
        result = learn(self.vault, title, body, sources, force=force)
        self.index(progress=False)
        return result

    def pending_learned(self) -> list[str]:
        return pending_learned(self.vault)

    def accept_learned(self, path: str) -> IndexReport:
        """A person accepts a learned note: its status flips and its extraction enters the graph."""
        accept_learned(self.vault, path)
        return self.index(progress=False)

    def supersessions(self) -> list[StoredCandidate]:
        return supersession_candidates(self.vault)

    def supersession_verdict(self, handle: str, verdict: str) -> Decision:
        decision = supersession_verdict(self.vault, handle, verdict)
        self._searcher = None
        return decision

    def status(self) -> StatusReport:
        return vault_status(self.vault)

    def query(self, query: str, *, k: int = 10, mode: str = "full") -> SearchOutcome:
        """Ranked results with provenance, and the context an agent would receive."""
        if mode not in MODES and mode not in ABLATIONS:
            raise EngramError(f"unknown search mode {mode!r}; available: {', '.join(MODES)}")
        if k < 1:
            raise EngramError(f"--k must be at least 1, got {k}")
        return self.searcher.search(query, k=k, mode=mode)

    @property
    def searcher(self) -> Searcher:
        if self._searcher is None:
            self._searcher = Searcher(self.vault, self.embedder_factory, fact_filter=configured_fact_filter(self.vault))
        return self._searcher

    def search(self, query: str, *, k: int = 10, mode: str = "full") -> list[SearchResult]:
        return self.query(query, k=k, mode=mode).results

    def sparql(self, query: str, *, federated: bool = False) -> pl.DataFrame:
        """Run a SPARQL query over every graph (their union is the default graph); a Polars DataFrame back.
        ``SERVICE`` clauses (requests to other servers) are refused unless ``federated``."""
        return query_read_only(engram_dir(self.vault) / STORE_DIR, query, federated=federated)

    def import_openie(self, path: Path, model: str | None = None) -> ImportReport:
        """Store HippoRAG OpenIE triples in the graphs of the notes holding their passages."""
        records, dropped = read_openie(path)
        self.index(progress=False)  # the notes must be known before their graphs are replaced
        notes = {vf.rel_path: read_vault_text(self.vault, vf.rel_path, 1 << 40)  # no link followed, as the index reads
                 for vf in scan_vault(self.vault).files if vf.kind == "markdown"}
        matched, unmatched = match_passages(records, notes)
        name = model or model_from_filename(path)
        report = reindex_with(self.vault, ImportedExtractor(name, matched), set(matched), progress=False)
        with StageProgress(False) as bar:
            self._build_search_indexes(bar)
        return ImportReport(name, len(matched), len(unmatched), dropped, report)

    def ingest(self, source: Path) -> IngestedFile:
        return ingest_file(self.vault, source)

    @contextmanager
    def decisions(self) -> Iterator[DecisionLedger]:
        with ledger_connection(self.vault) as conn:
            yield DecisionLedger(conn)

    def export_decisions(self, path: Path) -> int:
        with self.decisions() as ledger:
            return ledger.export_json(path)

    def import_decisions(self, path: Path) -> dict[str, int]:
        counts = import_decisions(self.vault, path)
        self._searcher = None
        return counts
