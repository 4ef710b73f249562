"""The overlay and the review queue over a vault's life: entities that leave and return, retraction,
renamed notes and a rebuilt ``.engram/``, decisions imported into a fresh index (issue 17, items 1-4)."""

from __future__ import annotations

import shutil

from engram_lab.engine import Engine
from engram_lab.graph import vocabulary as v
from engram_lab.resolve.service import candidate_id, resolution_state

FNG_NOTE = "# Alpha\n\nThe Full Name Group (FNG) met in Oslo.\n"
FNG = "urn:engram:entity:concept:fng"
GROUP = "urn:engram:entity:organization:full-name-group"
MARTA = "# Engineer\n\nMarta Hall is an engineer in Oslo.\n"
MARTHA = "# Historian\n\nMartha Hall is a historian in Leeds.\n"


def _overlay(engine: Engine) -> tuple[set[tuple[str, str, str]], int]:
    """The overlay's edges (sameAs, distinctFrom, broader, related) and how many judgment nodes it has."""
    rows = engine.sparql(f"SELECT ?s ?p ?o WHERE {{ GRAPH <{v.OVERLAY_GRAPH}> {{ ?s ?p ?o }} }}")
    edges = {(s, p, o) for s, p, o in rows.iter_rows() if not s.startswith(v.JUDGMENT_PREFIX)}
    judgments = {s for s in rows["s"].to_list() if s.startswith(v.JUDGMENT_PREFIX)}
    return edges, len(judgments)


def _queued(engine: Engine) -> set[tuple[str, str]]:
    return {(p.evidence["name_a"], p.evidence["name_b"]) for p in engine.pending_pairs()}


def _rebuild(engine: Engine) -> None:
    shutil.rmtree(engine.vault / ".engram")
    engine.index(progress=False)


def test_an_automatic_merge_leaves_with_its_entities_and_comes_back_with_them(vault, write):
    write("a.md", FNG_NOTE)
    write("b.md", "# Beta\n\nThe FNG published a report.\n")
    engine = Engine(vault)
    engine.index(progress=False)
    merged = {(FNG, v.OWL_SAME_AS.value, GROUP)}
    assert _overlay(engine) == (merged, 1)

    write("a.md", "# Alpha\n\nNothing here.\n")  # the only sentence naming the Full Name Group
    engine.index(progress=False)
    assert _overlay(engine) == (set(), 0)
    assert resolution_state(vault).judgments == {}
    engine.index(full=True, progress=False)
    engine.analyse()
    assert _overlay(engine) == (set(), 0)

    write("a.md", FNG_NOTE)
    engine.index(progress=False)
    assert _overlay(engine) == (merged, 1)
    (vault / "a.md").unlink()
    engine.index(progress=False)
    assert _overlay(engine) == (set(), 0)


def test_retract_puts_the_pair_back_in_the_review_queue(vault, write):
    write("marta.md", MARTA)
    write("martha.md", MARTHA)
    engine = Engine(vault)
    engine.index(progress=False)
    before, overlay = engine.pending_pairs(), _overlay(engine)
    assert _queued(engine) == {("Marta Hall", "Martha Hall")}
    for verdict in ("same", "distinct", "related"):
        decision = engine.judge("Marta Hall", "Martha Hall", verdict)
        assert _queued(engine) == set()
        engine.retract(decision.decision_id)
        assert engine.pending_pairs() == before  # exactly as before the judgment, evidence included
        assert _overlay(engine) == overlay


def test_retracting_an_automatic_merge_holds_through_later_analysis(vault, write):
    write("a.md", FNG_NOTE)
    write("b.md", "# Beta\n\nThe FNG published a report.\n")
    engine = Engine(vault)
    engine.index(progress=False)
    [auto] = resolution_state(vault).judgments.values()
    engine.retract(auto.decision_id)
    assert _overlay(engine) == (set(), 0)
    write("b.md", "# Beta\n\nThe FNG published a second report.\n")
    engine.index(progress=False)
    engine.analyse()
    assert _overlay(engine) == (set(), 0)  # a person withdrew it; the analysis does not make it again


