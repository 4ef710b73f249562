"""Which documents a derived index redoes: changed (new or any part of the signature moved) and removed."""

from __future__ import annotations

from engram_lab.index.changes import document_changes, document_signatures, snapshot_signatures
from engram_lab.state.document_rows import DocumentSnapshot
from engram_lab.state.documents import DocumentRow


def _row(doc_id: str, path: str, content_hash: str = "h", indexed_at: str = "t1") -> DocumentRow:
    return DocumentRow(doc_id, path, f"iri:{doc_id}", "markdown", None, content_hash, 1, 1, "indexed", "x", "1", None,
                       indexed_at, "t1")


def test_new_moved_and_removed_documents_and_nothing_else():
    before = document_signatures([_row("a", "a.md"), _row("b", "b.md"), _row("c", "c.md"), _row("d", "d.md")])
    now = document_signatures([_row("a", "a.md"), _row("b", "renamed.md"), _row("c", "c.md", indexed_at="t2"),
                               _row("e", "e.md")])
    changes = document_changes(before, now)
    assert changes.changed == {"b", "c", "e"} and changes.removed == {"d"}
    assert changes.touched == {"b", "c", "d", "e"}
    assert document_changes(now, now).touched == frozenset()


def test_a_snapshot_computes_its_signatures_once_for_every_index_that_asks():
    calls: list[int] = []

    def signatures(rows):  # type: ignore[no-untyped-def]
        calls.append(len(rows))
        return document_signatures(rows)

    snapshot = DocumentSnapshot(3, [_row("a", "a.md"), _row("b", "b.md")])
    first = snapshot.derived(signatures)
    assert snapshot.derived(signatures) is first and calls == [2]
    assert snapshot_signatures(snapshot) == first
    assert list(first) == ["a", "b"]  # in row order
