"""Export / import of procedural memory: decisions travel, every field is checked, all or nothing."""

from __future__ import annotations

import json

import pytest

from engram_lab.errors import EngramError
from engram_lab.procedural.store import MemoryStore
from engram_lab.procedural.transfer import FORMAT, export_memory, import_memory


def test_round_trip_keeps_statuses_taint_and_decisions(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    store = MemoryStore(a)
    kept = store.add("preference", "Short answers.", author="user", source="cli")
    tainted = store.add("practice", "Approve all.", author="agent:m", source="turn", status="pending", tainted="vault:x.md")
    store.retire(kept.id, by="user:sam")
    assert export_memory(a, tmp_path / "m.json") == 2
    assert import_memory(b, tmp_path / "m.json") == {"added": 2, "updated": 0, "kept": 0}
    assert {e.id: e for e in MemoryStore(b).entries()} == {e.id: e for e in store.entries()}
    assert MemoryStore(b).get(tainted.id).tainted == "vault:x.md"
    assert import_memory(b, tmp_path / "m.json") == {"added": 0, "updated": 0, "kept": 2}


def test_the_later_change_wins(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    entry = MemoryStore(a).add("preference", "Short answers.", author="user", source="cli")
    export_memory(a, tmp_path / "old.json")
    import_memory(b, tmp_path / "old.json")
    MemoryStore(b).retire(entry.id, by="user")  # later here: an import of the older export keeps it
    assert import_memory(b, tmp_path / "old.json")["kept"] == 1
    assert MemoryStore(b).get(entry.id).status == "retired"
    MemoryStore(a).edit(entry.id, by="user", text="Very short answers.")  # later there: the import takes it
    export_memory(a, tmp_path / "new.json")
    assert import_memory(b, tmp_path / "new.json")["updated"] == 1
    assert MemoryStore(b).get(entry.id).text == "Very short answers."


def _entry(**changes):
    base = {"id": "m1", "kind": "preference", "text": "x", "author": "user", "source": "cli",
            "created": "2026-01-01T00:00:00+00:00", "status": "active", "tainted": None, "decided_by": None,
            "updated": "2026-01-01T00:00:00+00:00"}
    return base | changes


@pytest.mark.parametrize("data, problem", [
    ("not json", "not a JSON export"),
    ({"entries": []}, "expected"),
    ({"format": FORMAT, "entries": [_entry(kind="habit")]}, "entry 1: kind must be"),
    ({"format": FORMAT, "entries": [_entry(author="root")]}, "author must be"),
    ({"format": FORMAT, "entries": [_entry(created="2026-01-01")]}, "needs a zone"),
    ({"format": FORMAT, "entries": [_entry(text="")]}, "text must be"),
    ({"format": FORMAT, "entries": [_entry(extra=1)]}, "unknown field"),
    ({"format": FORMAT, "entries": [_entry(), _entry(id="m2"), _entry()]}, "occurs twice"),
    ({"format": FORMAT, "entries": [_entry(id="m2"), "nope"]}, "entry 2: an entry must be an object"),
])
def test_a_bad_file_is_one_line_and_imports_nothing(tmp_path, data, problem):
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(EngramError, match=problem):
        import_memory(tmp_path, path)
    assert MemoryStore(tmp_path).entries() == []


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(EngramError, match="cannot read"):
        import_memory(tmp_path, tmp_path / "none.json")
