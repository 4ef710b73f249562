"""Only .md notes inside the vault: never .engram/, sources/, hidden paths, or anything through a link."""

from __future__ import annotations

import os

import pytest

from engram_lab.agent import Permission, call_tool
from engram_lab.agent.note_paths import NotePathError, check_note_path, write_target
from engram_lab.errors import EngramError


@pytest.mark.parametrize("bad", ["", "/etc/passwd.md", "../outside.md", "a/../../x.md", ".engram/x.md", "a/.hidden.md",
                                 ".hidden/n.md", "sources/original.md", "notes.txt", "engram.toml", "nb.ipynb",
                                 "a\x00b.md", "x" * 600 + ".md", 42, None])
def test_refused_paths(bad):
    with pytest.raises(NotePathError):
        check_note_path(bad)


def test_plain_note_paths_pass():
    assert check_note_path("projects/estuary.md") == "projects/estuary.md"
    assert check_note_path("learned\\x.md") == "learned/x.md"


def test_a_link_on_the_way_is_refused_even_inside_the_vault(agent_vault, tmp_path):
    os.symlink(agent_vault / "projects", agent_vault / "alias")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, agent_vault / "out")
    with pytest.raises(NotePathError, match="link"):
        write_target(agent_vault, "alias/new.md")
    with pytest.raises(NotePathError, match="link"):
        write_target(agent_vault, "out/new.md")


@pytest.mark.parametrize("mode", [Permission.ASK, Permission.ACCEPT_EDITS])
def test_no_tool_writes_through_a_link_out_of_the_vault(session_for, tmp_path, mode):
    session = session_for(mode)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nkeep out\n")
    os.symlink(outside, session.vault / "out")
    with pytest.raises(EngramError, match="link"):
        call_tool(session, "create_note", {"path": "out/new.md", "content": "# x\n", "why": "w"})
    with pytest.raises(EngramError, match="link"):
        call_tool(session, "propose_edit", {"path": "out/secret.md", "old_text": "keep out", "new_text": "x", "why": "w"})
    with pytest.raises(EngramError, match="link"):
        call_tool(session, "read_note", {"path": "out/secret.md"})
    assert (outside / "secret.md").read_text() == "# Secret\n\nkeep out\n" and not (outside / "new.md").exists()
