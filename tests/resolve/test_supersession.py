"""Supersession candidates from dated decisions (pure): which later decision replaces which, and verdicts."""

from __future__ import annotations

import datetime as dt

import polars as pl

from engram_lab.graph.vocabulary import entity_iri
from engram_lab.resolve.overlay import ResolutionState
from engram_lab.resolve.supersession import dated_decisions, find_candidates
from engram_lab.state.decisions import Decision

SENSOR = entity_iri("CT-200", "Artifact")
HALDEN_SENSOR = entity_iri("Halden CT-200", "Artifact")
BUDGET = entity_iri("Budget", "Concept")
NAMES = {SENSOR: "CT-200", HALDEN_SENSOR: "Halden CT-200", BUDGET: "Budget"}


def _statements(rows):
    return pl.DataFrame(
        [{"doc_id": d, "kind": "decision", "text": t, "date": dt.date.fromisoformat(day), "cell_id": None, "start": 0,
          "end": len(t), "about": about} for d, t, day, about in rows],
        schema={"doc_id": pl.String, "kind": pl.String, "text": pl.String, "date": pl.Date, "cell_id": pl.String,
                "start": pl.Int64, "end": pl.Int64, "about": pl.List(pl.String)},
    )


ROWS = [
    ("kick", "Decision: deploy CT-200 sensors everywhere.", "2026-01-14", [SENSOR]),
    ("kick", "Decision: sample monthly at every station.", "2026-01-14", []),
    ("plan", "Decision: sample biweekly at every station; replaces the monthly schedule of [[Kickoff]].", "2026-02-11", []),
    ("review", "Decision: replace the Halden CT-200 with AS-5 sensors.", "2026-03-18", [HALDEN_SENSOR]),
    ("review", "Decision: raise the budget.", "2026-03-18", [BUDGET]),
]


def _candidates(rows=ROWS, verdicts=()):
    decisions = dated_decisions(_statements(rows), ResolutionState({}), NAMES, {"kickoff": "kick"})
    return {(c.earlier.text[:20], c.later.text[:20]): c for c in find_candidates(decisions, list(verdicts))}


def test_shared_subject_and_linked_note_make_candidates_and_nothing_else():
    found = _candidates()
    assert set(found) == {
        ("Decision: deploy CT-", "Decision: replace th"),  # 'CT-200' ~ 'Halden CT-200'
        ("Decision: sample mon", "Decision: sample biw"),  # links [[Kickoff]] and shares 'sample', 'monthly', 'station'
    }
    assert all(c.status == "pending" for c in found.values())


def test_verdicts_attach_by_decision_key_and_the_user_wins():
    c = _candidates()[("Decision: deploy CT-", "Decision: replace th")]
    auto = Decision("d-1", "supersession", c.earlier.key, c.later.key, "reject", "auto", "2026-01-01T00:00:00", {})
    user = Decision("d-2", "supersession", c.earlier.key, c.later.key, "accept", "user", "2025-01-01T00:00:00", {})
    assert _candidates(verdicts=[auto])[("Decision: deploy CT-", "Decision: replace th")].status == "rejected"
    assert _candidates(verdicts=[auto, user])[("Decision: deploy CT-", "Decision: replace th")].status == "accepted"


def test_a_candidate_disappears_with_the_later_decision():
    without = [r for r in ROWS if not r[1].startswith("Decision: replace")]
    assert ("Decision: deploy CT-", "Decision: replace th") not in _candidates(without)


def test_undated_or_same_day_decisions_are_never_candidates():
    rows = [("a", "Decision: use CT-200.", "2026-01-01", [SENSOR]), ("b", "Decision: drop CT-200.", "2026-01-01", [SENSOR])]
    assert _candidates(rows) == {}


def test_a_notes_title_forms_equal_the_path_rules_they_replaced():
    from pathlib import Path

    from engram_lab.resolve import names as nm
    from engram_lab.resolve.run import _title_forms

    for title, path in [("Sensor review", "meetings/2026-03-18 Sensor Review.md"), ("", "a/b.c.md"), ("x", "noext"),
                        ("", ".hidden.md"), ("Ådne", "dir.x/file"), ("", "notes/Café.ipynb")]:
        expected = tuple(nm.loose(form) for form in (title, Path(path).stem, str(Path(path).with_suffix(""))))
        assert _title_forms(title, path) == expected


def test_notes_titled_finds_what_folding_every_note_finds():
    """Only notes whose title or path could fold to a wanted form are folded: over random titles and paths (case,
    punctuation, leading articles, legal suffixes, accents, other scripts), each wanted form maps to the note
    folding every note's names maps it to."""
    import random

    import polars as pl

    from engram_lab.resolve.run import _title_forms, notes_titled

    rng = random.Random(3)
    words = ["Sensor", "review", "the", "Acme", "Inc", "kick-off", "2026", "Café", "Straße", "ÅDNE", "Δelta", "x_y", "Dr.", "NOTES"]
    rows = []
    for i in range(400):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(0, 3))) if rng.random() > 0.1 else None
        folder = rng.choice(["", "meetings/", "a.b/", "Notes/Sub dir/"])
        rows.append((f"d{i}", title, f"{folder}{rng.choice(words)}{rng.choice(['', ' ', '-'])}{rng.choice(words)}{rng.choice(['.md', '.ipynb', ''])}"))
    documents = pl.DataFrame(rows, schema={"doc_id": pl.String, "title": pl.String, "path": pl.String}, orient="row")
    every: dict[str, str] = {}
    for doc_id, title, path in rows:
        for form in _title_forms(title or "", path):
            every.setdefault(form, doc_id)
    held = sorted(every)
    for trial in range(60):
        forms = set(rng.sample(held, rng.randint(0, 6))) | ({"no such note"} if trial % 3 == 0 else set())
        if trial % 10 == 0:
            forms.add("")
        assert notes_titled(documents, forms) == {form: every[form] for form in forms if form in every}, forms
    assert any(not f.isascii() for f in held) and "" in every  # the cases the draw must reach
