"""Every applied write can be rewound to the exact bytes; a rewind is undoable; a later edit blocks it."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from engram_lab.agent import Permission, call_tool
from engram_lab.agent.checkpoints import FileChange, StaleEditError, apply_changes, list_checkpoints, recover, rewind
from engram_lab.agent.ledger import open_agent_db


def _edit(session, old, new):
    return call_tool(session, "propose_edit", {"path": "people.md", "old_text": old, "new_text": new, "why": "test"})


def test_rewind_restores_exact_bytes_reindexes_and_is_itself_undoable(session_for):
    session = session_for(Permission.ACCEPT_EDITS)
    original = (session.vault / "people.md").read_bytes()
    applied = _edit(session, "leads the data work", "leads the Zanzibar survey")
    assert session.engine.search("Zanzibar survey", k=1, mode="keyword")[0].path == "people.md"
    back = call_tool(session, "rewind", {"checkpoint": applied["checkpoint"]})
    assert (session.vault / "people.md").read_bytes() == original
    assert not [r for r in session.engine.search("Zanzibar", k=3, mode="keyword") if "Zanzibar" in r.text]
    rows = list_checkpoints(session.vault)
    assert rows[0].id == back["checkpoint"] and rows[0].rewinds == applied["checkpoint"]
    call_tool(session, "rewind", {"checkpoint": back["checkpoint"]})  # undo the undo
    assert b"Zanzibar" in (session.vault / "people.md").read_bytes()


def test_rewinding_a_created_note_deletes_it(session_for):
    session = session_for(Permission.ACCEPT_EDITS)
    created = call_tool(session, "create_note", {"path": "n/new.md", "content": "# New\n\nfresh\n", "why": "w"})
    call_tool(session, "rewind", {"checkpoint": created["checkpoint"]})
    assert not (session.vault / "n/new.md").exists()


def test_rewind_over_a_later_person_edit_refuses_unless_forced(session_for):
    session = session_for(Permission.ACCEPT_EDITS)
    original = (session.vault / "people.md").read_bytes()
    applied = _edit(session, "leads the data work", "leads the field work")
    (session.vault / "people.md").write_text("# People\n\nA person rewrote this.\n")
    with pytest.raises(StaleEditError, match="changed after checkpoint"):
        rewind(session.vault, applied["checkpoint"], actor="person")
    assert "A person rewrote" in (session.vault / "people.md").read_text()
    rewind(session.vault, applied["checkpoint"], actor="person", force=True)
    assert (session.vault / "people.md").read_bytes() == original


def test_the_checkpoint_ledger_names_who_why_and_which_proposal(session_for):
    session = session_for(Permission.ASK)
    from engram_lab.agent.proposals import approve

    pending = _edit(session, "leads the data work", "leads the field work")
    approve(session.vault, pending["proposal"], by="priya")
    row = call_tool(session, "checkpoints", {})["checkpoints"][0]
    assert row["proposal"] == pending["proposal"] and "priya" in row["actor"] and row["why"] == "test"
    assert row["paths"] == ["people.md"]


def test_an_unknown_checkpoint_is_one_clear_error(session_for):
    with pytest.raises(Exception, match="no checkpoint"):
        call_tool(session_for(Permission.ACCEPT_EDITS), "rewind", {"checkpoint": "c000"})


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engram_lab.agent.checkpoints import FileChange, apply_changes, current_bytes
    vault = Path(sys.argv[1])
    for i in range(10_000):
        before = current_bytes(vault, "big.md")
        apply_changes(vault, [FileChange("big.md", before, (f"# Big {i}\\n\\n" + f"line {i}\\n" * 200_000).encode())],
                      actor="writer", why=f"write {i}")
""")


def test_a_process_killed_during_applied_writes_leaves_files_old_or_new_and_checkpoints_consistent(agent_vault):
    (agent_vault / "big.md").write_text("# Big start\n")
    process = subprocess.Popen([sys.executable, "-c", _WRITER, str(agent_vault)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        conn = open_agent_db(agent_vault)
        done = conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0]
        conn.close()
        if done >= 3:
            break
        time.sleep(0.01)
    time.sleep(0.037)  # somewhere inside a later write
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL, process.stderr.read() if process.stderr else ""

    recover(agent_vault)
    rows = list_checkpoints(agent_vault, limit=100_000)
    content = (agent_vault / "big.md").read_bytes()
    assert content == b"# Big start\n" or content.startswith(b"# Big ") and content.endswith(b"\n" * 1)
    if content != b"# Big start\n":
        n = int(content.split(b"\n", 1)[0].split()[-1])
        assert content == (f"# Big {n}\n\n" + f"line {n}\n" * 200_000).encode()  # whole, never half
    newest = rows[0]  # the file holds exactly what the newest checkpoint recorded as written
    assert newest.files[0]["after"] == hashlib.sha256(content).hexdigest()
    assert [r.why for r in rows] == [f"write {i}" for i in reversed(range(len(rows)))]
    assert not [p for p in agent_vault.iterdir() if p.name.endswith(".tmp")]  # the killed write's temp file is gone
    while rows:  # and every checkpoint rewinds, back to the start
        rewind(agent_vault, rows.pop(0).id, actor="person")
    assert (agent_vault / "big.md").read_bytes() == b"# Big start\n"


def test_a_pending_checkpoint_whose_write_never_happened_is_dropped(agent_vault):
    before = (agent_vault / "people.md").read_bytes()

    def die() -> None:
        raise KeyboardInterrupt  # stands for a kill between the ledger row and the file write

    with pytest.raises(KeyboardInterrupt):
        apply_changes(agent_vault, [FileChange("people.md", before, b"# new\n")], actor="a", why="w", before_write=die)
    assert recover(agent_vault) and list_checkpoints(agent_vault) == []
    assert (agent_vault / "people.md").read_bytes() == before
