"""The decision ledger: record, retract, and the JSON round trip across a deleted .engram/."""

from __future__ import annotations

import json
import shutil

import pytest

from engram_lab.errors import DecisionFileError, EngramError
from engram_lab.indexer import index_vault
from engram_lab.state import DecisionLedger, open_ledger


@pytest.fixture
def ledger(vault):
    conn = open_ledger(vault)
    yield DecisionLedger(conn)
    conn.close()


def test_record_and_retract(ledger):
    d = ledger.record("resolution", "urn:e:NERI", "urn:e:Northern", "same", "user", {"cosine": 0.91})
    assert ledger.all(include_retracted=False) == [d]
    retracted = ledger.retract(d.decision_id)
    assert not retracted.active and ledger.all(include_retracted=False) == []
    assert ledger.all()[0].evidence == {"cosine": 0.91}
    with pytest.raises(EngramError, match="already retracted"):
        ledger.retract(d.decision_id)
    with pytest.raises(EngramError, match="no decision"):
        ledger.retract("d-missing")


@pytest.mark.parametrize(
    ("kind", "verdict", "actor", "message"),
    [
        ("merge", "same", "user", "unknown decision kind"),
        ("resolution", "accept", "user", "no resolution verdict"),
        ("supersession", "accept", "robot", "actor must be"),
    ],
)
def test_invalid_decisions_are_refused(ledger, kind, verdict, actor, message):
    with pytest.raises(EngramError, match=message):
        ledger.record(kind, "a", "b", verdict, actor)


def test_llm_actor_names_its_model(ledger):
    assert ledger.record("supersession", "s1", "s2", "accept", "llm:gpt-4o-mini").actor == "llm:gpt-4o-mini"


def test_export_survives_deleting_engram_and_reindexing(vault, write, tmp_path):
    write("a.md", "# A\nsome text")
    index_vault(vault, progress=False)
    conn = open_ledger(vault)
    ledger = DecisionLedger(conn)
    kept = ledger.record("resolution", "x", "y", "distinct", "user", {"note": "two Halls"})
    gone = ledger.record("supersession", "s1", "s2", "reject", "user")
    ledger.retract(gone.decision_id)
    export = tmp_path / "decisions.json"
    assert ledger.export_json(export) == 2
    before = ledger.all()
    conn.close()

    shutil.rmtree(vault / ".engram")
    index_vault(vault, progress=False)
    conn = open_ledger(vault)
    ledger = DecisionLedger(conn)
    assert ledger.all() == []
    assert ledger.import_json(export) == {"added": 2, "unchanged": 0, "retracted": 0}
    assert ledger.all() == before
    assert [d.decision_id for d in ledger.all(include_retracted=False)] == [kept.decision_id]
    assert ledger.import_json(export) == {"added": 0, "unchanged": 2, "retracted": 0}
    conn.close()


def test_import_keeps_a_retraction_made_elsewhere(ledger, tmp_path):
    d = ledger.record("resolution", "a", "b", "same", "auto")
    export = tmp_path / "d.json"
    ledger.export_json(export)
    payload = json.loads(export.read_text())
    payload["decisions"][0]["retracted_at"] = "2026-12-01T00:00:00+00:00"
    export.write_text(json.dumps(payload))
    assert ledger.import_json(export)["retracted"] == 1
    assert not ledger.all()[0].active and ledger.all()[0].decision_id == d.decision_id


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not a JSON decisions file"),
        ('{"decisions": []}', "not an engram decisions export"),
        ('{"format": "engram-decisions", "version": 99, "decisions": []}', "format version 99"),
        ('{"format": "engram-decisions", "version": 1, "decisions": [{"kind": "resolution"}]}', "decision #1 is malformed"),
    ],
)
def test_malformed_import_names_the_file_and_changes_nothing(ledger, tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(DecisionFileError, match=message) as info:
        ledger.import_json(path)
    assert "bad.json" in str(info.value)
    assert ledger.all() == []


def test_import_is_all_or_nothing(ledger, tmp_path):
    good = {"decision_id": "d-1", "kind": "resolution", "subject": "a", "object": "b", "verdict": "same", "actor": "user",
            "made_at": "2026-01-01T00:00:00+00:00", "evidence": {}, "retracted_at": None}
    bad = dict(good, decision_id="d-2", verdict="maybe")
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"format": "engram-decisions", "version": 1, "decisions": [good, bad]}))
    with pytest.raises(DecisionFileError, match="decision #2"):
        ledger.import_json(path)
    assert ledger.all() == []