def test_a_verdict_survives_renaming_its_note_and_rebuilding_engram(vault, write, tmp_path):
    write("kickoff.md", "# Kickoff\n\n## Decisions\n- 2026-01-14 Decision: deploy CT-200 sensors at every station.\n")
    write("review.md", "# Sensor review\n\n## Decisions\n- 2026-03-18 Decision: replace the CT-200 sensors with AS-5 probes.\n")
    engine = Engine(vault)
    engine.index(progress=False)
    [candidate] = engine.supersessions()
    engine.supersession_verdict(candidate_id(candidate), "accept")
    (vault / "review.md").rename(vault / "sensor-review.md")
    engine.index(progress=False)
    assert [c.evidence["status"] for c in engine.supersessions()] == ["accepted"]
    engine.export_decisions(tmp_path / "decisions.json")

    _rebuild(engine)  # the renamed note gets the id of its new path
    engine.import_decisions(tmp_path / "decisions.json")
    assert [c.evidence["status"] for c in engine.supersessions()] == ["accepted"]
    engine.index(progress=False)
    assert [c.evidence["status"] for c in engine.supersessions()] == ["accepted"]
    result = next(r for r in engine.query("deploy CT-200 sensors at every station", k=5, mode="keyword").results
                  if r.path == "kickoff.md")
    assert result.superseded == "superseded by sensor-review.md (2026-03-18)"


def test_imported_decisions_apply_to_a_fresh_index(vault, write, tmp_path):
    write("a.md", FNG_NOTE)
    write("b.md", "# Beta\n\nThe FNG published a report.\n")
    write("vra.md", "# Vessel River Authority\n\nThe Vessel River Authority is an agency based in Halden.\n")
    write("report.md", "# Dredging report\n\nThe VRA published the report in Halden.\n")
    write("marta.md", MARTA)
    write("martha.md", MARTHA)
    engine = Engine(vault)
    engine.index(progress=False)
    [fng_merge] = [d for d in resolution_state(vault).judgments.values() if FNG in (d.subject, d.object)]
    engine.retract(fng_merge.decision_id)  # a person withdraws an automatic merge
    engine.judge("VRA", "Vessel River Authority", "distinct")
    engine.judge("Marta Hall", "Martha Hall", "distinct")
    expected_overlay, expected_queue = _overlay(engine), _queued(engine)
    assert expected_queue == set()
    assert (FNG, v.OWL_SAME_AS.value, GROUP) not in expected_overlay[0]
    engine.export_decisions(tmp_path / "decisions.json")

    _rebuild(engine)
    assert _queued(engine) == {("Marta Hall", "Martha Hall")}
    engine.import_decisions(tmp_path / "decisions.json")
    assert (_overlay(engine), _queued(engine)) == (expected_overlay, expected_queue)
    engine.index(progress=False)
    assert (_overlay(engine), _queued(engine)) == (expected_overlay, expected_queue)
    engine.index(full=True, progress=False)
    assert (_overlay(engine), _queued(engine)) == (expected_overlay, expected_queue)


def test_the_overlay_graph_carries_each_judgments_recorded_evidence(vault, write):
    import json

    write("a.md", FNG_NOTE)
    write("b.md", "# Beta\n\nThe FNG published a report.\n")
    engine = Engine(vault)
    engine.index(progress=False)
    rows = engine.sparql(f"SELECT ?o WHERE {{ GRAPH <{v.OVERLAY_GRAPH}> {{ ?j <{v.EVIDENCE.value}> ?o }} }}")
    [decision] = resolution_state(vault).judgments.values()
    assert decision.evidence and [json.loads(o) for o in rows["o"].to_list()] == [decision.evidence]
