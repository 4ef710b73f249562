"""One pathological note is bounded: capped links and mentions, said in a warning; the store compacts by bytes."""

from __future__ import annotations

import polars as pl

from engram_lab.extract import limits
from engram_lab.extract.heuristic.registry import EntityRegistry
from engram_lab.graph import vocabulary as v
from engram_lab.graph import store as graph_store
from engram_lab.graph.store import GraphStore
from engram_lab.index.tables import TableStore
from engram_lab import indexer
from engram_lab.indexer import index_vault
from engram_lab.resolve.run import analyse_vault
from tests.conftest import ledger_rows


def test_a_note_with_thousands_of_links_is_capped_and_says_so(vault, write):
    links = limits.MAX_LINKS + 500
    write("hub.md", "# Hub\n\n" + "\n".join(f"- see [[Target {i}]] and Person{i} Name{i}" for i in range(links)) + "\n")
    write("plain.md", "# Plain\n\nMarta Hall visited Mill Reach.\n")
    report = index_vault(vault, progress=False)
    assert [path for path, _ in report.capped] == ["hub.md", "hub.md"]  # links and mentions
    assert any(f"{links} links" in warning for _, warning in report.capped)
    assert ledger_rows(vault)["hub.md"].status == "indexed" and ledger_rows(vault)["hub.md"].error is None

    store = GraphStore(vault / ".engram" / "store", read_only=True)
    hub = v.document_iri(ledger_rows(vault)["hub.md"].doc_id)
    quads = store.quads(hub)
    store.close()
    assert sum(1 for q in quads if q.predicate == v.LINKS_TO) == limits.MAX_LINKS
    assert sum(1 for q in quads if q.predicate == v.MENTION_OF) == limits.MAX_MENTIONS
    assert {q.object.value for q in quads if q.predicate == v.WARNING} == {w for _, w in report.capped}

    documents = TableStore(vault / ".engram" / "tables").read("documents")
    warnings = dict(zip(documents["path"], documents["warnings"].to_list()))
    assert len(warnings["hub.md"]) == 2 and warnings["plain.md"] == []
    assert index_vault(vault, progress=False).unchanged == 2  # a warning is not a failure: not read again


def test_a_surname_lookup_consults_only_names_ending_in_it():
    registry = EntityRegistry()
    for i in range(1000):
        registry.add(f"Person{i} Other{i}", "Person")
    registry.add("Marta Hall", "Person")
    assert registry.by_surname("Hall") == registry.lookup("Marta Hall")
    assert registry._by_last_word["hall"] == [registry.lookup("Marta Hall")]  # an index, not a scan of 1,001 names


def test_the_store_is_compacted_by_bytes_written_not_by_note_count(vault, write, monkeypatch):
    settled = []
    monkeypatch.setattr(GraphStore, "settle", lambda self, compact=True: settled.append(self.log_bytes()))
    write("one.md", "# One\n\nMarta Hall visited Mill Reach.\n")
    monkeypatch.setattr(graph_store, "SETTLE_LOG_BYTES", 1)  # one small note already passes a one-byte threshold
    index_vault(vault, progress=False)
    assert settled and settled[0] >= 1
    settled.clear()
    write("two.md", "# Two\n\nAcme Corp was bought by Widget Works.\n")
    monkeypatch.setattr(graph_store, "SETTLE_LOG_BYTES", 1 << 40)
    index_vault(vault, progress=False)
    assert settled == []


def test_a_long_run_releases_the_log_per_chunk_and_compacts_once_at_its_end(vault, write, monkeypatch):
    """Compaction takes seconds per gigabyte of store: after every chunk of a 100,000-note run it grew with the store."""
    for i in range(4):
        write(f"n{i}.md", f"# Note {i}\n\nMarta Hall{i} visited Mill Reach {i}.\n")
    calls = []
    real = GraphStore.settle

    def recording(self, compact=True):
        calls.append(compact)
        real(self, compact)

    monkeypatch.setattr(GraphStore, "settle", recording)
    monkeypatch.setattr(graph_store, "SETTLE_LOG_BYTES", 1)
    monkeypatch.setattr(indexer, "CHUNK_DOCS", 1)
    index_vault(vault, progress=False)
    assert calls == [False] * 4 + [True]  # each chunk's log released; one compaction, at the end
    store = GraphStore(vault / ".engram" / "store", read_only=True)
    assert store.log_bytes() == 0 and len(store) > 0


def test_the_analysis_compacts_the_store_after_a_large_overlay_write(vault, write, monkeypatch):
    """The overlay written by a cold build's analysis came after the indexer's compaction and left its log for the
    first edit's open to replay (7.7 s at 10,000 notes)."""
    write("one.md", "# One\n\nMarta Hall visited Mill Reach.\n")
    write("two.md", "# Two\n\nMarta Hall met Ivo Brandt.\n")
    index_vault(vault, progress=False)
    settled = []
    monkeypatch.setattr(GraphStore, "settle", lambda self, compact=True: settled.append(self.log_bytes()))
    monkeypatch.setattr(graph_store, "SETTLE_LOG_BYTES", 1)
    analyse_vault(vault)
    assert settled and settled[0] >= 1


def test_old_table_buckets_without_the_warnings_column_still_read(vault, write):
    write("a.md", "# A\n\nMarta Hall visited Mill Reach.\n")
    index_vault(vault, progress=False)
    for path in (vault / ".engram" / "tables" / "documents").glob("bucket-*.parquet"):
        pl.read_parquet(path).drop("warnings").write_parquet(path)  # as written before the column existed
    write("b.md", "# B\n\nAcme Corp was bought by Widget Works.\n")
    index_vault(vault, progress=False)
    assert TableStore(vault / ".engram" / "tables").read("documents").height == 2
