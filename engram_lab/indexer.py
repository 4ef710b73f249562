"""The incremental index run: scan, parse what changed, record state, refresh the keyword index.

Each document is committed in its own transaction, so a crash loses at most the
document being worked on; a file whose stored size and mtime still match is not
read at all. A document that fails keeps what was indexed before (its earlier
sections stay searchable) and is retried on the next run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from engram_lab.config import VaultConfig, load_config
from engram_lab.errors import DocumentError
from engram_lab.index.keyword import KeywordIndex
from engram_lab.index.publish import current_index_dir, publish_index
from engram_lab.state.db import engram_dir, open_ledger, transaction
from engram_lab.state.documents import DocumentRow, DocumentStatus, DocumentTable, IndexedContent
from engram_lab.vault import VaultFile, decode_note_text, document_sections, parse_document, read_note_bytes, scan_vault
from engram_lab.vault.model import DocumentModel
from engram_lab.vault.read import NoteBytes
from engram_lab.vault.root import require_vault

EXTRACTOR = "markdown-structure"
EXTRACTOR_VERSION = "1"
KEYWORD_INDEX = "keyword"
LEARNED_DIR = "learned/"


@dataclass
class IndexReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # skipped folders and links, not documents
    unchanged: int = 0
    keyword_index_rebuilt: bool = False
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.renamed or self.deleted)


def index_dir(vault: Path) -> Path:
    return engram_dir(vault) / "index"


def review_status(doc: DocumentModel) -> DocumentStatus:
    """Machine-written notes under ``learned/`` stay out of the record until a person accepts them."""
    if doc.rel_path.startswith(LEARNED_DIR) and (doc.status or "").lower() != "accepted":
        return "pending-review"
    return "indexed"


def needs_work(vf: VaultFile, row: DocumentRow | None, full: bool) -> bool:
    if full or row is None or row.status in ("failed", "stale"):
        return True
    return (row.size, row.mtime_ns, row.extractor_version) != (vf.size, vf.mtime_ns, EXTRACTOR_VERSION)


class _Run:
    """One index run over one vault; holds the open ledger and the report being built."""

    def __init__(self, vault: Path, config: VaultConfig, progress: bool | None) -> None:
        self.vault = vault
        self.config = config
        self.progress = progress
        self.conn = open_ledger(vault)
        self.table = DocumentTable(self.conn)
        self.report = IndexReport()

    def execute(self, full: bool) -> IndexReport:
        started = time.perf_counter()
        scan = scan_vault(self.vault)
        known = {row.path: row for row in self.table.all()}
        problem_docs = {p.rel_path: p.problem for p in scan.problems if p.is_document}
        self.report.warnings = [f"{p.rel_path}: {p.problem}" for p in scan.problems if not p.is_document]
        present = {vf.rel_path for vf in scan.files}
        missing = {path: row for path, row in known.items() if path not in present and path not in problem_docs}
        todo = [vf for vf in scan.files if needs_work(vf, known.get(vf.rel_path), full)]
        self.report.unchanged = len(scan.files) - len(todo)

        with transaction(self.conn):
            self.table.mark_stale([known[vf.rel_path].doc_id for vf in todo if vf.rel_path in known])
        missing_by_hash = {row.content_hash: row for row in missing.values() if row.content_hash}
        for vf in tqdm(todo, desc="indexing", unit="note", disable=None if self.progress is None else not self.progress):
            self._index_one(vf, known.get(vf.rel_path), missing_by_hash)
        for path, problem in problem_docs.items():
            with transaction(self.conn):
                self.table.record_failed(path, "notebook" if path.lower().endswith(".ipynb") else "markdown", problem)
            self.report.failed.append((path, problem))
        renamed_from = {old for old, _ in self.report.renamed}
        for path, row in missing.items():
            if path not in renamed_from:
                with transaction(self.conn):
                    self.table.delete(row.doc_id)
                self.report.deleted.append(path)
        self._refresh_keyword_index()
        self.conn.close()
        self.report.seconds = time.perf_counter() - started
        return self.report

    def _index_one(self, vf: VaultFile, row: DocumentRow | None, missing_by_hash: dict[str, DocumentRow]) -> None:
        renamed = False
        try:
            note = read_note_bytes(vf.abs_path, vf.rel_path, self.config.max_note_bytes)
            if row is None and note.content_hash in missing_by_hash:
                row = missing_by_hash.pop(note.content_hash)
                with transaction(self.conn):
                    self.table.move(row.doc_id, vf.rel_path)
                self.report.renamed.append((row.path, vf.rel_path))
                renamed = True
            doc = parse_document(decode_note_text(note.data, vf.rel_path), vf.rel_path, vf.kind)
        except DocumentError as exc:
            with transaction(self.conn):
                self.table.record_failed(vf.rel_path, vf.kind, exc.problem)
            self.report.failed.append((vf.rel_path, exc.problem))
            return
        self._record(vf, note, doc)
        if row is None:
            self.report.added.append(vf.rel_path)
        elif not renamed:
            self.report.updated.append(vf.rel_path)

    def _record(self, vf: VaultFile, note: NoteBytes, doc: DocumentModel) -> None:
        content = IndexedContent(
            kind=vf.kind,
            title=doc.title,
            content_hash=note.content_hash,
            size=len(note.data),
            mtime_ns=vf.mtime_ns,
            status=review_status(doc),
            extractor=EXTRACTOR,
            extractor_version=EXTRACTOR_VERSION,
        )
        with transaction(self.conn):
            self.table.record_indexed(vf.rel_path, content, document_sections(doc))

    def _refresh_keyword_index(self) -> None:
        """Rebuild BM25 when the ledger's sections moved on since the published index."""
        base = index_dir(self.vault)
        generation = self.table.generation()
        current = current_index_dir(base, KEYWORD_INDEX)
        if current is not None and _read_generation(current) == generation:
            return
        titles = {row.doc_id: row.title or row.path for row in self.table.all()}
        sections = self.table.sections()
        texts = [f"{titles.get(s.doc_id, '')}\n{' > '.join(s.heading_path)}\n{s.text}" for s in sections]
        index = KeywordIndex.build(texts, [(s.doc_id, s.ordinal) for s in sections])

        def write(folder: Path) -> None:
            index.save(folder)
            (folder / "generation").write_text(str(generation))

        publish_index(base, KEYWORD_INDEX, write)
        self.report.keyword_index_rebuilt = True


def _read_generation(folder: Path) -> int | None:
    try:
        return int((folder / "generation").read_text(encoding="utf-8").strip())
    except (FileNotFoundError, ValueError):
        return None


def index_vault(vault: Path, *, full: bool = False, progress: bool | None = None) -> IndexReport:
    """Bring ``.engram/`` in step with the notes. ``full`` re-reads every note, ignoring file times."""
    vault = require_vault(vault)
    return _Run(vault, load_config(vault), progress).execute(full)
