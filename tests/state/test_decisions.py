"""The decision ledger: record, retract, and the JSON round trip across a deleted .engram/."""

from __future__ import annotations

import json
import shutil

import pytest

from engram_lab.errors import DecisionFileError, EngramError
from engram_lab.graph.vocabulary import ENTITY_PREFIX as E
from engram_lab.indexer import index_vault
from engram_lab.state import DecisionLedger, open_ledger
from engram_lab.state.db import transaction
from engram_lab.state.documents import now_iso


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
    kept = ledger.record("resolution", f"{E}person:x", f"{E}person:y", "distinct", "user", {"note": "two Halls"})
    gone = ledger.record("supersession", "urn:engram:decision:s1", "urn:engram:decision:s2", "reject", "user")
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
    d = ledger.record("resolution", f"{E}concept:a", f"{E}concept:b", "same", "auto")
    export = tmp_path / "d.json"
    ledger.export_json(export)
    payload = json.loads(export.read_text())
    payload["decisions"][0]["retracted_at"] = now_iso()
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
    good = {"decision_id": "d-1", "kind": "resolution", "subject": f"{E}concept:a", "object": f"{E}concept:b", "verdict": "same", "actor": "user",
            "made_at": "2026-01-01T00:00:00+00:00", "evidence": {}, "retracted_at": None}
    bad = dict(good, decision_id="d-2", verdict="maybe")
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"format": "engram-decisions", "version": 1, "decisions": [good, bad]}))
    with pytest.raises(DecisionFileError, match="decision #2"):
        ledger.import_json(path)
    assert ledger.all() == []


def _export(path, *decisions):
    path.write_text(json.dumps({"format": "engram-decisions", "version": 1, "decisions": list(decisions)}))
    return path


_GOOD = {"decision_id": "d-0123456789abcdef", "kind": "resolution", "subject": f"{E}organization:fng",
         "object": f"{E}organization:full-name-group", "verdict": "same", "actor": "user",
         "made_at": "2026-01-01T00:00:00+00:00", "evidence": {}, "retracted_at": None}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"decision_id": ["d-1"]}, "decision_id must be a string"),
        ({"decision_id": "../../x y"}, "is not an id"),
        ({"decision_id": "d-<x>"}, "is not an id"),
        ({"subject": {"iri": "x"}}, "subject must be a string"),
        ({"subject": "a"}, "subject must be an IRI starting urn:engram:entity:"),
        ({"object": f"{E}bad iri"}, "object is not a valid IRI"),
        ({"object": _GOOD["subject"]}, "subject and object are the same"),
        ({"actor": "llm:has space"}, "actor must be"),
        ({"actor": 3}, "actor must be a string"),
        ({"made_at": "9999-12-31T00:00:00+00:00"}, "is in the future"),
        ({"made_at": "yesterday"}, "not an ISO date"),
        ({"made_at": "2026-01-01T00:00:00"}, "no time zone"),
        ({"retracted_at": "2025-01-01T00:00:00+00:00"}, "retracted_at is before made_at"),
        ({"evidence": [1]}, "evidence must be an object"),
        ({"extra": 1}, "unknown field"),
        ({"kind": ["resolution"]}, "kind must be a string"),
    ],
)
def test_every_field_of_an_imported_decision_is_checked(ledger, tmp_path, change, message):
    path = _export(tmp_path / "forged.json", _GOOD, {**_GOOD, "decision_id": "d-2", **change})
    with pytest.raises(DecisionFileError, match=message) as info:
        ledger.import_json(path)
    assert str(info.value).startswith(f"{path}: decision #2 is malformed")
    assert ledger.all() == []  # all or nothing


def test_a_duplicated_id_is_refused(ledger, tmp_path):
    with pytest.raises(DecisionFileError, match="appears twice"):
        ledger.import_json(_export(tmp_path / "d.json", _GOOD, _GOOD))


def test_imported_times_are_stored_in_the_ledgers_own_form(ledger, tmp_path):
    ledger.import_json(_export(tmp_path / "d.json", {**_GOOD, "made_at": "2026-01-01T02:00:00+02:00"}))
    assert ledger.all()[0].made_at == "2026-01-01T00:00:00.000+00:00"


def test_deep_nesting_and_folders_are_one_line_errors(ledger, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DecisionFileError, match="nested more than"):
        ledger.import_json(deep)
    nested = {"a": {}}
    for _ in range(40):
        nested = {"a": nested}
    with pytest.raises(DecisionFileError, match="nested more than"):
        ledger.import_json(_export(tmp_path / "evidence.json", {**_GOOD, "evidence": nested}))
    with pytest.raises(DecisionFileError, match="is a folder"):
        ledger.import_json(tmp_path)


def test_export_to_a_missing_folder_is_one_line_error(ledger, tmp_path):
    with pytest.raises(DecisionFileError, match="no such folder"):
        ledger.export_json(tmp_path / "missing" / "d.json")


