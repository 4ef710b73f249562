"""Related notes from the retrieval index: links both ways, shared rare entities, dense neighbours, each with its reason."""

from __future__ import annotations

import pytest

from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.index.retrieval_index import load, published_retrieval_index
from engram_lab.retrieve.related import related_notes
from engram_lab.sample import copy_sample_vault


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    vault = copy_sample_vault(tmp_path_factory.mktemp("related") / "vault")
    Engine(vault).index(progress=False)
    return load(published_retrieval_index(vault))


def _by_path(notes):
    return {n.path: {r.kind: r for r in n.reasons} for n in notes}


def test_links_both_ways_shared_entities_and_similar_text_each_say_why(data):
    notes = related_notes(data, "meetings/2026-03-18-sensor-review.md", k=30)
    reasons = _by_path(notes)
    # The review note links to the kickoff ([[2026-01-14 Kickoff]]) and the index note links to the review.
    assert "links to" in reasons["meetings/2026-01-14-kickoff.md"]
    assert "linked from" in reasons["index.md"]
    assert "AquaSense" in reasons["orgs/aquasense.md"]["shared entities"].detail or \
        "AS-5" in reasons["orgs/aquasense.md"]["shared entities"].detail
    similar = [n for n in notes if any(r.kind == "similar text" for r in n.reasons)]
    assert 1 <= len(similar) <= 5 and all(r.detail.startswith("cosine ") for n in similar for r in n.reasons if r.kind == "similar text")
    assert "meetings/2026-03-18-sensor-review.md" not in reasons, "a note is not related to itself"
    scores = [n.score for n in notes]
    assert scores == sorted(scores, reverse=True)
    assert all(n.score == pytest.approx(sum(r.weight for r in n.reasons)) for n in notes)


def test_k_limits_and_the_best_note_has_the_most_reasons(data):
    notes = related_notes(data, "meetings/2026-03-18-sensor-review.md", k=3)
    assert len(notes) == 3
    assert len(notes[0].reasons) >= 2
    assert notes[0].to_json()["reasons"][0]["kind"] in {"links to", "linked from"}


def test_an_entity_every_note_names_ties_nothing(data):
    # Weighted log(notes / notes naming it): an entity in every note weighs 0 and is never a reason.
    everywhere = {e for e, n in zip(data.entities["name"].to_list(), data.entities["passages"].to_list())
                  if n >= data.n_passages}
    for note in related_notes(data, "orgs/aquasense.md", k=30):
        for reason in note.reasons:
            if reason.kind == "shared entities":
                assert not any(name in reason.detail.split(", ") for name in everywhere)


def test_unknown_notes_and_bad_k_are_one_clear_error(data):
    with pytest.raises(EngramError, match="not in the retrieval index"):
        related_notes(data, "no/such-note.md")
    with pytest.raises(EngramError, match="k must be at least 1"):
        related_notes(data, "index.md", k=0)
