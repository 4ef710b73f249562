"""Learning writes only pending notes, refuses near-duplicates, and enters the graph only when accepted."""

from __future__ import annotations

import io
import sys

import pytest

from engram_lab.cli import main
from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.graph import vocabulary as v
from engram_lab.learn import DuplicateNoteError

SENSORS = "# Sensors\n\nThe AquaSense AS-5 replaced the Halden CT-200 at every station after drift was found in March.\n"


@pytest.fixture
def engine(vault, write):
    write("sensors.md", SENSORS)
    write("people.md", "# People\n\nPriya Raman leads the data work.\n")
    engine = Engine(vault)
    engine.index(progress=False)
    return engine


def _graph_docs(engine):
    rows = engine.sparql(f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ ?s <{v.PATH.value}> ?p }} }}")
    return {g for g in rows["g"].to_list() if v.is_assertion_graph(g)}


def test_a_learned_note_is_searchable_but_not_in_the_graph_until_accepted(engine):
    before = _graph_docs(engine)
    result = engine.learn("Oxygen probes", "Kofi Mensah calibrates the Orion oxygen probes every Monday at S3.", ["people.md"])
    assert result.path == "learned/oxygen-probes.md"
    text = (engine.vault / result.path).read_text()
    assert "status: pending-review" in text and "learned_at:" in text and "- people.md" in text
    hits = engine.search("Orion oxygen probes calibration", k=3, mode="keyword")
    assert hits[0].path == result.path and hits[0].status == "pending-review"
    assert _graph_docs(engine) == before  # searchable, not an authoritative fact
    assert engine.pending_learned() == [result.path]
    engine.accept_learned(result.path)
    assert "status: accepted" in (engine.vault / result.path).read_text()
    assert len(_graph_docs(engine)) == len(before) + 1 and engine.pending_learned() == []


def test_a_near_duplicate_is_refused_naming_the_note_unless_forced(engine):
    body = "The AquaSense AS-5 replaced the Halden CT-200 at every station after drift was found in March."
    with pytest.raises(DuplicateNoteError, match="sensors.md"):
        engine.learn("Sensor swap", body, ["sensors.md"])
    assert not (engine.vault / "learned").exists()
    result = engine.learn("Sensor swap", body, ["sensors.md"], force=True)
    assert result.similar[0].path == "sensors.md" and result.similar[0].similarity >= 0.6


def test_same_title_counts_as_duplicate(engine):
    with pytest.raises(DuplicateNoteError, match="same title"):
        engine.learn("Sensors", "Something else entirely about buoys.", ["https://example.org/buoys"])


@pytest.mark.parametrize(("sources", "message"), [
    ([], "at least one source"), (["missing.md"], "neither a URL nor a note"), (["../outside.md"], "outside the vault"),
])
def test_sources_are_required_and_checked(engine, sources, message):
    with pytest.raises(EngramError, match=message):
        engine.learn("Buoys", "Buoys float.", sources)


def test_accepting_checks_its_input(engine):
    with pytest.raises(EngramError, match="only notes under learned/"):
        engine.accept_learned("sensors.md")
    with pytest.raises(EngramError, match="no such learned note"):
        engine.accept_learned("learned/nope.md")


def test_cli_learn_and_accept(engine, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("Buoy B7 drifted north in April after the storm."))
    assert main(["learn", str(engine.vault), "--title", "Buoy drift", "--source", "people.md"]) == 0
    assert "wrote learned/buoy-drift.md" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("Buoy B7 drifted north in April after the storm."))
    assert main(["learn", str(engine.vault), "--title", "Buoy drift again", "--source", "people.md"]) == 2
    assert "learned/buoy-drift.md" in capsys.readouterr().err
    assert main(["accept-learned", str(engine.vault)]) == 0
    assert "learned/buoy-drift.md" in capsys.readouterr().out
    assert main(["accept-learned", str(engine.vault), "learned/buoy-drift.md"]) == 0


@pytest.mark.parametrize("given", ["learned/../people.md", "learned/../../outside.md", "learned/link.md", "{abs}/people.md"])
def test_accepting_never_touches_a_note_outside_learned(engine, capsys, given):
    people = engine.vault / "people.md"
    people.write_text("---\ntitle: People\nstatus: draft\n---\n# People\n\nPriya Raman leads the data work.\n")
    (engine.vault / "learned").mkdir()
    (engine.vault / "learned" / "link.md").symlink_to(people)
    before = people.read_bytes()
    assert main(["accept-learned", str(engine.vault), given.format(abs=engine.vault)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("engram: error: ") and "only notes under learned/" in err and err.count("\n") == 1
    assert people.read_bytes() == before


def test_a_body_larger_than_a_note_may_be_is_refused_unwritten(engine, write):
    write("engram.toml", "[vault]\nmax_note_mb = 0.001\n")
    with pytest.raises(EngramError, match="more than max_note_mb"):
        engine.learn("Big", "word " * 1000, ["people.md"])
    assert not (engine.vault / "learned").exists()