def test_ids_the_ledger_makes_are_accepted(ledger, tmp_path):
    from engram_lab.state.decisions import machine_decision_id

    made = machine_decision_id("resolution", _GOOD["subject"], _GOOD["object"], "same", "llm:Qwen/Qwen2.5-7B-Instruct")
    ledger.import_json(_export(tmp_path / "d.json", {**_GOOD, "decision_id": made, "actor": "llm:Qwen/Qwen2.5-7B-Instruct"}))
    assert ledger.get(made) is not None


def test_decisions_touching_entities_equal_filtering_every_decision(ledger):
    made = [ledger.record("resolution", f"{E}a", f"{E}b", "same", "user"),
            ledger.record("resolution", f"{E}c", f"{E}a", "distinct", "user"),
            ledger.record("resolution", f"{E}c", f"{E}d", "related", "user"),
            ledger.record("supersession", f"{E}a", f"{E}d", "accept", "user")]
    ledger.retract(made[2].decision_id)
    every = ledger.all(with_evidence=False)
    for focus in ({f"{E}a"}, {f"{E}d"}, {f"{E}b", f"{E}c"}, set()):
        want = [d for d in every if d.kind == "resolution" and (d.subject in focus or d.object in focus)]
        assert ledger.touching("resolution", focus) == want
        assert ledger.touching("resolution", focus, include_retracted=False) == [d for d in want if d.active]
    for kind in ("resolution", "supersession"):
        assert ledger.all(kind=kind) == [d for d in ledger.all() if d.kind == kind]
    assert ledger.all(kind="supersession", include_retracted=False, with_evidence=False) == [
        d for d in every if d.kind == "supersession" and d.active]


def test_verdicts_are_read_again_only_when_the_ledger_moved(ledger, vault):
    first = ledger.record("resolution", f"{E}a", f"{E}b", "same", "user")
    kept = ledger.verdicts()
    assert kept == tuple(ledger.all(with_evidence=False)) and ledger.verdicts() is kept
    other = open_ledger(vault)  # another connection (another process, as far as the ledger knows) writes
    try:
        DecisionLedger(other).retract(first.decision_id)
    finally:
        other.close()
    moved = ledger.verdicts()
    assert moved is not kept and moved == tuple(ledger.all(with_evidence=False)) and not moved[0].active


def test_verdicts_read_inside_a_transaction_are_not_kept(ledger):
    with pytest.raises(RuntimeError):
        with transaction(ledger.conn):
            ledger.record_within("resolution", f"{E}a", f"{E}b", "same", "user")
            assert len(ledger.verdicts()) == 1
            raise RuntimeError("rolled back")
    assert ledger.verdicts() == ()
    ledger.record("resolution", f"{E}c", f"{E}d", "distinct", "user")  # the generation the rolled-back write had
    assert [d.verdict for d in ledger.verdicts()] == ["distinct"]


def test_a_rebuilt_ledger_is_never_answered_from_the_old_ones_verdicts(ledger, vault):
    ledger.record("resolution", f"{E}a", f"{E}b", "same", "user")
    assert len(ledger.verdicts()) == 1
    ledger.conn.close()
    shutil.rmtree(vault / ".engram")
    conn = open_ledger(vault)  # same path, same generation after one write: another ledger
    try:
        rebuilt = DecisionLedger(conn)
        rebuilt.record("resolution", f"{E}c", f"{E}d", "related", "user")
        assert [d.verdict for d in rebuilt.verdicts()] == ["related"]
    finally:
        conn.close()
    ledger.conn = open_ledger(vault)  # for the fixture's close


def test_reads_without_evidence_are_the_decisions_less_their_evidence(ledger):
    """``all(with_evidence=False)`` and ``touching`` read no evidence column, by position: every other field as
    ``all`` gives it, retracted ones, order and kind filters included."""
    from dataclasses import replace

    made = [ledger.record("resolution", f"{E}a{i}", f"{E}b{i % 3}", "same" if i % 2 else "related", "user", {"i": i})
            for i in range(7)]
    ledger.record("supersession", "urn:d:early", "urn:d:late", "accept", "user", {"why": "newer"})
    ledger.retract(made[2].decision_id)
    bare = [replace(d, evidence={}) for d in ledger.all()]
    assert ledger.all(with_evidence=False) == bare and any(not d.active for d in bare)
    assert ledger.all(with_evidence=False, kind="resolution") == [d for d in bare if d.kind == "resolution"]
    assert ledger.all(with_evidence=False, include_retracted=False) == [d for d in bare if d.active]
    wanted = {f"{E}b1", f"{E}a4"}
    assert ledger.touching("resolution", wanted) == [d for d in bare if d.kind == "resolution" and {d.subject, d.object} & wanted]
    assert ledger.touching("resolution", wanted, include_retracted=False) == [
        d for d in bare if d.kind == "resolution" and d.active and {d.subject, d.object} & wanted]
