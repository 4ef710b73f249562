"""A real index process killed mid-run leaves a consistent ledger, and the next run completes the job."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time

from engram_lab.indexer import index_vault
from engram_lab.retrieve.keyword_search import KeywordSearcher
from engram_lab.state import DocumentTable, open_ledger
from engram_lab.vault import document_sections, parse_document

NOTES = 3000


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
    rows = table.all()
    assert 0 < len(rows) < NOTES
    stored = {}
    for section in table.sections():
        stored.setdefault(section.doc_id, []).append(section.text)
    for row in rows:  # every recorded document is wholly the parse of its file, never half of one
        text = (vault / row.path).read_text()
        expected = [s.text for s in document_sections(parse_document(text, row.path, "markdown"))]
        assert stored.get(row.doc_id) == expected
    conn.close()

    report = index_vault(vault, progress=False)
    assert report.failed == [] and len(report.added) == NOTES - len(rows) and report.unchanged == len(rows)
    hits = KeywordSearcher(vault).search("word2999", k=1)
    assert hits and hits[0].path == "b29/n2999.md"
