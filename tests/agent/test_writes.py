"""Edits, new notes and learned notes: checked the same way whether proposed or applied; approval re-checks."""

from __future__ import annotations

import pytest

from engram_lab.agent import Permission, call_tool
from engram_lab.agent.checkpoints import StaleEditError, list_checkpoints
from engram_lab.agent.proposals import approve, get_proposal, list_proposals, reject
from engram_lab.errors import EngramError


def _propose(session, **changes):
    args = {"path": "people.md", "old_text": "leads the data work", "new_text": "leads the field work", "why": "moved"}
    return call_tool(session, "propose_edit", args | changes)


def test_approve_applies_the_diff_and_records_a_checkpoint(session_for):
    session = session_for(Permission.ASK)
    pending = _propose(session)
    assert "-Priya Raman leads the data work. #team" in pending["diff"]
    assert "+Priya Raman leads the field work. #team" in pending["diff"]
    proposal, checkpoint, path = approve(session.vault, pending["proposal"], by="person")
    assert "field work" in (session.vault / "people.md").read_text()
    assert get_proposal(session.vault, proposal.id).status == "approved"
    assert list_checkpoints(session.vault)[0].proposal == proposal.id == checkpoint.proposal
    with pytest.raises(EngramError, match="already approved"):
        approve(session.vault, proposal.id, by="person")


def test_a_person_edit_meanwhile_makes_approval_fail_without_writing(session_for):
    session = session_for(Permission.ASK)
    pending = _propose(session)
    (session.vault / "people.md").write_text("# People\n\nPriya Raman now leads everything.\n")
    with pytest.raises(StaleEditError, match="no longer matches"):
        approve(session.vault, pending["proposal"], by="person")
    assert (session.vault / "people.md").read_text() == "# People\n\nPriya Raman now leads everything.\n"
    assert get_proposal(session.vault, pending["proposal"]).status == "pending"


def test_reject_writes_nothing(session_for):
    session = session_for(Permission.ASK)
    pending = _propose(session)
    reject(session.vault, pending["proposal"], by="person")
    assert list_proposals(session.vault) == [] and "data work" in (session.vault / "people.md").read_text()


def test_stale_old_text_is_refused_at_once(session_for):
    with pytest.raises(StaleEditError, match="read the note again"):
        _propose(session_for(Permission.ACCEPT_EDITS), old_text="not in the note")


def test_ambiguous_old_text_is_refused(session_for):
    session = session_for(Permission.ACCEPT_EDITS)
    with pytest.raises(EngramError, match="occurs 2 times"):
        call_tool(session, "propose_edit", {"path": "sensors.md", "old_text": "Sensors", "new_text": "x", "why": "w"})


def test_create_never_overwrites_and_size_is_bounded(session_for):
    session = session_for(Permission.ACCEPT_EDITS)
    with pytest.raises(EngramError, match="already exists"):
        call_tool(session, "create_note", {"path": "people.md", "content": "# x\n", "why": "w"})
    (session.vault / "engram.toml").write_text("[vault]\nmax_note_mb = 0.001\n")
    with pytest.raises(EngramError, match="max_note_mb"):
        call_tool(session, "create_note", {"path": "big.md", "content": "x" * 5000, "why": "w"})


def test_an_agent_cannot_accept_its_own_learned_note(session_for):
    session = session_for(Permission.ACCEPT_EDITS)
    applied = call_tool(session, "learn", {"title": "Probe rota", "body": "Kofi calibrates probes on Mondays.",
                                           "sources": ["sensors.md"]})
    assert "status: pending-review" in (session.vault / applied["path"]).read_text()
    with pytest.raises(EngramError, match="pending-review"):
        call_tool(session, "propose_edit", {"path": applied["path"], "old_text": "status: pending-review",
                                            "new_text": "status: accepted", "why": "w"})
    with pytest.raises(EngramError, match="pending-review"):
        call_tool(session, "create_note", {"path": "learned/mine.md", "content": "---\nstatus: accepted\n---\n# x\n", "why": "w"})


@pytest.mark.parametrize("args, message", [
    ({"why": ""}, "why is required"),
    ({"new_text": 3}, "new_text must be a string"),
    ({"path": "sources/original.md"}, "sources/"),
])
def test_bad_arguments_are_one_clear_error(session_for, args, message):
    with pytest.raises(EngramError, match=message):
        _propose(session_for(Permission.ASK), **args)


def test_unknown_tool_and_arguments(session_for):
    session = session_for(Permission.ASK)
    with pytest.raises(EngramError, match="no tool"):
        call_tool(session, "delete_everything", {})
    with pytest.raises(EngramError, match="unknown argument"):
        call_tool(session, "search", {"query": "x", "limit": 3})
    with pytest.raises(EngramError, match="missing argument"):
        call_tool(session, "read_note", {})
