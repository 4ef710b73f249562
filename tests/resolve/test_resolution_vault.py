"""Resolution and supersession end to end on small vaults: the engine, the ledger, the graphs, the CLI."""

from __future__ import annotations

import shutil

import pytest

from engram_lab.cli import main
from engram_lab.engine import Engine
from engram_lab.graph import vocabulary as v
from engram_lab.graph.store import GraphStore
from engram_lab.resolve.service import candidate_id, resolution_state



@pytest.fixture
def engine(vault, write):
    write("vra.md", "# Vessel River Authority\n\nThe Vessel River Authority is an agency based in Halden.\n")
    write("report.md", "# Dredging report\n\nThe VRA published the report in Halden.\n")
    write("marta.md", "# Marta Hall\n\nMarta Hall is an engineer at Acme Labs.\n")
    write("peter.md", "# Peter Hall\n\nPeter Hall is a historian in Leeds.\n")
    write("hall.md", "# Visit\n\nHall said the boat was late.\n")
    write("apollo.md", "# Apollo\n\nApollo is a project run by Acme Labs. The project ends in June.\n")
    write("zephyr.md", "# Zephyr\n\nZephyr is a project run by Blue Corp. The project starts in May.\n")
    engine = Engine(vault)
    engine.index(progress=False)
    return engine


def _iri(engine, name):
    from engram_lab.resolve.run import load_tables
    from engram_lab.resolve.service import find_entity

    view = load_tables(engine.vault).view
    return view.iris[find_entity(view, name)]


def _assertion_quads(vault):
    store = GraphStore(vault / ".engram" / "store", read_only=True)
    try:
        return sorted(str(q) for g in store.graphs() if v.is_assertion_graph(g) for q in store.quads(g))
    finally:
        store.close()


def test_acronym_merges_automatically_as_an_overlay(engine):
    state = resolution_state(engine.vault)
    assert state.same(_iri(engine, "VRA"), _iri(engine, "Vessel River Authority"))
    judgment = next(d for d in state.judgments.values() if d.verdict == "same" and "vra" in d.subject + d.object)
    assert judgment.actor == "auto" and judgment.evidence["rule"] == "acronym"
    rows = engine.sparql(f"SELECT ?a ?b WHERE {{ GRAPH <{v.OVERLAY_GRAPH}> {{ ?a <{v.OWL_SAME_AS.value}> ?b }} }}")
    assert rows.height >= 1


def test_local_aliases_stay_local(engine):
    state = resolution_state(engine.vault)
    marta, peter = _iri(engine, "Marta Hall"), _iri(engine, "Peter Hall")
    assert not state.same(marta, peter)
    hall = [iri for iri in state.cluster_of if iri.endswith(":hall")]
    assert hall == []  # 'Hall' alone merges with nobody
    names = {n.lower() for n in engine.sparql(f"SELECT ?n WHERE {{ ?e <{v.RDFS_LABEL.value}> ?n }}")["n"].to_list()}
    assert "the project" not in names  # a definite description is never a global entity
    assert not state.same(_iri(engine, "Apollo"), _iri(engine, "Zephyr"))


def test_user_distinct_holds_across_a_full_rebuild_and_retraction_restores(engine):
    vra, org = _iri(engine, "VRA"), _iri(engine, "Vessel River Authority")
    before = _assertion_quads(engine.vault)
    decision = engine.judge("VRA", "Vessel River Authority", "distinct")
    assert not resolution_state(engine.vault).same(vra, org)
    assert _assertion_quads(engine.vault) == before  # judgments never touch what notes say
    engine.index(full=True, progress=False)
    shutil.rmtree(engine.vault / ".engram" / "store")  # a rebuild from the notes, the ledger kept
    shutil.rmtree(engine.vault / ".engram" / "tables")
    engine.index(full=True, progress=False)
    assert not resolution_state(engine.vault).same(vra, org)
    engine.retract(decision.decision_id)
    assert resolution_state(engine.vault).same(vra, org)  # exactly as before the distinct


def test_user_same_survives_rebuilds(engine):
    engine.judge("Marta Hall", "Acme Labs", "related")
    decision = engine.judge("Apollo", "Zephyr", "same")
    engine.index(full=True, progress=False)
    state = resolution_state(engine.vault)
    assert state.same(_iri(engine, "Apollo"), _iri(engine, "Zephyr"))
    assert decision.actor == "user"


def test_judging_bad_input_is_a_clear_error(engine, capsys):
    assert main(["judge", str(engine.vault), "Nobody", "Apollo", "same"]) == 2
    assert "no entity named 'Nobody'" in capsys.readouterr().err
    assert main(["judge", str(engine.vault), "Marta Hall", "Acme Labs", "same"]) == 2
    assert "veto" in capsys.readouterr().err
    assert main(["retract", str(engine.vault), "d-nope"]) == 2


