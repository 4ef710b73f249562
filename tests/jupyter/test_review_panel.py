"""The resolution review panel driven by messages as its JavaScript sends them: pages, sort, a rule
dismissed as one and undone, every evidence number named, shared words as written (issue 21, item 5)."""

from __future__ import annotations

import dataclasses

import pytest

from engram_lab.engine import Engine
from engram_lab.jupyter.review_items import EVIDENCE_NUMBERS, evidence_rows, supersession_item
from engram_lab.jupyter.widgets import ResolutionReview, SupersessionReview
from engram_lab.resolve.evidence import PairEvidence
from engram_lab.sample import copy_sample_vault
from engram_lab.state.review import StoredCandidate


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    engine = Engine(copy_sample_vault(tmp_path_factory.mktemp("review") / "vault"))
    engine.index(progress=False)
    return engine


def send(panel, **content):
    panel._handle_custom_msg(content, [])


def test_pages_next_previous_and_a_page_past_the_end(engine):
    panel = ResolutionReview(engine, page_size=4)
    total = len(engine.pending_pairs())
    assert total > 4 and (panel.page, panel.pages, panel.total, panel.first, len(panel.items)) == (1, 2, total, 1, 4)
    send(panel, type="page", page=2)
    assert (panel.page, panel.first, len(panel.items)) == (2, 5, total - 4)
    assert [(i["a"], i["b"]) for i in panel.items] == [(p.a, p.b) for p in engine.pending_pairs()[4:]]
    send(panel, type="page", page=3)
    assert panel.status == f"error: no page 3: the queue has {total} pairs, 2 pages of 4" and panel.page == 2
    send(panel, type="page", page="x")
    assert panel.status.startswith("error: invalid literal") and panel.page == 2


def test_page_size_keeps_the_first_pair_in_view(engine):
    panel = ResolutionReview(engine, page_size=2)
    send(panel, type="page", page=3)
    first = panel.items[0]
    send(panel, type="page_size", size=4)
    assert (panel.page_size, panel.page, panel.first) == (4, 2, 5) and first in panel.items
    send(panel, type="page_size", size=0)
    assert panel.status == "error: a page holds at least one pair, got a page size of 0" and panel.page_size == 4


def test_sort_by_rule_then_by_score(engine):
    panel = ResolutionReview(engine, page_size=50)
    send(panel, type="sort", by="rule")
    rules = [i["rule"] for i in panel.items]
    assert rules == sorted(rules) and panel.sort == "rule" and panel.page == 1
    send(panel, type="sort", by="score")
    scores = [i["score"] for i in panel.items]
    assert scores == sorted(scores, reverse=True)
    send(panel, type="sort", by="colour")
    assert panel.status == "error: cannot sort by 'colour'; use one of: score, rule" and panel.sort == "score"


def test_dismiss_a_rule_and_undo_puts_every_pair_back(engine):
    panel = ResolutionReview(engine, page_size=50)
    before, counts = list(panel.items), {r["rule"]: r["count"] for r in panel.rules}
    send(panel, type="dismiss", rule="surname")
    assert panel.status.startswith(f"dismissed {counts['surname']} pairs from rule 'surname' as distinct (batch b-")
    assert all(i["rule"] != "surname" for i in panel.items) and panel.total == len(before) - counts["surname"]
    assert "surname" not in {r["rule"] for r in panel.rules} and panel.can_undo
    send(panel, type="undo")
    assert "pairs from rule 'surname' are back for review" in panel.status
    assert panel.items == before and not panel.can_undo
    send(panel, type="dismiss", rule="nonsense")
    assert panel.status.startswith("error: no pairs from rule 'nonsense' wait for review; rules waiting:")


def test_undo_of_one_judgment_puts_the_pair_back_on_its_page(engine):
    panel = ResolutionReview(engine, page_size=4)
    send(panel, type="page", page=2)
    before = list(panel.items)
    send(panel, type="act", action="distinct", index=0)
    assert panel.status.startswith("recorded") and panel.items[0] != before[0]
    send(panel, type="undo")
    assert "back for review" in panel.status and panel.page == 2 and panel.items == before


def test_every_evidence_number_is_shown_under_a_name_and_never_blank(engine):
    numeric = {f.name for f in dataclasses.fields(PairEvidence) if f.type in ("float", "int", "bool", "float | None")}
    assert numeric <= {key for key, _ in EVIDENCE_NUMBERS}  # a new number in the evidence needs a name here
    rows = evidence_rows({"surface": 0.91234, "edit": 2, "cosine": None, "shared_docs": 0, "shared_neighbours": 1,
                          "kinds_compatible": True, "ambiguous": False}, 0.7)
    assert {r["name"]: r["value"] for r in rows} == {
        "score": "0.700", "name similarity (Jaro-Winkler)": "0.912", "edit distance (capped at 3)": "2",
        "label cosine": "not computed (no embedding of both names)", "shared notes": "0",
        "shared relation neighbours": "1", "kinds compatible": "yes", "short form has several expansions": "no"}
    panel = ResolutionReview(engine)
    assert all(len(i["numbers"]) == len(EVIDENCE_NUMBERS) and all(n["value"] for n in i["numbers"]) for i in panel.items)


def test_shared_words_are_the_words_the_notes_wrote_not_stems(engine):
    candidate = StoredCandidate("e", "l", "d1", "d2", "2026-05-01", {
        "iri": "urn:x:abcdefabcdef", "shared_words": ["biwee", "sampl"],
        "earlier": {"text": "Biweekly sampling at [[Station 3]]"}, "later": {"text": "Monthly sampling replaces it"}})
    assert supersession_item(candidate)["shared_words"] == ["Biweekly", "sampling"]
    items = SupersessionReview(engine).items
    assert items
    for item in items:
        stems = [w for w in item["shared_words"] if w.lower() not in (item["earlier"]["text"] + item["later"]["text"]).lower()]
        assert stems == []
