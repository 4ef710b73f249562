"""Bulk dismissal of one rule's pairs on the sample vault: one batch in the ledger, one retract puts
every pair back with its evidence (issue 21, item 5)."""

from __future__ import annotations

import pytest

from engram_lab.cli import main
from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.resolve.service import resolution_state
from engram_lab.sample import copy_sample_vault


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine = Engine(copy_sample_vault(tmp_path_factory.mktemp("dismiss") / "vault"))
    engine.index(progress=False)
    return engine


def test_dismissing_a_rule_judges_its_pairs_distinct_and_one_undo_brings_them_back(engine):
    before, judged_before = engine.pending_pairs(), resolution_state(engine.vault).judgments
    similar = [p for p in before if p.rule == "similar"]
    assert similar and any(p.rule != "similar" for p in before)  # the fixture holds more than one rule
    done = engine.dismiss_rule("similar")
    assert len(done.decisions) == len(similar) and done.batch_id.startswith("b-")
    assert all(d.verdict == "distinct" and d.actor == "user" and d.evidence["batch"] == done.batch_id for d in done.decisions)
    assert [p for p in engine.pending_pairs() if p.rule == "similar"] == [] and "similar" not in engine.pending_rules()
    assert len(resolution_state(engine.vault).judgments) == len(judged_before) + len(similar)
    undone = engine.retract_batch(done.batch_id)
    assert len(undone) == len(similar)
    assert engine.pending_pairs() == before  # every pair back, in its place, with its evidence
    assert resolution_state(engine.vault).judgments == judged_before


def test_an_unknown_rule_is_a_one_line_error_naming_the_rules_waiting(engine):
    with pytest.raises(EngramError, match=r"no pairs from rule 'acronyms' wait for review; rules waiting: .*similar \(\d+\)"):
        engine.dismiss_rule("acronyms")


def test_the_cli_dismisses_and_retracts_a_batch(engine, capsys):
    before = engine.pending_pairs()
    assert main(["dismiss", str(engine.vault), "surname"]) == 0
    out = capsys.readouterr().out
    batch = out.split("engram retract ")[1].split()[1]
    assert "pairs from rule 'surname' as distinct" in out and batch.startswith("b-")
    assert "surname" not in engine.pending_rules()
    assert main(["retract", str(engine.vault), batch]) == 0
    assert "back for review" in capsys.readouterr().out and engine.pending_pairs() == before
    assert main(["resolve", str(engine.vault), "--sort", "rule"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert [line.split()[1].rstrip("]") for line in lines] == sorted(p.rule for p in before)
