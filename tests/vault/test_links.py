"""Nothing outside the vault is ever read or written through a link, whenever the link appears."""

from __future__ import annotations

import os
import shutil

import pytest

from engram_lab import indexer
from engram_lab.config import UntrustedVaultError, load_config, trust_vault
from engram_lab.errors import DocumentError, VaultError
from engram_lab.indexer import index_vault
from engram_lab.learn import similar_notes
from engram_lab.status import vault_status
from engram_lab.vault import scan_vault
from engram_lab.vault.read import read_note_bytes
from tests.conftest import ledger_rows

MB = 1024 * 1024


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "a.md").write_text("---\ntitle: Outside Secret\n---\n# Outside Secret\n\nsalinity drift secret words\n")
    return folder


def test_a_folder_swapped_for_a_link_after_the_scan_is_not_read(vault, write, outside):
    write("sub/a.md", "# Inside\n\nsalinity drift\n")
    shutil.rmtree(vault / "sub")
    os.symlink(outside, vault / "sub")
    with pytest.raises(DocumentError, match="sub/ in sub/a.md is a link"):
        read_note_bytes(vault, "sub/a.md", MB)


def test_an_index_run_refuses_a_folder_swapped_in_mid_run(vault, write, outside, monkeypatch):
    write("sub/a.md", "# Inside\n\nsalinity drift\n")
    real_scan = indexer.scan_vault

    def scan_then_swap(root, **options):
        result = real_scan(root, **options)
        shutil.rmtree(vault / "sub")
        os.symlink(outside, vault / "sub")
        return result

    monkeypatch.setattr(indexer, "scan_vault", scan_then_swap)
    report = index_vault(vault, progress=False)
    assert [path for path, _ in report.failed] == ["sub/a.md"]
    assert ledger_rows(vault)["sub/a.md"].title is None  # nothing of the outside note was recorded


def test_learn_does_not_read_a_note_swapped_for_a_link_after_indexing(vault, write, outside):
    write("a.md", "---\ntitle: Inside Note\n---\n# Inside Note\n\nsalinity drift secret words\n")
    index_vault(vault, progress=False)
    (vault / "a.md").unlink()
    os.symlink(outside / "a.md", vault / "a.md")
    similar = similar_notes(vault, "Outside Secret", "salinity drift secret words")
    assert all(s.title != "Outside Secret" for s in similar)


def test_engram_folder_as_a_link_is_refused(vault, write, tmp_path):
    write("a.md", "# A\n\ntext\n")
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", vault / ".engram")
    with pytest.raises(VaultError, match="is a symlink"):
        index_vault(vault, progress=False)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_engram_toml_as_a_link_is_refused_and_not_echoed(vault, write, tmp_path):
    write("a.md", "# A\n\ntext\n")
    (tmp_path / "private.toml").write_text('[vault]\nsecret_key = "hunter2"\n')
    os.symlink(tmp_path / "private.toml", vault / "engram.toml")
    with pytest.raises(VaultError, match="is a symlink") as caught:
        index_vault(vault, progress=False)
    assert "hunter2" not in str(caught.value) and "secret_key" not in str(caught.value)


def test_engram_toml_hard_linked_from_outside_is_refused(vault, write, tmp_path):
    write("a.md", "# A\n\ntext\n")
    (tmp_path / "private.toml").write_text('[vault]\nowner = "x"\n')
    os.link(tmp_path / "private.toml", vault / "engram.toml")
    with pytest.raises(VaultError, match="hard links"):
        index_vault(vault, progress=False)


def test_a_hard_link_to_an_outside_file_is_skipped_unless_allowed(vault, write, outside):
    write("plain.md", "# Plain\n\ntext\n")
    os.link(outside / "a.md", vault / "linked.md")
    assert [vf.rel_path for vf in scan_vault(vault).files] == ["plain.md"]
    report = index_vault(vault, progress=False)
    assert "hard links" in dict(report.failed)["linked.md"] and report.added == ["plain.md"]
    assert "linked.md" in dict(vault_status(vault).failed)
    write("engram.toml", "[vault]\nallow_hard_links = true\n")
    with pytest.raises(UntrustedVaultError, match="read hard-linked notes .*engram trust"):
        index_vault(vault, progress=False)  # the vault's author may not let any file of the user's in
    assert ledger_rows(vault)["linked.md"].status != "indexed"
    trust_vault(vault)
    index_vault(vault, progress=False)
    assert ledger_rows(vault)["linked.md"].status == "indexed"
    write("engram.toml", "[vault]\nallow_hard_links = false\n")
    assert load_config(vault).allow_hard_links is False  # turning it off needs no trust


def test_a_note_hard_linked_after_the_scan_is_refused_at_read(vault, write, outside):
    write("a.md", "# A\n\ntext\n")
    os.link(vault / "a.md", outside / "other-name.md")
    with pytest.raises(DocumentError, match="hard links"):
        read_note_bytes(vault, "a.md", MB)
    assert read_note_bytes(vault, "a.md", MB, allow_hard_links=True).data.startswith(b"# A")
