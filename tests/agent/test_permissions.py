"""A permission test for every tool in every mode: read tools run everywhere; a write is refused in read-only,
waits as a proposal in ask (nothing on disk changes), and is applied with a checkpoint in accept-edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram_lab.agent import TOOLS, Permission, PermissionRefused, call_tool, tools_for
from engram_lab.agent.checkpoints import FileChange, apply_changes, list_checkpoints
from engram_lab.agent.proposals import list_proposals

MODES = list(Permission)
READ_ARGS = {
    "search": {"query": "AquaSense CT-200", "k": 3, "mode": "keyword"},
    "context": {"query": "AquaSense"},
    "read_note": {"path": "sensors.md"},
    "list_notes": {},
    "note_links": {"path": "sensors.md"},
    "entity": {"name": "AquaSense AS-5"},
    "query_graph": {"sparql": "ASK { ?s ?p ?o }"},
    "checkpoints": {},
}
WRITE_ARGS = {
    "propose_edit": {"path": "people.md", "old_text": "leads the data work", "new_text": "leads the field work",
                     "why": "Priya moved to field work"},
    "create_note": {"path": "notes/new.md", "content": "# New\n\nA new note.\n", "why": "asked for a new note"},
    "learn": {"title": "Monday calibration", "body": "Kofi Mensah calibrates the probes on Mondays at S3.",
              "sources": ["sensors.md"]},
    "rewind": {},  # filled with a real checkpoint id below
}


def test_every_tool_is_covered():  # remember writes procedural memory, not notes: tests/agent/test_remember.py
    assert set(READ_ARGS) | set(WRITE_ARGS) | {"remember"} == {t.name for t in TOOLS}
    assert {t.name for t in TOOLS if t.writes} == set(WRITE_ARGS) | {"remember"}


def _snapshot(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*.md") if ".engram" not in p.parts}


def _rewind_args(vault: Path) -> dict[str, object]:
    before = (vault / "people.md").read_bytes()
    checkpoint = apply_changes(vault, [FileChange("people.md", before, before + b"\nAn added line.\n")], actor="person",
                               why="setup")
    return {"checkpoint": checkpoint.id}


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("name", sorted(READ_ARGS))
def test_read_tools_run_in_every_mode(session_for, name, mode):
    session = session_for(mode)
    assert name in {t.name for t in tools_for(mode)}
    before = _snapshot(session.vault)
    result = call_tool(session, name, READ_ARGS[name])
    assert isinstance(result, dict)
    assert _snapshot(session.vault) == before


@pytest.mark.parametrize("name", sorted(WRITE_ARGS))
def test_read_only_offers_no_write_tool_and_refuses_a_call(session_for, name):
    session = session_for(Permission.READ_ONLY)
    args = _rewind_args(session.vault) if name == "rewind" else WRITE_ARGS[name]
    assert name not in {t.name for t in tools_for(Permission.READ_ONLY)}
    before = _snapshot(session.vault)
    with pytest.raises(PermissionRefused, match="read-only"):
        call_tool(session, name, args)
    assert _snapshot(session.vault) == before and list_proposals(session.vault) == []


@pytest.mark.parametrize("name", sorted(WRITE_ARGS))
def test_ask_records_a_proposal_with_a_diff_and_writes_nothing(session_for, name):
    session = session_for(Permission.ASK)
    args = _rewind_args(session.vault) if name == "rewind" else WRITE_ARGS[name]
    before, checkpoints = _snapshot(session.vault), len(list_checkpoints(session.vault))
    result = call_tool(session, name, args)
    assert result["status"] == "pending"
    assert "@@" in result["diff"] and result["diff"].startswith("<external_content")
    assert _snapshot(session.vault) == before and len(list_checkpoints(session.vault)) == checkpoints
    assert [p.id for p in list_proposals(session.vault)] == [result["proposal"]]


@pytest.mark.parametrize("name", sorted(WRITE_ARGS))
def test_accept_edits_applies_at_once_with_a_checkpoint(session_for, name):
    session = session_for(Permission.ACCEPT_EDITS)
    args = _rewind_args(session.vault) if name == "rewind" else WRITE_ARGS[name]
    before = _snapshot(session.vault)
    result = call_tool(session, name, args)
    assert result["status"] == "applied"
    assert _snapshot(session.vault) != before
    assert list_checkpoints(session.vault)[0].id == result["checkpoint"]
    assert list_proposals(session.vault) == []
