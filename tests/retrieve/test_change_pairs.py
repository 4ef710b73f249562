"""A question about change gets the other-dated counterpart of its best note into third place."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np
import pytest

from engram_lab.retrieve.change_pairs import TimeQuestion, change_partner, complete_change_pair


@dataclass
class Notes:
    """The slice of RetrievalData the pairing reads: one chunk vector per note and each note's date."""

    dates: list[dt.date | None]
    section_vectors: np.ndarray

    @property
    def n_passages(self) -> int:
        return len(self.dates)

    @property
    def note_days(self) -> np.ndarray:
        return np.array([np.nan if d is None else float(d.toordinal()) for d in self.dates])

    def note_year(self, note: int) -> int | None:
        date = self.dates[note]
        return date.year if date else None

    def note_sections(self, note: int) -> np.ndarray:
        return np.array([note])


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


# note 0: the 2015 rule (best match); 1-9: other topics; 10: the 2022 note that replaced the rule (like note 0).
DATES = [dt.date(2015, 3, 1)] + [dt.date(2016, 1, 1 + i) for i in range(9)] + [dt.date(2022, 8, 7)]
VECTORS = np.stack([unit(1, 0, 0)] + [unit(0.1 * i, 1, 0.3) for i in range(9)] + [unit(0.9, 0.1, 0)])
SCORES = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4, 0.35, 0.3, 0.2])


def ranked(scores: np.ndarray) -> list[int]:
    return list(np.argsort(-scores, kind="stable"))


@pytest.mark.parametrize("query, years", [
    ("What happened to the 2015 proposal?", {2015}), ("Is that still the rule?", set()), ("How did the plan change?", set()),
    ("Which rule was superseded, and what replaced it?", set()),
])
def test_questions_about_change_are_recognised(query, years):
    question = TimeQuestion.parse(query)
    assert question is not None and question.years == years


@pytest.mark.parametrize("query", ["Who calibrates the sensors?", "What does the budget cover?", "ranges 10 to 20"])
def test_other_questions_are_not(query):
    assert TimeQuestion.parse(query) is None


def test_the_counterpart_moves_to_third_place_when_not_shown():
    notes = Notes(DATES, VECTORS)
    scores = complete_change_pair(notes, SCORES, "What happened to the rule?", shown=10)  # type: ignore[arg-type]
    assert ranked(scores)[:4] == [0, 1, 10, 2]
    assert SCORES[10] == 0.2, "the input is not changed"


def test_nothing_moves_for_a_question_without_time_or_a_counterpart_already_shown():
    notes = Notes(DATES, VECTORS)
    assert complete_change_pair(notes, SCORES, "Which rule covers ranges?", shown=10) is SCORES  # type: ignore[arg-type]
    assert complete_change_pair(notes, SCORES, "What happened to the rule?", shown=11) is SCORES  # type: ignore[arg-type]


def test_a_year_sets_the_direction():
    # Best note from 2015 and the question names 2015: the counterpart is later, even if an earlier note is more alike.
    dates = list(DATES)
    dates[9] = dt.date(2010, 1, 1)
    vectors = VECTORS.copy()
    vectors[9] = unit(1, 0.01, 0)
    notes = Notes(dates, vectors)
    assert change_partner(notes, SCORES, TimeQuestion.parse("What became of the 2015 plan?")) == (0, 10)  # type: ignore[arg-type]
    assert change_partner(notes, SCORES, TimeQuestion.parse("What became of the plan?")) == (0, 9)  # type: ignore[arg-type]
    # The best note is not from the year named: the counterpart is the note from that year.
    assert change_partner(notes, SCORES, TimeQuestion.parse("How did the 2016 rules change it?"))[1] in range(1, 9)  # type: ignore[arg-type,index]


def test_undated_notes_are_left_alone():
    notes = Notes([None] + DATES[1:], VECTORS)
    assert change_partner(notes, SCORES, TimeQuestion.parse("What changed?")) is None  # type: ignore[arg-type]
    undated = Notes([DATES[0]] + [None] * 10, VECTORS)
    assert change_partner(undated, SCORES, TimeQuestion.parse("What changed?")) is None  # type: ignore[arg-type]
