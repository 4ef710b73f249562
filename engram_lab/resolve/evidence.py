"""Evidence for a candidate pair and the documented policy that turns it into a score.

The score is a rule cascade, not a learned model, so every automatic merge can
be explained in one line (``reason``). Thresholds (README, "Entity resolution"):

- score >= ``AUTO_SAME`` (0.90): an automatic ``same`` judgment (actor ``auto``);
- ``REVIEW`` (0.60) <= score < 0.90: the pair waits in the review queue (or goes to the LLM judge);
- below 0.60: dropped.

Vetoes (score 0, never merged by a machine): incompatible kinds, names that differ
only in a number ("Phase 1" / "Phase 2"), a local reference ("the company").

A surface rule alone never merges names one letter apart: the typo rule needs a second sign
(a shared neighbour, or one spelling rare beside the other), else the pair waits for review.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

import polars as pl

from engram_lab.extract.kinds import compatible
from engram_lab.graph.vocabulary import normalise_label
from engram_lab.resolve import names as nm
from engram_lab.resolve.entities import EntityView

AUTO_SAME = 0.90
REVIEW = 0.60
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class PairEvidence:
    a: str
    b: str
    name_a: str
    name_b: str
    kind_a: str
    kind_b: str
    rule: str  # the strongest matching rule: same-form, loose-form, acronym, initials, typo, surname, similar
    sources: tuple[str, ...]  # the blocking keys that proposed the pair
    surface: float  # Jaro-Winkler of the loose forms
    edit: int  # edit distance of the loose forms (capped at 3)
    cosine: float | None  # label-embedding cosine, when the retrieval index has both
    kinds_compatible: bool
    shared_docs: int
    shared_neighbours: int
    ambiguous: bool  # the short form (acronym, initials, surname) has more than one expansion
    score: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Every field but the IRIs (all plain values: no deep copy, which ``asdict`` made for each of 155,000
        automatic judgments on the 10,000-note benchmark)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("a", "b")}

    @property
    def verdict(self) -> str:
        return "auto-same" if self.score >= AUTO_SAME else "review" if self.score >= REVIEW else "drop"


class Expansions:
    """How many different long names each short form (acronym, initials, surname) could stand for.

    Spellings the typo rule would merge automatically count as one name, so a misspelt
    'Nothern Estuary Research Institute' does not make 'NERI' ambiguous. Only a short form some entity is
    written as is ever counted, so only those are tabled (a few hundred of the 100,000-note benchmark's 580,000
    entities; tabling every long name's surname took a second per edit).
    """

    def __init__(self, view: EntityView) -> None:
        self.acronym: dict[str, set[str]] = {}
        self.initials: dict[str, set[str]] = {}
        self.surname: dict[str, set[str]] = {}
        keys = view.name_keys.forms.with_columns(kind=view.frame["kind"])  # derived once per set of labels (``name_keys.py``)
        for table, kind in ((self.acronym, "acronym"), (self.initials, "initials"), (self.surname, "surname")):
            written = keys.select(pl.col(f"short_{kind}").alias("key")).drop_nulls().unique()
            grouped = (keys.select(pl.col(f"long_{kind}").alias("key"), "form").join(written, on="key", how="semi")
                       .group_by("key").agg(pl.col("form").unique()))
            table.update((key, set(found)) for key, found in zip(grouped["key"].to_list(), grouped["form"].to_list()))
        # The kind of each long form counted (the last entity's, where one spelling has several kinds).
        counted = {form for table in (self.acronym, self.initials, self.surname) for found in table.values() for form in found}
        kinds = keys.filter(pl.col("form").is_in(sorted(counted))).select("form", "kind")
        self._person = dict(zip(kinds["form"].to_list(), kinds["kind"].to_list()))
        # How many notes write each spelling, whatever kind the extractor gave it (one name, several IRIs).
        self.writing = (view.frame.select(keys["form"], "doc_ids").explode("doc_ids")
                        .group_by("form").agg(pl.col("doc_ids").drop_nulls().n_unique().cast(pl.Int64).alias("notes")))
        self._writing_known: dict[str, int] = {}

    def notes_writing(self, form: str) -> int:
        """How many notes write the spelling ``form`` (0 for one no entity has), for the typo rule; looked up when
        asked and remembered (a mapping of every spelling, 580,000 at 100,000 notes, took 0.2 s of each edit for
        the few pairs a focused pass scores). ``know_writing`` looks many up at once."""
        if form not in self._writing_known:
            self.know_writing([form])
        return self._writing_known[form]

    def know_writing(self, forms: Iterable[str]) -> None:
        """Look up how many notes write each of ``forms`` now, in one join (before scoring many pairs)."""
        wanted = sorted(set(forms) - self._writing_known.keys())
        if wanted:
            counts = self.notes_writing_rows(pl.Series("form", wanted, dtype=pl.String))
            self._writing_known.update(zip(wanted, counts.to_list()))

    def notes_writing_rows(self, forms: pl.Series) -> pl.Series:
        """How many notes write each of ``forms`` (0 for one no entity has)."""
        return (forms.to_frame("form").join(self.writing, on="form", how="left", maintain_order="left")["notes"]
                .fill_null(0).alias("writing"))

    def count_inputs(self, table: dict[str, set[str]], key: str) -> tuple[tuple[str, str], ...]:
        """What ``count`` reads for ``key``: its long forms and their kinds (a digest of these moves whenever the count can)."""
        return tuple((form, self._person.get(form, "")) for form in sorted(table.get(key, ())))

    def count(self, table: dict[str, set[str]], key: str) -> int:
        forms = sorted(table.get(key, ()))
        distinct: list[str] = []
        for form in forms:
            if not any(_typo_score(form, kept, nm.edit_distance(form, kept), self._person.get(form, ""))[0] >= AUTO_SAME
                       for kept in distinct):
                distinct.append(form)
        return len(distinct)


def _typo_score(form_a: str, form_b: str, edit: int, kind: str = "") -> tuple[float, str]:
    words_a, words_b = form_a.split(), form_b.split()
    if len(words_a) != len(words_b):
        return 0.0, "different number of words"
    differing = [(w, x, y) for w, (x, y) in enumerate(zip(words_a, words_b)) if x != y]
    if edit == 1 and len(differing) == 1 and min(len(differing[0][1]), len(differing[0][2])) >= 5:
        w, x, y = differing[0]
        if w == 0 and len(words_a) >= 2 and kind in ("Person", "Concept", ""):
            return 0.7, f"given names one letter apart ({x} / {y}) are often two people"
        return 0.92, f"one-letter difference in a long word ({x} / {y})"
    return 0.7, f"names {edit} edits apart"


def _rare_spelling(docs_a: int, docs_b: int) -> bool:
    """One spelling is written in at least three notes and three times as many as the other (counted over every
    kind the spelling was given): the shape of a typo.

    Two names one letter apart that are each written about as often ("Jansen" / "Hansen", "Andersen" /
    "Anderson") are as likely two names as one; a spelling seen once beside one seen everywhere is a slip.
    """
    rare, common = sorted((docs_a, docs_b))
    return common >= 3 and rare * 3 <= common


def score_pair(view: EntityView, a: int, b: int, sources: set[str], expansions: Expansions,
               cosine: float | None = None) -> PairEvidence:
    name_a, name_b = view.names[a], view.names[b]
    kind_a, kind_b = view.kinds[a], view.kinds[b]
    form_a, form_b = nm.loose(name_a), nm.loose(name_b)
    surface = nm.jaro_winkler(form_a, form_b)
    edit = nm.edit_distance(form_a, form_b)
    shared_docs = len(view.doc_sets[a] & view.doc_sets[b])
    shared_neighbours = len((view.neighbours[a] & view.neighbours[b]) - {a, b})
    kinds_ok = compatible(kind_a, kind_b)
    context = shared_neighbours > 0

    def result(rule: str, score: float, reason: str, ambiguous: bool = False) -> PairEvidence:
        if not kinds_ok:
            score, reason = 0.0, f"veto: a {kind_a} is never a {kind_b}"
        return PairEvidence(view.iris[a], view.iris[b], name_a, name_b, kind_a, kind_b, rule, tuple(sorted(sources)),
                            round(surface, 4), edit, None if cosine is None else round(cosine, 4), kinds_ok, shared_docs,
                            shared_neighbours, ambiguous, round(score, 4), reason)

    if nm.is_local_reference(name_a) or nm.is_local_reference(name_b):
        return result("local", 0.0, "veto: a local reference never resolves across notes")
    if _DIGITS.findall(form_a) != _DIGITS.findall(form_b):  # (candidate_pairs already drops these)
        return result("similar", 0.0, "veto: the names differ in a number")
    labels_a = {normalise_label(x) for x in view.labels[a]}
    if labels_a & {normalise_label(x) for x in view.labels[b]}:
        return result("same-form", 0.97, "same name (or declared alias), different kind")
    if form_a == form_b:
        return result("loose-form", 0.95, "same name apart from case, accents, articles, titles or legal suffix")
    short, long_ = (name_a, name_b) if nm.as_acronym(name_a) else (name_b, name_a)
    acronym = nm.as_acronym(short)
    if acronym is not None and nm.acronym_of(long_) == acronym:
        ambiguous = expansions.count(expansions.acronym, acronym) > 1
        if ambiguous:  # even written side by side, the acronym may stand for the other expansion
            return result("acronym", 0.7, "acronym with more than one possible expansion in the vault", True)
        if shared_docs or context:
            return result("acronym", 0.93, "acronym of the other name, used alongside it")
        if len(acronym) < 3:
            return result("acronym", 0.7, "two-letter acronym")
        return result("acronym", 0.91, "acronym of the other name, and the only expansion in the vault")
    if nm.is_initialled(name_a) != nm.is_initialled(name_b) and nm.initials_key(name_a) == nm.initials_key(name_b) is not None:
        key = nm.initials_key(name_a) or ""
        ambiguous = expansions.count(expansions.initials, key) > 1
        if ambiguous:
            return result("initials", 0.65, "initials fit more than one full name", True)
        return result("initials", 0.91, "initial and surname fit the only full name with them")
    words_a, words_b = form_a.split(), form_b.split()
    long_kind = kind_b if len(words_a) == 1 else kind_a
    if (len(words_a) == 1) != (len(words_b) == 1) and words_a[-1] == words_b[-1] and long_kind == "Person":
        single = words_a[0] if len(words_a) == 1 else words_b[0]
        ambiguous = expansions.count(expansions.surname, single) > 1
        return result("surname", 0.0 if ambiguous else 0.6,
                      "a surname alone stays local to its note" + ("; several full names share it" if ambiguous else ""), ambiguous)
    if edit <= 2 and min(len(form_a), len(form_b)) >= 5:
        person_like = "Person" if "Person" in (kind_a, kind_b) else kind_a if kind_a == kind_b else "Organization"
        score, reason = _typo_score(form_a, form_b, edit, person_like)
        if shared_docs:
            return result("typo", min(score, 0.5), f"{reason}, but both are written in the same note, so probably two things")
        if score >= AUTO_SAME and not (context or _rare_spelling(expansions.notes_writing(form_a), expansions.notes_writing(form_b))):
            return result("typo", 0.7, f"{reason}, but neither spelling is rare beside the other and they share no "
                                       "neighbour: could be two names")
        return result("typo", score, reason)
    if (cosine is not None and cosine >= 0.9) or surface >= 0.93:
        return result("similar", 0.62 + (0.05 if context else 0.0), "similar names" + (" with shared neighbours" if context else ""))
    return result("similar", 0.0, "not similar enough")
