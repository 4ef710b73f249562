"""Supersession candidates between dated decisions that concern the same subject.

Not temporal reasoning: a later decision about the same (resolved) subject is
only a *candidate* for replacing an earlier one. Each earlier decision is paired
with the nearest later decision sharing a subject; the pair is ``pending`` until
a person accepts or rejects it (verdicts in the ledger). A verdict applies to the
candidate whose two decisions have its words and dates: not their note's id, which
a renamed note loses when ``.engram/`` is rebuilt. Candidates are recomputed
from the current statements on every analysis pass: when the later decision
disappears from its note, so does the candidate, and the earlier one is current.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from engram_lab.graph import vocabulary as v
from engram_lab.resolve import names as nm
from engram_lab.resolve.overlay import ResolutionState, in_force
from engram_lab.state.decisions import Decision

SUPERSESSION = "supersession"
_VALUE_KINDS = ("time", "quantity")  # a shared date or number is no shared subject
_WIKILINK = re.compile(r"\[\[([^\]|#]+)")
# Words that say a decision changes something, not what it is about.
_CUES = frozenset(w[:5] for w in (
    "decision decided decide agreed resolved replace replaces replaced supersede supersedes superseded instead switch "
    "return keep drop adopt change changes changed apply "
).split())
_STOP = frozenset("with from that this these those which will into onto their there than then also only each every "
                  "after before during until".split())


@dataclass(frozen=True)
class DatedDecision:
    key: str  # decision_key: note + words + date
    statement: str  # the statement IRI in the assertion graph
    doc_id: str
    text: str
    date: dt.date
    cell_id: str | None
    span: tuple[int, int] | None
    subjects: frozenset[str]  # canonical entity IRIs (after resolution), linked notes left out
    subject_forms: frozenset[str]  # their names in loose form, for 'CT-200' ~ 'Halden CT-200'
    linked_docs: frozenset[str]  # notes the decision links to ([[...]])
    words: frozenset[str]  # content words (first five letters), change cues left out

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "statement": self.statement, "doc_id": self.doc_id, "text": self.text,
                "date": self.date.isoformat(), "cell_id": self.cell_id, "span": list(self.span) if self.span else None}


@dataclass(frozen=True)
class Candidate:
    earlier: DatedDecision
    later: DatedDecision
    shared: tuple[str, ...]
    score: float = 0.0
    status: str = "pending"  # pending | accepted | rejected
    verdict_id: str | None = None

    @property
    def iri(self) -> str:
        return v.supersession_iri(self.earlier.key, self.later.key)

    def evidence(self) -> dict[str, Any]:
        return {"earlier": self.earlier.to_json(), "later": self.later.to_json(), "shared_subjects": list(self.shared),
                "links_to_earlier_note": self.earlier.doc_id in self.later.linked_docs,
                "shared_words": sorted(self.earlier.words & self.later.words), "score": self.score,
                "days_between": (self.later.date - self.earlier.date).days}


def _content_words(text: str) -> frozenset[str]:
    plain = _WIKILINK.sub(" ", text)
    return frozenset(w[:5] for w in nm.tokens(plain) if len(w) >= 4 and w.isalpha() and w not in _STOP and w[:5] not in _CUES)


def surface_words(stems: list[str], *texts: str) -> list[str]:
    """The words as the notes wrote them for the shared word stems (first five letters) a candidate
    records: a reader should see "sampling", not "sampl". A stem no text holds stays as it is."""
    seen: dict[str, str] = {}
    for text in texts:
        for raw in re.findall(r"[^\W_]+", _WIKILINK.sub(" ", text)):
            for token in nm.tokens(raw):
                seen.setdefault(token[:5], raw)
    return [seen.get(stem, stem) for stem in stems]


def _dated(statements: pl.DataFrame) -> pl.DataFrame:
    return statements.filter((pl.col("kind") == "decision") & pl.col("date").is_not_null())


def _link_targets(text: str) -> list[str]:
    return [nm.loose(t) for t in _WIKILINK.findall(text)]


def linked_titles(statements: pl.DataFrame) -> set[str]:
    """The folded names of every note a dated decision links to: the only titles ``dated_decisions`` looks up."""
    return {t for text in _dated(statements)["text"].to_list() for t in _link_targets(text)}


def dated_decisions(statements: pl.DataFrame, state: ResolutionState, names: dict[str, str],
                    note_by_title: dict[str, str]) -> list[DatedDecision]:
    """Decision statements with a date; subjects mapped to resolved entities, links to the notes they name
    (``note_by_title``: a note by its folded title, holding at least every form ``linked_titles`` gives)."""
    out = []
    for r in _dated(statements).iter_rows(named=True):
        span = (r["start"], r["end"]) if r["start"] is not None else None
        targets = _link_targets(r["text"])
        linked = frozenset(doc for t in targets if (doc := note_by_title.get(t)) is not None)
        subjects = {
            iri: names.get(iri, "") for iri in (r["about"] or [])
            if not _is_value(iri) and not any(nm.loose(names.get(iri, "")) in t for t in targets)
        }
        out.append(DatedDecision(
            key=v.decision_key(r["doc_id"], r["text"], r["date"].isoformat()),
            statement=v.statement_iri(r["doc_id"], "decision", r["text"], str(r["date"]), span, r["cell_id"]),
            doc_id=r["doc_id"], text=r["text"], date=r["date"], cell_id=r["cell_id"], span=span,
            subjects=frozenset(state.canonical(iri) for iri in subjects),
            subject_forms=frozenset(nm.loose(n) for n in subjects.values() if n),
            linked_docs=linked, words=_content_words(r["text"]),
        ))
    return out


def _is_value(iri: str) -> bool:
    rest = iri.removeprefix(v.ENTITY_PREFIX)
    return rest.split(":", 1)[0] in _VALUE_KINDS


def _forms_match(a: str, b: str) -> bool:
    """Same name, one a word-suffix of the other, or the same last two words ('halden ct 200' ~ 'ct 200')."""
    wa, wb = a.split(), b.split()
    if not wa or not wb:
        return False
    short, long_ = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    return long_[-len(short):] == short or (len(short) >= 2 and short[-2:] == long_[-2:])


def shared_subjects(earlier: DatedDecision, later: DatedDecision) -> tuple[str, ...]:
    same = earlier.subjects & later.subjects
    similar = {f"{x} ~ {y}" for x in earlier.subject_forms for y in later.subject_forms if x != y and _forms_match(x, y)}
    return tuple(sorted(same | similar))


NEAREST_PER_SUBJECT = 5  # a decision is compared with the next few later decisions on each of its subjects


def _later_pool(decisions: list[DatedDecision]) -> Callable[[DatedDecision], set[int]]:
    """Indexes so each decision meets only plausible successors, not every later decision in the vault:
    the next few later decisions per shared subject (or subject-name tail), and those linking to its note."""
    by_key: dict[str, list[int]] = {}
    linking: dict[str, list[int]] = {}
    for i, d in enumerate(decisions):
        for key in _subject_keys(d):
            by_key.setdefault(key, []).append(i)
        for doc in d.linked_docs:
            linking.setdefault(doc, []).append(i)
    for members in by_key.values():
        members.sort(key=lambda i: decisions[i].date)
    dates = {key: [decisions[i].date for i in members] for key, members in by_key.items()}

    def pool(earlier: DatedDecision) -> set[int]:
        found: set[int] = set(linking.get(earlier.doc_id, ()))
        for key in _subject_keys(earlier):
            members = by_key[key]
            first = bisect.bisect_right(dates[key], earlier.date)
            found.update(members[first : first + NEAREST_PER_SUBJECT])
        return found

    return pool


def _subject_keys(d: DatedDecision) -> set[str]:
    keys = {f"iri:{s}" for s in d.subjects}
    for form in d.subject_forms:
        words = form.split()
        keys.add(f"tail:{words[-1]}" if len(words) == 1 else f"tail:{' '.join(words[-2:])}")
        if len(words) >= 2:
            keys.add(f"tail:{words[-1]}")
    return keys


def _words_and_date(part: dict[str, Any]) -> tuple[str, str]:
    return " ".join(str(part.get("text", "")).split()), str(part.get("date", ""))


def verdict_key(verdict: Decision) -> tuple[str, ...]:
    """What a verdict is about: the words and dates of its two decisions (from its evidence), else the keys."""
    earlier, later = verdict.evidence.get("earlier"), verdict.evidence.get("later")
    if isinstance(earlier, dict) and isinstance(later, dict) and earlier.get("text") and later.get("text"):
        return (*_words_and_date(earlier), *_words_and_date(later))
    return (verdict.subject, verdict.object)


def find_candidates(decisions: list[DatedDecision], verdicts: list[Decision]) -> list[Candidate]:
    """Each dated decision paired with the later decision that best fits as its replacement, if any.

    A later decision qualifies when it shares a (resolved) subject with the earlier one, or links to the
    earlier one's note and shares at least two content words. Among those the best score wins: shared
    subjects count 2 each, a link to the earlier note 2, each shared content word 1; ties go to the
    nearest date. Only the next few later decisions per subject are considered (``NEAREST_PER_SUBJECT``).
    """
    verdicts_in_force = in_force(verdicts, SUPERSESSION, verdict_key)
    pool = _later_pool(decisions)
    out: list[Candidate] = []
    for earlier in decisions:
        best: tuple[float, dt.date, Candidate] | None = None
        for index in sorted(pool(earlier)):
            later = decisions[index]
            if later.date <= earlier.date:
                continue
            shared = shared_subjects(earlier, later)
            linked = earlier.doc_id in later.linked_docs
            words = earlier.words & later.words
            if not shared and not (linked and len(words) >= 2):
                continue
            score = 2.0 * len(shared) + 2.0 * linked + len(words)
            content = (*_words_and_date(earlier.to_json()), *_words_and_date(later.to_json())) if verdicts_in_force else ()
            verdict = verdicts_in_force.get(content) or verdicts_in_force.get((earlier.key, later.key))
            status = "pending" if verdict is None else ("accepted" if verdict.verdict == "accept" else "rejected")
            candidate = Candidate(earlier, later, shared, score, status, verdict.decision_id if verdict else None)
            if best is None or (score, -later.date.toordinal()) > (best[0], -best[1].toordinal()):
                best = (score, later.date, candidate)
        if best is not None:
            out.append(best[2])
    return sorted(out, key=lambda c: (c.earlier.date, c.earlier.key, c.later.key))
