"""Vault-wide indexes derived from the ledger, rebuilt when the ledger's generation moves on.

An index run only updates per-document state (ledger, graphs, tables), which
keeps re-indexing one edited note cheap. Structures over the whole vault (BM25
here, the retrieval index in ``retrieval_index``) are patched for the documents
that moved since they were built (``index.changes``), or built whole when there
is nothing to patch, and published atomically with the generation they reflect:
a build killed midway leaves the last published folder in service.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from engram_lab.index.changes import chunks_of, document_changes, snapshot_signatures
from engram_lab.index.chunks import section_chunks
from engram_lab.index.keyword import KeywordIndex
from engram_lab.index.publish import current_index_dir, publish_index
from engram_lab.index.recent import remember
from engram_lab.state.db import OVERLAY_GENERATION, engram_dir, open_ledger, read_counter
from engram_lab.state.document_rows import DocumentReads
from engram_lab.state.documents import DocumentTable

KEYWORD_INDEX = "keyword"
GENERATION_FILE = "generation"


def index_dir(vault: Path) -> Path:
    return engram_dir(vault) / "index"


def read_generation(folder: Path) -> int | None:
    try:
        return int((folder / GENERATION_FILE).read_text(encoding="utf-8").strip())
    except (FileNotFoundError, ValueError):
        return None


class LedgerCounters(NamedTuple):
    sections: int  # moves with every change to the notes' sections (derived indexes compare against it)
    overlay: int  # moves with every judgment, verdict or supersession change


def ledger_counters(vault: Path) -> LedgerCounters:
    """Both counters in one ledger read: a search checks them once, not once per index it consults."""
    conn = open_ledger(vault)
    try:
        return LedgerCounters(DocumentTable(conn).generation(), read_counter(conn, OVERLAY_GENERATION))
    finally:
        conn.close()


def current_if_fresh(vault: Path, name: str, generation: int | None = None) -> Path | None:
    """The published folder of index ``name`` when it matches the ledger's generation (read here unless given), else None."""
    folder = current_index_dir(index_dir(vault), name)
    if folder is None:
        return None
    if generation is None:
        generation = ledger_counters(vault).sections
    return folder if read_generation(folder) == generation else None


def _loaded(folder: Path) -> KeywordIndex | None:
    """The index in ``folder``, or None when it cannot be read (built again, never trusted)."""
    try:
        return KeywordIndex.load(folder)
    except (OSError, ValueError, KeyError):
        return None


def refresh_keyword_index(vault: Path, generation: int | None = None, reads: DocumentReads | None = None) -> Path:
    """The current BM25 index folder, patched (or built, when there is none to patch) when the ledger moved on.
    ``reads``: the document rows this index run shares with its other derived indexes."""
    fresh = current_if_fresh(vault, KEYWORD_INDEX, generation)
    if fresh is not None and KeywordIndex.is_current(fresh):
        return fresh
    previous_folder = current_index_dir(index_dir(vault), KEYWORD_INDEX)
    previous = _loaded(previous_folder) if previous_folder and KeywordIndex.is_current(previous_folder) else None
    conn = open_ledger(vault)
    try:
        table = DocumentTable(conn)
        snapshot = (reads or DocumentReads()).take(table)
        generation, rows = snapshot.generation, snapshot.rows
        signatures = snapshot_signatures(snapshot)
        changes = document_changes(previous.documents, signatures) if previous is not None else None
        patch = changes is not None and changes.worth_patching(len(rows))
        chunks = chunks_of(table, changes.changed) if patch and changes else section_chunks(table.sections())
    finally:
        conn.close()
    titles = {row.doc_id: row.title or row.path for row in rows}
    texts = [f"{titles.get(c.doc_id, '')}\n{' > '.join(c.heading_path)}\n{c.text}" for c in chunks]
    keys = [(c.doc_id, c.ordinal, c.piece, c.start, c.end) for c in chunks]
    if patch and previous is not None and changes is not None:
        index = previous.patched(changes.touched, texts, keys, signatures)
    else:
        index = KeywordIndex.build(texts, keys, signatures)

    def write(folder: Path) -> None:
        index.save(folder)
        (folder / GENERATION_FILE).write_text(str(generation))
        remember(folder, index)

    return publish_index(index_dir(vault), KEYWORD_INDEX, write)
