"""The incremental index run: scan, parse and extract what changed, write graph, tables and ledger.

Order of writes, per chunk of documents, makes a crash safe at any point:
1. each document's named graph is swapped whole (one Oxigraph transaction);
2. the chunk's table rows are written (bucket files, renamed into place);
3. the ledger records the chunk (one SQLite transaction): this is the commit point.
A document whose ledger row did not commit still differs from its file on the
next run and is simply done again; extraction is deterministic, so redoing it
writes the same graph. A rename is recorded in the same ledger transaction as
the renamed note's new rows, so a kill before it leaves the old path in the
ledger and the next run finds the rename again. A failed document keeps
everything indexed before. Each run first checks that the graph store and the
tables still agree with the ledger (:mod:`engram_lab.index.integrity`) and
redoes the notes they disagree about.
"""

from __future__ import annotations

import datetime as dt
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from engram_lab.config import VaultConfig, load_config
from engram_lab.errors import DocumentError
from engram_lab.extract.factory import Extractor, build_extractor
from engram_lab.extract.limits import bound_extraction
from engram_lab.extract.model import Extraction
from engram_lab.extract.openie import IMPORT_PREFIX
from engram_lab.extract.segment import segment_document
from engram_lab.graph.quads import DocumentInfo, document_quads
from engram_lab.graph.store import STORE_DIR, GraphStore, Quad
from engram_lab.graph.vocabulary import document_iri
from engram_lab.index.integrity import check_tables, store_problem
from engram_lab.index.progress import READ_NOTES, StageProgress
from engram_lab.index.tables import TABLES_DIR, DocumentRows, TableStore, document_rows
from engram_lab.state.db import engram_dir, open_ledger, transaction
from engram_lab.state.lock import vault_write_lock
from engram_lab.state.document_rows import all_document_rows, prune_document_log
from engram_lab.state.documents import DocumentRow, DocumentStatus, DocumentTable, IndexedContent
from engram_lab.vault import VaultFile, decode_note_text, document_sections, parse_document, read_note_bytes, scan_vault
from engram_lab.vault.model import DocumentModel
from engram_lab.vault.note_date import note_date
from engram_lab.vault.root import require_vault
from engram_lab.vault.sections import Section

LEARNED_DIR = "learned/"
# Commit (tables, then ledger) every CHUNK_DOCS documents or CHUNK_SECONDS, whichever comes first:
# table files are rewritten per commit, so fewer commits index faster (the 1,890-passage corpus: one commit, not
# two, -1.2 s); a crash redoes at most one chunk (LLM answers are cached, so that costs no second call).
CHUNK_DOCS = 2000
GRAPH_BATCH = 50  # documents' graphs written in one store transaction (always before their ledger commit)
CHUNK_SECONDS = 30.0


@dataclass
class IndexReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    partial: list[tuple[str, str]] = field(default_factory=list)  # indexed, but some segments failed to extract
    warnings: list[str] = field(default_factory=list)  # skipped folders and links, not documents
    repaired: list[str] = field(default_factory=list)  # derived files found damaged or behind the ledger, and redone
    capped: list[tuple[str, str]] = field(default_factory=list)  # indexed, but a per-note cap cut its graph
    unchanged: int = 0
    seconds: float = 0.0
    generation_before: int = 0  # the ledger's sections generation when the run began

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.renamed or self.deleted)


def review_status(doc: DocumentModel) -> DocumentStatus:
    """Machine-written notes under ``learned/`` stay out of the record until a person accepts them."""
    if doc.rel_path.startswith(LEARNED_DIR) and (doc.status or "").lower() != "accepted":
        return "pending-review"
    return "indexed"


def needs_work(vf: VaultFile, row: DocumentRow | None, full: bool, extractor: tuple[str, str] | None = None) -> bool:
    """Whether a note must be read again: new, changed on disk, failed, partial, or extracted by another extractor."""
    if full or row is None or row.status in ("failed", "stale") or row.error:
        return True
    if (row.size, row.mtime_ns) != (vf.size, vf.mtime_ns):
        return True
    if extractor is None or (row.extractor or "").startswith(IMPORT_PREFIX):
        return False  # imported triples stand until the note itself changes
    return (row.extractor, row.extractor_version) != extractor


