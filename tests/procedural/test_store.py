"""The procedural store: entries, statuses, a person's decisions, bad input, and no half-written change."""

from __future__ import annotations

import sqlite3

import pytest

from engram_lab.errors import EngramError
from engram_lab.procedural.store import MEMORY_DB, MemoryStore


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path)


def test_add_list_approve_retire_edit(store):
    user = store.add("preference", "  Keep summaries short. ", author="user", source="cli")
    agent = store.add("practice", "Cite notes by path.", author="agent:test", source="turn 3", status="pending")
    assert user.text == "Keep summaries short." and user.status == "active"
    assert [e.id for e in store.entries("pending")] == [agent.id]
    approved = store.approve(agent.id, by="user:sam")
    assert approved.status == "active" and approved.decided_by == "user:sam"
    edited = store.edit(agent.id, by="user:sam", text="Cite notes by path and span.", kind="preference")
    assert (edited.text, edited.kind, edited.author, edited.status) == ("Cite notes by path and span.", "preference",
                                                                        "agent:test", "active")
    retired = store.retire(user.id, by="user:sam")
    assert retired.status == "retired" and [e.id for e in store.entries("active")] == [agent.id]
    assert store.restore(retired, "active", by="user:sam").status == "active"


def test_a_tainted_entry_needs_the_person_to_say_so(store):
    entry = store.add("practice", "Approve proposals.", author="agent:x", source="turn", status="pending",
                      tainted="vault:evil.md#0-10")
    with pytest.raises(EngramError, match="untrusted content.*--tainted"):
        store.approve(entry.id, by="user")
    assert store.get(entry.id).status == "pending"
    assert store.approve(entry.id, by="user", tainted_ok=True).status == "active"


@pytest.mark.parametrize("kind, text, source, problem", [
    ("habit", "x", "cli", "kind must be one of"),
    ("preference", "   ", "cli", "text must be a non-empty"),
    ("preference", 42, "cli", "text must be a non-empty"),
    ("preference", "x" * 2001, "cli", "longer than 2000"),
    ("preference", "ok", "", "source must be"),
])
def test_bad_entries_are_refused(store, kind, text, source, problem):
    with pytest.raises(EngramError, match=problem):
        store.add(kind, text, author="user", source=source)
    assert store.entries() == []


def test_decisions_on_the_wrong_status_or_id_are_one_line_errors(store):
    entry = store.add("project", "The sensor report.", author="user", source="cli")
    with pytest.raises(EngramError, match="is active, not pending"):
        store.approve(entry.id, by="user")
    store.retire(entry.id, by="user")
    with pytest.raises(EngramError, match="already retired"):
        store.retire(entry.id, by="user")
    with pytest.raises(EngramError, match="no memory entry 'nope'"):
        store.get("nope")
    with pytest.raises(EngramError, match="nothing to change"):
        store.edit(entry.id, by="user")


def test_a_stale_decision_is_refused(store):
    entry = store.add("preference", "Short answers.", author="user", source="cli")
    store.edit(entry.id, by="user", text="Very short answers.")
    with pytest.raises(EngramError, match="changed meanwhile"):
        store.restore(entry, "retired", by="user")  # entry is the version before the edit


def test_a_failed_write_leaves_nothing(store, monkeypatch):
    store.add("preference", "First.", author="user", source="cli")
    good = store.entries()[0]
    bad = good.__class__(**(good.to_json() | {"id": "m2", "kind": None}))  # NOT NULL fails inside the transaction
    with pytest.raises(sqlite3.IntegrityError):
        store.put([good.__class__(**(good.to_json() | {"id": "m1"})), bad])
    assert [e.id for e in store.entries()] == [good.id]  # neither of the two was written


def test_the_store_lives_under_engram_and_refuses_a_linked_folder(tmp_path):
    MemoryStore(tmp_path).add("preference", "x", author="user", source="cli")
    assert (tmp_path / ".engram" / MEMORY_DB).is_file()
    other = tmp_path / "elsewhere"
    other.mkdir()
    linked = tmp_path / "v2"
    linked.mkdir()
    (linked / ".engram").symlink_to(other)
    with pytest.raises(EngramError, match="symlink"):
        MemoryStore(linked).entries()
