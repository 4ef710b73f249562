"""Document rows kept by a process and patched from the ledger's change log equal a whole read, whoever wrote."""

from __future__ import annotations

import random
import sqlite3

import pytest

import engram_lab.state.document_rows as rows_module
from engram_lab.state.db import LEDGER_FILE, _statements, open_ledger, transaction
from engram_lab.state.document_rows import DocumentReads, all_document_rows, prune_document_log
from engram_lab.state.documents import DocumentTable, IndexedContent


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch):
    monkeypatch.setattr(rows_module, "_KEPT", rows_module.LastFew(4))


def _whole(conn: sqlite3.Connection):  # type: ignore[no-untyped-def]
    return DocumentTable(conn).all()


def _content(n: int) -> IndexedContent:
    return IndexedContent("markdown", f"Title {n}", f"hash{n}", n, n * 1000, "indexed", "heuristic", "1")


def _random_change(rng: random.Random, table: DocumentTable, paths: list[str], step: int) -> None:
    roll = rng.random()
    with transaction(table.conn):
        if roll < 0.3 or not paths:
            path = f"notes/{rng.randrange(10_000):05d}.md"
            if path not in paths:
                paths.append(path)
            table.record_indexed(path, _content(step), [])
        elif roll < 0.5:
            table.record_failed(rng.choice(paths), "markdown", f"broken {step}")
        elif roll < 0.65:
            table.mark_stale([row.doc_id for row in table.all() if rng.random() < 0.2])
        elif roll < 0.8:
            old = rng.choice(paths)
            new = f"moved/{step}-{old.rsplit('/', 1)[-1]}"
            row = table.by_path(old)
            assert row is not None
            table.move(row.doc_id, new)
            paths[paths.index(old)] = new
        else:
            path = rng.choice(paths)
            row = table.by_path(path)
            assert row is not None
            table.delete(row.doc_id)
            paths.remove(path)


@pytest.mark.parametrize("seed", range(4))
def test_rows_patched_from_the_log_equal_a_whole_read_whoever_wrote(vault, monkeypatch, seed):
    rng = random.Random(seed)
    reader, writer = open_ledger(vault), open_ledger(vault)  # another process's connection writes
    whole_reads = []
    real_all = DocumentTable.all
    monkeypatch.setattr(DocumentTable, "all", lambda self: whole_reads.append(1) or real_all(self))
    paths: list[str] = []
    writers = [DocumentTable(writer), DocumentTable(reader)]
    for step in range(60):
        for _ in range(rng.randint(0, 3)):
            _random_change(rng, rng.choice(writers), paths, step)
        before = len(whole_reads)
        got = all_document_rows(reader)
        assert len(whole_reads) == before + (1 if step == 0 else 0)  # read whole once, then only what the log names
        assert got == real_all(DocumentTable(reader))
    reader.close()
    writer.close()


def test_a_pruned_log_or_another_ledger_means_a_whole_read(vault, tmp_path):
    conn = open_ledger(vault)
    table = DocumentTable(conn)
    for n in range(5):
        with transaction(conn):
            table.record_indexed(f"n{n}.md", _content(n), [])
    assert all_document_rows(conn) == _whole(conn)
    for n in range(5, 9):
        with transaction(conn):
            table.record_indexed(f"n{n}.md", _content(n), [])
    with transaction(conn):
        assert prune_document_log(conn, keep=2) > 0
        assert prune_document_log(conn, keep=2) == 0  # nothing more to drop until the log grows
    assert conn.execute("SELECT COUNT(*) FROM document_log").fetchone()[0] == 2
    assert all_document_rows(conn) == _whole(conn)  # kept from before the pruned entries: read whole
    conn.close()

    other = tmp_path / "other"
    other.mkdir()
    (vault / ".engram" / LEDGER_FILE).replace(other / "kept.sqlite")  # a rebuilt .engram/: another ledger
    for suffix in ("-wal", "-shm"):
        (vault / ".engram" / (LEDGER_FILE + suffix)).unlink(missing_ok=True)
    conn = open_ledger(vault)
    with transaction(conn):
        DocumentTable(conn).record_indexed("only.md", _content(1), [])
    assert [row.path for row in all_document_rows(conn)] == ["only.md"]
    conn.close()


def test_inside_a_transaction_the_writers_own_rows_are_read(vault):
    conn = open_ledger(vault)
    table = DocumentTable(conn)
    all_document_rows(conn)
    with transaction(conn):
        table.record_indexed("new.md", _content(1), [])
        assert [row.path for row in all_document_rows(conn)] == ["new.md"]
    assert [row.path for row in all_document_rows(conn)] == ["new.md"]
    conn.close()


def test_a_snapshot_reads_the_rows_once_per_run(vault):
    conn = open_ledger(vault)
    with transaction(conn):
        DocumentTable(conn).record_indexed("a.md", _content(1), [])
    reads = DocumentReads()
    first = reads.take(DocumentTable(conn))
    with transaction(conn):
        DocumentTable(conn).record_indexed("b.md", _content(2), [])
    assert reads.take(DocumentTable(conn)) is first and [row.path for row in first.rows] == ["a.md"]
    assert [row.path for row in DocumentReads().take(DocumentTable(conn)).rows] == ["a.md", "b.md"]
    conn.close()


def test_a_ledger_of_the_last_schema_gets_the_log_and_logs_from_then_on(vault):
    conn = open_ledger(vault)
    with transaction(conn):
        DocumentTable(conn).record_indexed("old.md", _content(1), [])
        conn.execute("DROP TRIGGER document_log_insert")
        conn.execute("DROP TRIGGER document_log_update")
        conn.execute("DROP TRIGGER document_log_delete")
        conn.execute("DROP TABLE document_log")
        conn.execute("PRAGMA user_version = 5")
    conn.close()
    conn = open_ledger(vault)
    assert [row.path for row in all_document_rows(conn)] == ["old.md"]
    with transaction(conn):
        DocumentTable(conn).record_indexed("new.md", _content(2), [])
    assert [row.path for row in all_document_rows(conn)] == ["new.md", "old.md"]
    assert conn.execute("SELECT COUNT(*) FROM document_log").fetchone()[0] >= 1
    conn.close()


def test_migration_statements_keep_a_triggers_body_whole():
    script = """
    CREATE TABLE t (a TEXT);
    CREATE TRIGGER t_log AFTER INSERT ON t BEGIN
        INSERT INTO t (a) SELECT 'x' WHERE 0;
        INSERT INTO t (a) SELECT 'y' WHERE 0;
    END;
    CREATE INDEX t_a ON t(a);
    """
    statements = _statements(script)
    assert len(statements) == 3 and "END;" in statements[1]
    with pytest.raises(ValueError, match="incomplete"):
        _statements("CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO t (a) VALUES ('x');")