@dataclass
class _Done:
    """A parsed and extracted document waiting for its chunk to commit."""

    path: str
    doc_id: str
    content: IndexedContent
    sections: list[Section]
    rows: DocumentRows
    error: str | None
    outcome: str  # "added" or "updated" or "renamed"
    moved_from: str | None = None  # a rename's old path: the ledger moves the row when the chunk commits


class _Run:
    """One index run over one vault; holds the open stores and the report being built."""

    def __init__(self, vault: Path, config: VaultConfig, progress: bool | None, extractor: Extractor | None = None,
                 stages: StageProgress | None = None) -> None:
        self.vault = vault
        self.config = config
        self.progress = progress
        self.stages = stages
        self.conn = open_ledger(vault)
        self.table = DocumentTable(self.conn)
        self.extractor: Extractor = extractor or build_extractor(config, engram_dir(vault))
        self._store: GraphStore | None = None
        self._bulk = False  # the store's log was released during the run: compact it once at the end
        self._graphs: list[tuple[str, list[Quad]]] = []  # (graph, quads) extracted, not yet written
        self.tables = TableStore(engram_dir(vault) / TABLES_DIR)
        self.report = IndexReport()

    @property
    def store(self) -> GraphStore:
        """Opened on first use: a run with nothing to change never touches the graph store."""
        if self._store is None:
            self._store = GraphStore(engram_dir(self.vault) / STORE_DIR)
        return self._store

    def execute(self, full: bool, only: set[str] | None = None) -> IndexReport:
        started = time.perf_counter()
        with vault_write_lock(self.vault):  # the store is closed before the lock is let go
            try:
                self._execute(full, only)
            finally:
                if self._store is not None:
                    self._store.close()
                self.conn.close()
        self.report.seconds = time.perf_counter() - started
        return self.report

    def _execute(self, full: bool, only: set[str] | None) -> None:
        self.report.generation_before = self.table.generation()
        scan = scan_vault(self.vault, allow_hard_links=self.config.allow_hard_links)
        known = {row.path: row for row in all_document_rows(self.conn)}  # re-reads only rows changed since the last run
        problem_docs = {p.rel_path: p.problem for p in scan.problems if p.is_document}
        self.report.warnings = [f"{p.rel_path}: {p.problem}" for p in scan.problems if not p.is_document]
        present = {vf.rel_path for vf in scan.files}
        missing = {path: row for path, row in known.items() if path not in present and path not in problem_docs}
        signature = (self.extractor.name, self.extractor.version)
        if only is None:
            redo = self._check_derived(known)
            todo = [vf for vf in scan.files if vf.rel_path in redo or needs_work(vf, known.get(vf.rel_path), full, signature)]
        else:  # re-extract exactly these notes (an import); the rest of the vault is left as it is
            todo = [vf for vf in scan.files if vf.rel_path in only]
            missing, problem_docs = {}, {}
        self.report.unchanged = len(scan.files) - len(todo)

        with transaction(self.conn):
            self.table.mark_stale([known[vf.rel_path].doc_id for vf in todo if vf.rel_path in known])
        missing_by_hash = {row.content_hash: row for row in missing.values() if row.content_hash}
        bar = self.stages or StageProgress(self.progress)
        bar.stage(READ_NOTES, len(todo))
        pending: list[_Done] = []
        last_commit = time.monotonic()
        for vf in todo:
            done = self._index_one(vf, known.get(vf.rel_path), missing_by_hash)
            if done is not None:
                pending.append(done)
            if len(pending) >= CHUNK_DOCS or time.monotonic() - last_commit >= CHUNK_SECONDS:
                self._commit(pending)
                pending, last_commit = [], time.monotonic()
            bar.advance()
        self._commit(pending)
        if self.stages is None:
            bar.close()
        for path, problem in problem_docs.items():
            with transaction(self.conn):
                self.table.record_failed(path, "notebook" if path.lower().endswith(".ipynb") else "markdown", problem)
            self.report.failed.append((path, problem))
        self._delete([row for path, row in missing.items() if path not in {old for old, _ in self.report.renamed}])
        with transaction(self.conn):
            prune_document_log(self.conn)
        self._settle_if_large()
        if not (engram_dir(self.vault) / STORE_DIR).exists():
            _ = self.store  # an indexed vault always has a store, if an empty one, so SPARQL works on it

    def _check_derived(self, known: dict[str, DocumentRow]) -> set[str]:
        """Paths to redo because the store or the tables disagree with the ledger (a kill, a damaged file)."""
        leftovers = self.tables.remove_leftovers()
        if leftovers:
            self.report.repaired.append(f"{self.tables.base}: removed {len(leftovers)} temporary file(s) of an interrupted run")
        indexed = {row.doc_id: row.path for row in known.values() if row.status in ("indexed", "pending-review") and not row.error}
        check = check_tables(self.tables, indexed, {row.doc_id for row in known.values()})
        self.report.repaired += check.problems
        for bucket in check.unreadable:
            self.tables.drop_bucket(bucket)  # its notes no longer match, so they are in check.redo
        if check.orphans:
            self.tables.apply(dict.fromkeys(check.orphans))
        redo = {indexed[doc_id] for doc_id in check.redo}
        store_dir = engram_dir(self.vault) / STORE_DIR
        graph_docs = [row.path for row in known.values() if row.status == "indexed"]
        problem = store_problem(store_dir, bool(graph_docs))
        if problem:
            self.report.repaired.append(f"{problem}; the graphs of {len(graph_docs)} note(s) are rebuilt")
            if store_dir.is_symlink() or store_dir.is_file():
                store_dir.unlink()
            elif store_dir.exists():
                shutil.rmtree(store_dir)
            redo.update(graph_docs)
        return redo

    def _index_one(self, vf: VaultFile, row: DocumentRow | None, missing_by_hash: dict[str, DocumentRow]) -> _Done | None:
        outcome = "added" if row is None else "updated"
        moved_from: str | None = None
        try:
            note = read_note_bytes(self.vault, vf.rel_path, self.config.max_note_bytes,
                                   allow_hard_links=self.config.allow_hard_links)
            if row is None and note.content_hash in missing_by_hash:
                row = missing_by_hash.pop(note.content_hash)
                outcome, moved_from = "renamed", row.path
            doc = parse_document(decode_note_text(note.data, vf.rel_path), vf.rel_path, vf.kind)
        except DocumentError as exc:
            with transaction(self.conn):
                if moved_from is not None and row is not None:
                    self.table.move(row.doc_id, vf.rel_path)
                    self.report.renamed.append((moved_from, vf.rel_path))
                self.table.record_failed(vf.rel_path, vf.kind, exc.problem)
            self.report.failed.append((vf.rel_path, exc.problem))
            return None
        if moved_from is not None and row is not None:
            doc_id = row.doc_id  # the ledger still has the old path until this note's chunk commits
        else:
            with transaction(self.conn):
                doc_id = self.table.ensure(vf.rel_path, vf.kind)
        status = review_status(doc)
        segments = segment_document(doc)
        extraction = self.extractor.extract(doc, segments) if status == "indexed" else None
        if extraction is not None:
            self.report.capped += [(vf.rel_path, warning) for warning in bound_extraction(extraction)]
        author = doc.author or self.config.owner
        if extraction is None:
            self._write_graphs()  # in order: a graph queued for this note before must not outlive the drop
            self.store.drop_graph(document_iri(doc_id))  # pending review: searchable, not in the graph
        else:
            info = DocumentInfo(doc_id, vf.rel_path, doc.title, author, dt.datetime.now(dt.timezone.utc))
            self._graphs.append((document_iri(doc_id), list(document_quads(info, extraction))))
            if len(self._graphs) >= GRAPH_BATCH:
                self._write_graphs()
        content = IndexedContent(
            kind=vf.kind, title=doc.title, content_hash=note.content_hash, size=len(note.data), mtime_ns=vf.mtime_ns,
            status=status, extractor=self.extractor.name, extractor_version=self.extractor.version,
        )
        doc_row = {"doc_id": doc_id, "path": vf.rel_path, "iri": document_iri(doc_id), "title": doc.title, "kind": vf.kind,
                   "status": status, "author": author, "extractor": self.extractor.name,
                   "extractor_version": self.extractor.version, "model": getattr(self.extractor, "model", None),
                   "content_hash": note.content_hash, **_usage_columns(extraction),
                   "warnings": list(extraction.warnings) if extraction is not None else [], "date": note_date(doc)}
        error = "; ".join(extraction.errors) if extraction is not None and extraction.errors else None
        return _Done(vf.rel_path, doc_id, content, document_sections(doc), document_rows(doc_row, segments, extraction), error,
                     outcome, moved_from)

    def _write_graphs(self) -> None:
        """Write the queued documents' graphs; always before the ledger records those documents as indexed."""
        if self._graphs:
            self.store.replace_graphs(self._graphs)
            self._graphs = []

    def _commit(self, chunk: list[_Done]) -> None:
        self._write_graphs()
        if not chunk:
            return
        self.tables.apply({done.doc_id: done.rows for done in chunk})
        with transaction(self.conn):  # the commit point: renames and new content together
            for done in chunk:
                if done.moved_from is not None:
                    self.table.move(done.doc_id, done.path)
                self.table.record_indexed(done.path, done.content, done.sections, done.error)
        self._release_log_if_large()  # inside a long run too, so a kill never leaves gigabytes of log to replay
        for done in chunk:
            if done.moved_from is not None:
                self.report.renamed.append((done.moved_from, done.path))
            elif done.outcome == "added":
                self.report.added.append(done.path)
            elif done.outcome == "updated":
                self.report.updated.append(done.path)
            if done.error:
                self.report.partial.append((done.path, done.error))

    def _release_log_if_large(self) -> None:
        """Between chunks: flush and reopen the store when its log is large (not compacted: see ``settle``)."""
        if self._store is not None and self._store.settle_if_large(compact=False):
            self._bulk = True

    def _settle_if_large(self) -> None:
        """At the end of the run, after bulk writes: compact and reopen now, once; otherwise every later open (the
        next one-note edit, every ``engram sparql``) replays the write-ahead log and pays for it (BENCHMARKS.md)."""
        if self._store is None:
            return
        if self._bulk:
            self._store.settle()
        else:
            self._store.settle_if_large()

    def _delete(self, rows: list[DocumentRow]) -> None:
        for row in rows:
            self.store.drop_graph(document_iri(row.doc_id))
        if rows:
            self.tables.apply({row.doc_id: None for row in rows})
        with transaction(self.conn):
            for row in rows:
                self.table.delete(row.doc_id)
        self.report.deleted += [row.path for row in rows]


def _usage_columns(extraction: Extraction | None) -> dict[str, object]:
    """Tokens and latency of the LLM path for the documents table (zeros for the offline extractors)."""
    usage = extraction.usage if extraction is not None else {}
    return {"llm_calls": int(usage.get("calls", 0)), "prompt_tokens": int(usage.get("prompt_tokens", 0)),
            "completion_tokens": int(usage.get("completion_tokens", 0)), "llm_seconds": float(usage.get("seconds", 0.0))}


def index_vault(vault: Path, *, full: bool = False, progress: bool | None = None,
                stages: StageProgress | None = None) -> IndexReport:
    """Bring ``.engram/`` in step with the notes. ``full`` re-reads every note, ignoring file times.

    ``stages``: the display of a larger run this one is a stage of (else it shows its own bar, per ``progress``).
    """
    vault = require_vault(vault)
    return _Run(vault, load_config(vault), progress, stages=stages).execute(full)


def reindex_with(vault: Path, extractor: Extractor, paths: set[str], *, progress: bool | None = None) -> IndexReport:
    """Re-extract just ``paths`` with ``extractor`` (used to import precomputed extractions)."""
    vault = require_vault(vault)
    return _Run(vault, load_config(vault), progress, extractor).execute(False, only=paths)