def test_cli_resolve_judge_retract(engine, capsys):
    assert main(["resolve", str(engine.vault), "--rescan"]) == 0
    out = capsys.readouterr().out
    assert "analysed" in out
    assert main(["judge", str(engine.vault), "Apollo", "Zephyr", "distinct"]) == 0
    decision_id = capsys.readouterr().out.split()[1].rstrip(":")
    assert main(["retract", str(engine.vault), decision_id]) == 0
    assert "retracted" in capsys.readouterr().out


DECISIONS_JAN = "# Kickoff\n\n## Decisions\n- 2026-01-14 Decision: deploy CT-200 sensors at every station.\n"
DECISIONS_MAR = "# Sensor review\n\n## Decisions\n- 2026-03-18 Decision: replace the CT-200 sensors with AS-5 probes.\n"
SUPERSESSION_GRAPHS = f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?c a <{v.SUPERSESSION.value}> }} }}"


def _decisions_indexed(vault, write, **others: str) -> Engine:  # type: ignore[no-untyped-def]
    """The two dated decisions (March replaces January), any ``others`` (file stem -> text), indexed."""
    write("kickoff.md", DECISIONS_JAN)
    write("review.md", DECISIONS_MAR)
    for stem, text in others.items():
        write(f"{stem}.md", text)
    engine = Engine(vault)
    engine.index(progress=False)
    return engine


def test_supersession_appears_is_accepted_and_disappears_with_the_later_decision(vault, write, capsys):
    engine = _decisions_indexed(vault, write)
    [candidate] = engine.supersessions()
    assert candidate.evidence["status"] == "pending"
    graphs = engine.sparql(SUPERSESSION_GRAPHS)["g"].to_list()
    review_id = candidate.later_doc
    assert graphs == [v.analysis_graph_iri(review_id)]  # in the later note's analysis graph only

    result = engine.query("CT-200 sensors at every station", k=5, mode="keyword").results
    old = next(r for r in result if r.path == "kickoff.md")
    assert old.superseded and old.superseded.startswith("possibly superseded by review.md (2026-03-18)")

    assert main(["verdict", str(vault), candidate_id(candidate), "accept"]) == 0
    capsys.readouterr()
    results = engine.query("deploy CT-200 sensors at every station", k=5, mode="keyword").results
    paths = [r.path for r in results]
    assert paths.index("review.md") < paths.index("kickoff.md")  # the current decision ranks first
    old = next(r for r in results if r.path == "kickoff.md")
    assert old.superseded == "superseded by review.md (2026-03-18)" and "superseded" in old.to_json()

    write("review.md", "# Sensor review\n\nNo decisions this time.\n")  # the later decision disappears
    engine.index(progress=False)
    assert engine.supersessions() == []
    assert engine.sparql(SUPERSESSION_GRAPHS).height == 0
    assert not any(r.superseded for r in engine.query("CT-200 sensors at every station", k=5, mode="keyword").results)

    write("review.md", DECISIONS_MAR)  # and comes back: the accept verdict still applies
    engine.index(progress=False)
    assert [c.evidence["status"] for c in engine.supersessions()] == ["accepted"]

    (vault / "review.md").unlink()
    engine.index(progress=False)
    assert engine.supersessions() == []


def test_a_rejected_supersession_labels_nothing(vault, write):
    engine = _decisions_indexed(vault, write)
    [candidate] = engine.supersessions()
    engine.supersession_verdict(candidate_id(candidate), "reject")
    assert [c.evidence["status"] for c in engine.supersessions()] == ["rejected"]
    assert not any(r.superseded for r in engine.query("CT-200 sensors", k=5, mode="keyword").results)


def test_an_unrelated_edit_leaves_candidates_and_deleting_the_earlier_note_removes_them(vault, write):
    engine = _decisions_indexed(vault, write, other="# Other\n\nNothing decided here.\n")
    [candidate] = engine.supersessions()
    write("other.md", "# Other\n\nStill nothing decided here, but edited.\n")
    engine.index(progress=False)
    assert engine.analysis is not None and engine.analysis.supersessions == 1
    assert [c.evidence["iri"] for c in engine.supersessions()] == [candidate.evidence["iri"]]
    (vault / "kickoff.md").unlink()
    engine.index(progress=False)
    assert engine.supersessions() == []


def test_a_focused_pass_drops_the_analysis_graph_of_a_note_whose_candidates_went(vault, write):
    """With judgments in force (an overlay graph), a pass after an edit touches only the changed notes' graphs."""
    engine = _decisions_indexed(vault, write, people="# People\n\nAna Ruiz met Tom Hale in Porto.\n")
    engine.judge("Ana Ruiz", "Tom Hale", "related")
    assert engine.sparql(SUPERSESSION_GRAPHS).height == 1
    write("review.md", "# Sensor review\n\nNo decisions this time.\n")
    engine.index(progress=False)
    assert engine.supersessions() == [] and engine.sparql(SUPERSESSION_GRAPHS).height == 0
    assert engine.sparql(f"ASK {{ GRAPH <{v.OVERLAY_GRAPH}> {{ ?s ?p ?o }} }}")["ask"].to_list() == [True]
