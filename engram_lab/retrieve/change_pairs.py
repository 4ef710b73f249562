"""A question about change over time gets both ends of the change: the best note and its other-dated counterpart.

"What happened to the 2015 proposal?", "is that still the rule?", "how did the plan change?":
the answer needs the note that made a decision and the note that later amended, replaced or
restored it. Search ranks the note closest to the question's words first; the other one often
words the subject differently and falls just below the top ten (on rust-rfcs two of 24 such
questions). So, when the question asks about time (a change word or a year), the note most like
the best one (cosine of their mean chunk vectors) among the next candidates that carries a
different date (``vault.note_date``) is moved up to third place, unless it is already shown.
A year in the question sets the direction: if the best note is from that year, the counterpart
is a later note; otherwise it is one from that year. Undated notes (and vaults without dates)
are left as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from engram_lab.index.retrieval_index import RetrievalData

CANDIDATES = 30  # how far down the ranking a counterpart is looked for
SLOT = 2  # the counterpart's place, counted from 0: right after the first two notes
_CHANGE = re.compile(
    r"\b(still|now|nowadays|current(ly)?|today|latest|newest|recent(ly)?|later|since|chang(e|ed|es|ing)|"
    r"replac(e|ed|ement)|supersed(e|ed|es)|amend(ed|ment|s)?|revis(e|ed|ion)|withdr(awn|ew)|remov(e|ed|al)|"
    r"deprecat(e|ed|ion)|restor(e|ed)|original(ly)?|initial(ly)?|what happened|history|evolv(e|ed)|sequence|over time|"
    r"any ?more|ever|became|redesign(ed)?|redone|took over|afterwards|no longer|used to)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")


@dataclass(frozen=True)
class TimeQuestion:
    """What a query says about time: whether it asks about change, and the years it names."""

    years: frozenset[int]

    @classmethod
    def parse(cls, query: str) -> TimeQuestion | None:
        years = frozenset(int(y) for y in _YEAR.findall(query))
        return cls(years) if years or _CHANGE.search(query) else None


def _note_vector(data: RetrievalData, note: int) -> np.ndarray:
    rows = data.note_sections(note)
    vector = data.section_vectors[rows].astype(np.float32).mean(axis=0) if rows.size else np.zeros(data.section_vectors.shape[1], np.float32)
    return vector / (np.linalg.norm(vector) or 1.0)


def change_partner(data: RetrievalData, doc_scores: np.ndarray, question: TimeQuestion) -> tuple[int, int] | None:
    """(best note, its counterpart), or None: no dated best note, or no dated candidate below it."""
    days = data.note_days
    order = [int(i) for i in np.argsort(-doc_scores, kind="stable")[: CANDIDATES + 1] if doc_scores[i] > 0]
    if not order or np.isnan(days[order[0]]):
        return None
    anchor = order[0]
    candidates = [i for i in order[1:] if not np.isnan(days[i]) and days[i] != days[anchor]]
    if question.years:
        anchor_year = data.note_year(anchor)
        wanted = ([i for i in candidates if days[i] > days[anchor]] if anchor_year in question.years
                  else [i for i in candidates if data.note_year(i) in question.years])
        candidates = wanted or candidates
    if not candidates:
        return None
    centre = _note_vector(data, anchor)
    best = max(candidates, key=lambda i: float(centre @ _note_vector(data, i)))
    return anchor, best


def complete_change_pair(data: RetrievalData, doc_scores: np.ndarray, query: str, shown: int) -> np.ndarray:
    """``doc_scores`` with the counterpart scored into third place when it is not among the ``shown`` first."""
    question = TimeQuestion.parse(query)
    if question is None or data.n_passages <= SLOT:
        return doc_scores
    pair = change_partner(data, doc_scores, question)
    if pair is None:
        return doc_scores
    ranked = np.argsort(-doc_scores, kind="stable")
    partner = pair[1]
    if partner in ranked[:shown].tolist():
        return doc_scores
    scores = doc_scores.copy()
    scores[partner] = (scores[ranked[SLOT - 1]] + scores[ranked[SLOT]]) / 2
    return scores
