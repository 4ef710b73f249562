"""Randomized lifecycle check (issue 17): any sequence of create / edit / delete / rename / judge / retract /
verdict / export / delete ``.engram`` / import / index ends in the same overlay, review queue and supersession
candidates as a fresh index of the final notes with the final decisions imported.

A seeded loop, so a failure names its seed and replays exactly.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.graph import vocabulary as v
from engram_lab.resolve.run import load_tables
from engram_lab.resolve.service import candidate_id, resolution_state

SENTENCES = (
    "The Full Name Group (FNG) met in Oslo.",
    "The FNG published a report.",
    "Fine Nordic Goods (FNG) sells fish in Bergen.",  # a second expansion makes the acronym ambiguous
    "Marta Hall is an engineer in Oslo.",
    "Martha Hall is a historian in Leeds.",
    "The Vessel River Authority is an agency based in Halden.",
    "The VRA dredged the harbour.",
    "J. Smith wrote the memo.",
    "John Smith is a chemist at Acme Labs.",
    "Jane Smith is a pilot.",
    "## Decisions\n- 2026-01-14 Decision: deploy CT-200 sensors at every station.",
    "## Decisions\n- 2026-03-18 Decision: replace the CT-200 sensors with AS-5 probes.",
)
OPERATIONS = ("create", "create", "edit", "delete", "rename", "judge", "judge", "judge", "retract", "retract", "verdict",
              "export", "drop-engram", "import", "index", "index", "index")
STEPS = 20
SEEDS = range(8)
_UNSTABLE = {v.PROV_GENERATED_AT.value, v.EVIDENCE.value}  # when an analysis ran, and the evidence it saw then


def _note(rng: random.Random) -> str:
    return "# Note\n\n" + "\n\n".join(rng.sample(SENTENCES, rng.randint(1, 3))) + "\n"


def _outcome(engine: Engine) -> tuple[set[tuple[str, str, str]], list[tuple[str, str]], list[tuple[str, ...]]]:
    """The overlay (without timestamps and evidence), the review queue, and supersession candidates with status."""
    rows = engine.sparql(f"SELECT ?s ?p ?o WHERE {{ GRAPH <{v.OVERLAY_GRAPH}> {{ ?s ?p ?o }} }}")
    overlay = {(s, p, o) for s, p, o in rows.iter_rows() if p not in _UNSTABLE}
    queue = sorted((p.a, p.b) for p in engine.pending_pairs())
    candidates = sorted((c.evidence["earlier"]["text"], c.evidence["later"]["text"], c.evidence["status"])
                        for c in engine.supersessions())
    return overlay, queue, candidates


class _Life:
    """One vault living through random operations; remembers the last export."""

    def __init__(self, vault: Path, export: Path, rng: random.Random) -> None:
        self.vault, self.export, self.rng = vault, export, rng
        self.engine = Engine(vault)
        self.exported = False

    def notes(self) -> list[Path]:
        return sorted(self.vault.glob("*.md"))

    def step(self, op: str) -> None:
        rng, notes = self.rng, self.notes()
        if op == "create":
            (self.vault / f"n{rng.randrange(100)}.md").write_text(_note(rng), encoding="utf-8")
        elif op == "edit" and notes:
            rng.choice(notes).write_text(_note(rng), encoding="utf-8")
        elif op == "delete" and notes:
            rng.choice(notes).unlink()
        elif op == "rename" and notes:
            target = self.vault / f"r{rng.randrange(100)}.md"
            if not target.exists():
                rng.choice(notes).rename(target)
        elif op == "judge":
            self.judge()
        elif op == "retract":
            with self.engine.decisions() as ledger:
                active = [d.decision_id for d in ledger.all(include_retracted=False)]
            if active:
                self.engine.retract(rng.choice(active))
        elif op == "verdict":
            pending = [c for c in self.engine.supersessions() if c.evidence["status"] == "pending"]
            if pending:
                self.engine.supersession_verdict(candidate_id(rng.choice(pending)), rng.choice(["accept", "reject"]))
        elif op == "export":
            self.engine.export_decisions(self.export)
            self.exported = True
        elif op == "drop-engram":
            shutil.rmtree(self.vault / ".engram", ignore_errors=True)
        elif op == "import" and self.exported:
            self.engine.import_decisions(self.export)
        elif op == "index":
            self.engine.index(progress=False)

    def judge(self) -> None:
        pairs = [(p.a, p.b) for p in self.engine.pending_pairs()]
        pairs += list(resolution_state(self.vault).judgments)
        entities = load_tables(self.vault).view.iris
        if len(entities) >= 2:
            pairs.append(tuple(self.rng.sample(entities, 2)))
        if not pairs:
            return
        a, b = self.rng.choice(sorted(pairs))
        try:
            self.engine.judge(a, b, self.rng.choice(["same", "distinct", "related", "broader"]))
        except EngramError:
            pass  # a kind veto, or an entity whose note is not indexed any more


def _fresh(vault: Path, decisions: Path, root: Path) -> Engine:
    """The final notes indexed from nothing, the final decisions imported, indexed again."""
    copy = root / "fresh"
    shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".engram"))
    engine = Engine(copy)
    engine.index(progress=False)
    engine.import_decisions(decisions)
    engine.index(progress=False)
    return engine


@pytest.mark.parametrize("seed", SEEDS)
def test_any_life_ends_where_a_fresh_index_with_the_decisions_does(tmp_path, seed):
    vault = tmp_path / "vault"
    vault.mkdir()
    rng = random.Random(seed)
    life = _Life(vault, tmp_path / "exported.json", rng)
    for _ in range(3):
        life.step("create")
    life.step("index")
    trail = []
    for _ in range(STEPS):
        op = rng.choice(OPERATIONS)
        trail.append(op)
        life.step(op)
    life.step("index")
    final = tmp_path / "final.json"
    life.engine.export_decisions(final)
    assert _outcome(life.engine) == _outcome(_fresh(vault, final, tmp_path)), f"seed {seed}: {trail}"
