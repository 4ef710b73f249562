"""A real index process killed mid-run leaves a consistent ledger, and the next run completes the job."""

from __future__ import annotations

import datetime as dt
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

from engram_lab.graph.store import GraphStore
from engram_lab.graph.vocabulary import document_iri
from engram_lab.indexer import index_vault
from engram_lab.config import load_config
from engram_lab.extract.heuristic.extractor import HeuristicExtractor
from engram_lab.extract.segment import segment_document
from engram_lab.graph.quads import DocumentInfo, document_quads
from engram_lab.graph.vocabulary import PROV_ENDED_AT
from engram_lab.retrieve.keyword_search import KeywordSearcher
from engram_lab.state import DocumentTable, open_ledger
from engram_lab.vault import document_sections, parse_document

NOTES = 3000


def without_times(quads):
    return {q for q in quads if q.predicate != PROV_ENDED_AT}


def expected_quads(vault, doc_id, path):
    doc = parse_document((vault / path).read_text(), path, "markdown")
    extraction = HeuristicExtractor().extract(doc, segment_document(doc))
    info = DocumentInfo(doc_id, path, doc.title, doc.author or load_config(vault).owner, dt.datetime.now(dt.timezone.utc))
    return document_quads(info, extraction)


def _indexed_count(ledger_path) -> int:
    try:
        conn = sqlite3.connect(f"file:{ledger_path}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("SELECT COUNT(*) FROM documents WHERE status = 'indexed'").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def test_kill_during_index_then_resume(vault, write):
    for i in range(NOTES):
        write(f"b{i // 100}/n{i}.md", f"# Note {i}\n\nWord{i} appears here with salinity and drift.\n\n## Part\nMore text {i}.\n")
    process = subprocess.Popen([sys.executable, "-m", "engram_lab.cli", "index", str(vault), "--quiet"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ledger_path = vault / ".engram" / "ledger.sqlite"
    deadline = time.monotonic() + 60
    while _indexed_count(ledger_path) == 0 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "the index run finished before it could be killed"

    conn = open_ledger(vault)
    table = DocumentTable(conn)
    rows = [row for row in table.all() if row.status == "indexed"]
    assert 0 < len(rows) < NOTES
    stored = {}
    for section in table.sections():
        stored.setdefault(section.doc_id, []).append(section.text)
    for row in rows:  # every recorded document is wholly the parse of its file, never half of one
        text = (vault / row.path).read_text()
        expected = [s.text for s in document_sections(parse_document(text, row.path, "markdown"))]
        assert stored.get(row.doc_id) == expected
    ids = {row.doc_id: row.path for row in table.all()}
    conn.close()

    store = GraphStore(vault / ".engram" / "store")
    graphs = store.graphs()
    assert {document_iri(row.doc_id) for row in rows} <= graphs
    for graph in graphs:  # each graph present is the complete extraction of its note
        doc_id = graph.removeprefix("urn:engram:doc:")
        assert without_times(store.quads(graph)) == without_times(expected_quads(vault, doc_id, ids[doc_id]))
    store.close()

    report = index_vault(vault, progress=False)
    assert report.failed == [] and report.unchanged == len(rows)
    assert len(report.added) + len(report.updated) == NOTES - len(rows)
    hits = KeywordSearcher(vault).search("word2999", k=1)
    assert hits and hits[0].path == "b29/n2999.md"


RENAME_NOTES = 400
_INDEX_IN_SMALL_CHUNKS = (  # the real CLI, committing every 40 notes so a kill lands between commits
    "import sys, engram_lab.indexer as i; i.CHUNK_DOCS = 40; from engram_lab.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _renamed_count(ledger_path) -> int:
    try:
        conn = sqlite3.connect(f"file:{ledger_path}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("SELECT COUNT(*) FROM documents WHERE path LIKE 'moved%'").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def test_kill_during_renames_then_incremental_run_equals_a_fresh_index(vault, write, tmp_path):
    from tests.test_relational import canonical

    for i in range(RENAME_NOTES):
        write(f"b{i // 100}/n{i}.md", f"# Note {i}\n\nMarta Hall{i} visited Mill Reach {i}.\n\n## Part\nMore text {i}.\n")
    index_vault(vault, progress=False)
    for folder in range(3):  # renames keep size and mtime: only the content hash tells them apart
        (vault / f"b{folder}").rename(vault / f"moved{folder}")
    for i in range(300, 320):
        (vault / f"b3/n{i}.md").write_text(f"# Note {i}\n\nEdited: Acme Corp was bought by Widget Works {i}.\n")
    for i in range(320, 330):
        (vault / f"b3/n{i}.md").unlink()
    process = subprocess.Popen([sys.executable, "-c", _INDEX_IN_SMALL_CHUNKS, "index", str(vault), "--quiet"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ledger_path = vault / ".engram" / "ledger.sqlite"
    deadline = time.monotonic() + 60
    while _renamed_count(ledger_path) == 0 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "the index run finished before it could be killed"
    assert 0 < _renamed_count(ledger_path) < 300

    report = index_vault(vault, progress=False)
    assert report.failed == []
    fresh = tmp_path / "fresh"
    shutil.copytree(vault, fresh, ignore=shutil.ignore_patterns(".engram"))
    index_vault(fresh, progress=False)
    assert canonical(vault) == canonical(fresh)
