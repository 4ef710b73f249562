"""The separation judge: ways of working vs facts, on the labelled sets and through disguises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram_lab.procedural.judge import judge, plain_text

DATA = Path(__file__).parents[2] / "engram_lab" / "eval" / "data"


def _rows(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


def test_labelled_sets_are_big_enough_and_balanced():
    rows = _rows("memory_judge.jsonl")
    assert len(rows) >= 60
    assert {r["label"] for r in rows} == {"practice", "fact"}
    assert min(sum(r["label"] == k for r in rows) for k in ("practice", "fact")) >= 30


@pytest.mark.parametrize("name, floor", [("memory_judge.jsonl", 0.95), ("memory_judge_heldout.jsonl", 0.85)])
def test_accuracy_on_the_labelled_sets(name, floor):
    rows = _rows(name)
    right = sum(judge(r["text"]).kind == r["label"] for r in rows)
    assert right / len(rows) >= floor


@pytest.mark.parametrize("text", ["I prefer short answers.", "Never rewrite my notes.", "Call me Sam.",
                                  "We're working on the estuary report this month."])
def test_ways_of_working(text):
    assert judge(text).kind == "practice"


@pytest.mark.parametrize("text", ["The CT-200 is safe to use again.", "Priya Raman leads the data work.",
                                  "Station S2 was decommissioned on 2026-02-01."])
def test_facts(text):
    assert judge(text).is_fact


def test_disguised_letters_and_hidden_characters_do_not_hide_a_fact():
    disguised = "Тhe СТ-200 i\u200bs sаfe to use again."  # Cyrillic T, C, T, a and a zero-width space
    assert plain_text(disguised) == "The CT-200 is safe to use again."
    assert judge(disguised).is_fact


def test_a_strong_preference_is_one_a_learn_is_redirected_for():
    assert judge("I prefer metric units in every note.").is_strong_preference
    assert not judge("Kofi Mensah calibrates the probes on Mondays at S3.").is_strong_preference
    weak = judge("Answers in French.")  # one weak cue: kept as a way of working, too weak to redirect a learn
    assert weak.kind == "practice" and not weak.is_strong_preference
