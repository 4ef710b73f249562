"""Derived files that a kill or a damaged disk left behind the ledger are found, reported and redone."""

from __future__ import annotations

import shutil

from engram_lab.indexer import index_vault
from engram_lab.state import DocumentTable, open_ledger
from engram_lab.state.db import transaction
from engram_lab.status import vault_status
from tests.test_relational import canonical


def _notes(write, n=6):
    for i in range(n):
        write(f"n{i}.md", f"# Note {i}\n\nMarta Hall{i} visited Mill Reach.\n")


def _fresh_equal(vault, tmp_path):
    fresh = tmp_path / "fresh"
    shutil.copytree(vault, fresh, ignore=shutil.ignore_patterns(".engram"))
    index_vault(fresh, progress=False)
    return canonical(vault) == canonical(fresh)


def test_a_rename_recorded_without_its_rows_is_repaired(vault, write, tmp_path):
    _notes(write)
    index_vault(vault, progress=False)
    (vault / "n1.md").rename(vault / "renamed.md")
    conn = open_ledger(vault)  # what a run killed after its old separate rename commit left behind
    table = DocumentTable(conn)
    with transaction(conn):
        table.move(table.by_path("n1.md").doc_id, "renamed.md")
    conn.close()
    report = index_vault(vault, progress=False)  # size and mtime match the ledger: only the check finds it
    assert report.updated == ["renamed.md"] and report.repaired
    assert _fresh_equal(vault, tmp_path)


def test_leftover_temporary_table_files_are_removed(vault, write):
    _notes(write)
    index_vault(vault, progress=False)
    leftover = vault / ".engram" / "tables" / "segments" / ".bucket-07.parquet.4242.tmp"
    leftover.write_bytes(b"half a parquet file")
    report = index_vault(vault, progress=False)
    assert not leftover.exists() and any("temporary" in line for line in report.repaired)


def test_a_damaged_graph_store_is_reported_and_rebuilt(vault, write, tmp_path):
    _notes(write)
    index_vault(vault, progress=False)
    (vault / ".engram" / "store" / "CURRENT").unlink()
    status = vault_status(vault)
    assert any("CURRENT" in problem for problem in status.damaged)
    assert status.counts["indexed"] == 0 and len(status.stale) == 6
    report = index_vault(vault, progress=False)
    assert any("CURRENT" in line for line in report.repaired) and len(report.updated) == 6
    assert vault_status(vault).damaged == []
    assert _fresh_equal(vault, tmp_path)


def test_a_deleted_graph_store_is_rebuilt(vault, write, tmp_path):
    _notes(write)
    index_vault(vault, progress=False)
    shutil.rmtree(vault / ".engram" / "store")
    report = index_vault(vault, progress=False)
    assert report.repaired and len(report.updated) == 6
    assert _fresh_equal(vault, tmp_path)


def test_an_unreadable_table_bucket_is_rebuilt(vault, write, tmp_path):
    _notes(write)
    index_vault(vault, progress=False)
    bucket = sorted((vault / ".engram" / "tables" / "documents").glob("bucket-*.parquet"))[0]
    bucket.write_bytes(b"not parquet")
    assert vault_status(vault).damaged
    report = index_vault(vault, progress=False)
    assert report.repaired and report.updated
    assert _fresh_equal(vault, tmp_path)


def test_a_query_on_a_damaged_store_says_so_at_once(vault, write):
    import pytest

    from engram_lab.errors import VaultError
    from engram_lab.graph.store import query_read_only

    _notes(write, 1)
    index_vault(vault, progress=False)
    (vault / ".engram" / "store" / "CURRENT").unlink()
    with pytest.raises(VaultError, match="damaged.*engram index"):
        query_read_only(vault / ".engram" / "store", "SELECT * WHERE { ?s ?p ?o }")
