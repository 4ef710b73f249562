"""The index run: document state across create / edit / rename / delete, and every bad input."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from engram_lab.errors import VaultError
from engram_lab.indexer import index_vault
from engram_lab.state import DocumentTable, open_ledger
from engram_lab.vault import read as read_module
from tests.conftest import ledger_rows, notebook_json

MB = 1024 * 1024


def rows(vault):
    return ledger_rows(vault)


def sections_of(vault, path):
    conn = open_ledger(vault)
    try:
        table = DocumentTable(conn)
        doc_id = table.by_path(path).doc_id
        return [s.text for s in table.sections() if s.doc_id == doc_id]
    finally:
        conn.close()


def bump_mtime(path):
    """Editors may write twice within one clock tick; make the change visible to stat."""
    stamp = time.time_ns() + 5_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_create_then_nothing_changed(vault, write):
    write("a.md", "# A\ntext")
    write("nb.ipynb", notebook_json([{"cell_type": "markdown", "source": "# N"}]))
    first = index_vault(vault, progress=False)
    assert sorted(first.added) == ["a.md", "nb.ipynb"]
    state = rows(vault)
    assert state["a.md"].status == "indexed" and state["a.md"].iri == f"urn:engram:doc:{state['a.md'].doc_id}"
    assert state["a.md"].extractor == "heuristic" and state["a.md"].content_hash
    assert state["nb.ipynb"].kind == "notebook"
    second = index_vault(vault, progress=False)
    assert (second.added, second.updated, second.unchanged) == ([], [], 2)


def test_edit_replaces_sections(vault, write):
    path = write("a.md", "# A\nold sentence")
    index_vault(vault, progress=False)
    before = rows(vault)["a.md"]
    path.write_text("# A\nnew sentence")
    bump_mtime(path)
    report = index_vault(vault, progress=False)
    after = rows(vault)["a.md"]
    assert report.updated == ["a.md"]
    assert after.doc_id == before.doc_id and after.content_hash != before.content_hash
    assert sections_of(vault, "a.md") == ["# A\nnew sentence"]


def test_rename_keeps_identity(vault, write):
    write("old/name.md", "# Same content\nbody")
    index_vault(vault, progress=False)
    doc_id = rows(vault)["old/name.md"].doc_id
    (vault / "new").mkdir()
    (vault / "old" / "name.md").rename(vault / "new" / "moved.md")
    report = index_vault(vault, progress=False)
    assert report.renamed == [("old/name.md", "new/moved.md")] and report.deleted == [] and report.added == []
    state = rows(vault)
    assert list(state) == ["new/moved.md"] and state["new/moved.md"].doc_id == doc_id


def test_delete_removes_row_and_sections(vault, write):
    write("a.md", "a")
    write("b.md", "b")
    index_vault(vault, progress=False)
    (vault / "a.md").unlink()
    report = index_vault(vault, progress=False)
    assert report.deleted == ["a.md"] and list(rows(vault)) == ["b.md"]
    conn = open_ledger(vault)
    assert {s.doc_id for s in DocumentTable(conn).sections()} == {rows(vault)["b.md"].doc_id}
    conn.close()


def test_learned_note_is_pending_review_until_accepted(vault, write):
    write("learned/x.md", "---\nstatus: pending-review\nsources: [a.md]\n---\nclaim")
    write("learned/y.md", "---\nstatus: accepted\n---\naccepted claim")
    write("notes/z.md", "---\nstatus: pending-review\n---\na person's own status field")
    index_vault(vault, progress=False)
    state = rows(vault)
    assert state["learned/x.md"].status == "pending-review"
    assert state["learned/y.md"].status == "indexed"
    assert state["notes/z.md"].status == "indexed"


def test_document_ids_are_reproducible_after_deleting_engram(vault, write):
    write("a.md", "a")
    write("b/c.md", "c")
    index_vault(vault, progress=False)
    before = {p: r.doc_id for p, r in rows(vault).items()}
    shutil.rmtree(vault / ".engram")
    index_vault(vault, progress=False)
    assert {p: r.doc_id for p, r in rows(vault).items()} == before


BAD_INPUTS = {
    "latin1.md": ("café au lait".encode("latin-1"), "not valid UTF-8"),
    "binary.md": (b"\x00\x01\x02PNG" * 10, "binary content"),
    "huge.md": (b"word " * (4 * MB), "over the 8 MB limit"),  # 20 MB
    "badyaml.md": (b"---\ntitle: a: b\n---\nbody", "malformed YAML frontmatter at line 2"),
    "empty.md": (b"", "empty file"),
    "broken.ipynb": (b'{"cells": [', "not a valid notebook"),
}


def test_every_bad_input_is_failed_with_reason_and_the_rest_indexes(vault, write):
    write("good.md", "# Good\nfine")
    for name, (data, _) in BAD_INPUTS.items():
        write(name, data)
    report = index_vault(vault, progress=False)
    failed = dict(report.failed)
    state = rows(vault)
    for name, (_, message) in BAD_INPUTS.items():
        assert message in failed[name], name
        assert state[name].status == "failed" and message in state[name].error
    assert state["good.md"].status == "indexed"


def test_symlinks_and_case_twins_are_failed_documents(vault, write, tmp_path):
    (tmp_path / "outside.md").write_text("secret")
    os.symlink(tmp_path / "outside.md", vault / "leak.md")
    os.symlink("loop.md", vault / "loop.md")
    write("Case.md", "one")
    write("case.md", "two")
    report = index_vault(vault, progress=False)
    failed = dict(report.failed)
    assert "outside the vault" in failed["leak.md"]
    assert "symlink loop" in failed["loop.md"]
    if (vault / "case.md").exists() and (vault / "Case.md").exists() and len(list(vault.glob("*ase.md"))) == 2:
        assert "differs only in case" in failed["case.md"]
        assert rows(vault)["Case.md"].status == "indexed"


def test_failure_keeps_earlier_state(vault, write):
    path = write("a.md", "# A\ngood version")
    index_vault(vault, progress=False)
    before = rows(vault)["a.md"]
    path.write_bytes(b"---\nbroken: [\n---\n")
    bump_mtime(path)
    report = index_vault(vault, progress=False)
    after = rows(vault)["a.md"]
    assert "a.md" in dict(report.failed)
    assert after.status == "failed" and after.content_hash == before.content_hash
    assert sections_of(vault, "a.md") == ["# A\ngood version"]
    path.write_text("# A\nfixed")
    bump_mtime(path)
    index_vault(vault, progress=False)
    assert rows(vault)["a.md"].status == "indexed" and sections_of(vault, "a.md") == ["# A\nfixed"]


def test_file_deleted_between_scan_and_read(vault, write, monkeypatch):
    write("a.md", "a")
    write("b.md", "b")
    real = read_module.read_note_bytes

    def vanish_a(root, rel_path, max_bytes, **options):
        if rel_path == "a.md":
            (root / rel_path).unlink()
        return real(root, rel_path, max_bytes, **options)

    monkeypatch.setattr("engram_lab.indexer.read_note_bytes", vanish_a)
    report = index_vault(vault, progress=False)
    assert "disappeared between scan and read" in dict(report.failed)["a.md"]
    assert report.added == ["b.md"]
    monkeypatch.undo()
    report = index_vault(vault, progress=False)
    assert report.deleted == ["a.md"] and list(rows(vault)) == ["b.md"]


def test_nothing_is_written_outside_the_vault(vault, write, tmp_path):
    write("a.md", "a")
    before = sorted(p.name for p in tmp_path.iterdir())
    index_vault(vault, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert sorted(p.name for p in vault.iterdir()) == [".engram", "a.md"]


def test_missing_vault_is_a_clear_error(tmp_path):
    with pytest.raises(VaultError, match="no such folder"):
        index_vault(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(VaultError, match="not a folder"):
        index_vault(tmp_path / "file")
