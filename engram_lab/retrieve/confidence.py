"""How likely a search found something that answers the query: a "no good match" signal for people and agents.

A ranking always has a first place, so scores alone cannot say "nothing here":
BM25 scores grow with query length and cosines sit in a model-specific band.
What does tell: a specific name the query asks about (`Vec::extract_if`,
wasm32-wasip2, a capitalised name inside the sentence, a quoted phrase) that no
note contains, or a version of a named thing that no note names ("Windows 7" in
notes that know Windows 8 and 10); whether the query's words exist in the vault at all, and whether
the best passage holds them (IDF-weighted, so "how" and "the" count for little);
and, when the model is loaded, how close the best passage is in meaning and how far the two passage legs agree
(a query the notes answer tends to bring the same notes up by its words and by its meaning; one they do not
answer scatters each leg over loosely related notes: a query-performance predictor that needs no training). A
logistic function maps them to [0, 1]. Its coefficients are round numbers set
by hand after looking at the rust-rfcs development set (BENCHMARKS.md), not
fitted to it: twelve abstain questions cannot carry more than that.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from engram_lab.index.keyword import ChunkKey, KeywordIndex, tokenize
from engram_lab.retrieve.scoring import top_positive

# Logistic coefficients (BENCHMARKS.md, "No good match"): intercept, vault coverage, best-passage coverage, cosine,
# leg agreement, and a named thing the vault lacks (which alone pushes any query below NO_GOOD_MATCH).
_BIAS, _VAULT, _PASSAGE, _COSINE, _AGREEMENT, _MISSING = -4.0, 4.0, 2.0, 1.0, 2.0, -6.0
# Names a query asks about: `code`, "quoted", a capitalised run after a lower-case word, identifiers (a_b, A::b, wasip2).
_NAMED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|(?<=[a-z,;] )([A-Z][\w-]*(?: [A-Z][\w-]*)*)|(?<![\w:-])([A-Za-z][\w:-]*?(?:_|::|\d)[\w:-]*\w)")
# A name with a version or edition number after a lower-case word ("ending Windows 7 support", "built with LLVM 17"):
# the vault may name the thing often and never that version. Not a quantity ("Sarah 2 weeks ago").
_VERSIONED = re.compile(r"(?<=[a-z,;] )([A-Z][\w+#-]*) v?(\d+(?:\.\d+)*)\b"
                        r"(?!\s+(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|times|percent)\b)")
_MONTHS = frozenset("january february march april may june july august september october november december "
                    "jan feb mar apr jun jul aug sep sept oct nov dec".split())  # "March 2019" is a date, not a version
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")  # "[Windows](https://...) 7" reads as "[Windows] 7"
VERSION_NEARBY = 64  # characters a passage may put between a name and its number ("RFC PR #: .../rfcs/pull/116")
VERSION_CANDIDATES = 2048  # chunks read when looking for a versioned name (~30 ms from the ledger); a name in more is held
ChunkTexts = Callable[[list[ChunkKey]], Iterable[tuple[str, str]]]  # (note path, text) per chunk key, read lazily
_COSINE_WITHOUT_MODEL = 0.5  # stands in for the cosine where no model is loaded (keyword, auto)
_AGREEMENT_WITHOUT_MODEL = 0.5  # and for the leg agreement, so a keyword confidence is what it was before agreement
AGREEMENT_TOP = 10  # the legs' best notes compared
NO_GOOD_MATCH = 0.5  # below this a result list is labelled "no good match"


@dataclass(frozen=True)
class MatchSignals:
    vault_coverage: float  # IDF share of the query's terms that some passage of the vault holds
    passage_coverage: float  # IDF share of the query's terms that the best passage holds
    best_cosine: float | None  # the query against the most similar passage (None: no model loaded)
    missing_names: tuple[str, ...] = ()  # names the query asks about that no passage of the vault holds
    leg_agreement: float | None = None  # share of the dense leg's best notes BM25 also ranks best (None: no model
    # loaded, or hipporag2, which ranks without BM25)

    def to_json(self) -> dict[str, object]:
        return {"vault_coverage": round(self.vault_coverage, 4), "passage_coverage": round(self.passage_coverage, 4),
                "best_cosine": None if self.best_cosine is None else round(self.best_cosine, 4),
                "missing_names": list(self.missing_names),
                "leg_agreement": None if self.leg_agreement is None else round(self.leg_agreement, 4)}


def missing_names(index: KeywordIndex, query: str) -> tuple[str, ...]:
    """The specific names in ``query`` (see ``_NAMED``) with an index term that no passage holds, in query order."""
    out = []
    for match in _NAMED.finditer(query):
        name = next(group for group in match.groups() if group)
        terms = tokenize([name])[0]
        if terms and not all(index.holds(term) for term in terms):
            out.append(name)
    return tuple(dict.fromkeys(out))


# A line break inside a paragraph (a hard wrap), not one that starts a list item, heading, quote, table row or new paragraph.
_WRAP = r"\n(?![ \t]*(?:[-*+>#|]|\d+[.)]|\n))"


def _version_pattern(name: str, number: str) -> re.Pattern[str]:
    """The name with this number: after it within ``VERSION_NEARBY`` characters of one paragraph (hard wraps crossed)
    or glued to it ("C++17", "python3"), or before it ("version 7 of Windows", "2018 edition of Rust"). Numbers
    compare without leading zeros or trailing ".0" parts ("RFC 0116" is RFC 116, "Python 3.0" is Python 3), a longer
    version counts as the shorter one (3.8 is a Python 3), and a date's or a range's part is no version (2016-07)."""
    number = re.sub(r"(?:\.0+)+$", "", _unpadded(number))
    version = rf"(?<![\d.])(?<!\d-)0*{re.escape(number)}(?:\.0+)*(?!\d)"
    named = rf"(?<!\w){re.escape(name)}"
    gap = rf"(?:(?:[^\w\n]|{_WRAP})(?:[^\n]|{_WRAP}){{0,{VERSION_NEARBY}}}?)?"
    return re.compile(rf"{named}{gap}{version}|{version}\s+(?:\w+\s+){{0,2}}?{named}(?!\w)", re.IGNORECASE)


def _held_glued(index: KeywordIndex, name: str, number: str) -> bool:
    """Whether some chunk holds the name and number as one word ("python3", "SSE4"), which the name's own term
    does not find."""
    glued = tokenize([name + number])[0]
    return len(glued) == 1 and index.holds(glued[0])


def _unpadded(number: str) -> str:
    return number.lstrip("0") or "0"


def _file_number(number: str) -> re.Pattern[str]:
    """A note file name that starts with this number ("RFC 2872" asked of text/2872-access-policy.md, whose text
    never repeats its own number); matched against the name alone."""
    return re.compile(rf"0*{re.escape(_unpadded(number))}(?!\d)")


def missing_versions(index: KeywordIndex, query: str, texts: ChunkTexts) -> tuple[str, ...]:
    """The versioned names in ``query`` ("Windows 7") that no passage holds (see ``_version_pattern``), in a chunk or
    as the number its note's file name starts with. Only the chunks holding the name's terms are read, until one has
    it; a name in more than ``VERSION_CANDIDATES`` chunks counts as held, since saying "missing" would mean reading
    them all."""
    out = []
    for match in _VERSIONED.finditer(query):
        name, number = match.groups()
        terms = tokenize([name])[0]
        if not terms or name.lower() in _MONTHS or _held_glued(index, name, number):
            continue
        rows = index.rows_holding(terms)
        if rows.size > VERSION_CANDIDATES:
            continue
        pattern, numbered = _version_pattern(name, number), _file_number(number)
        if not any(numbered.match(path.rsplit("/", 1)[-1]) or pattern.search(_LINK_TARGET.sub("]", text))
                   for path, text in texts([index.keys[int(r)] for r in rows])):
            out.append(f"{name} {number}")
    return tuple(out)


def best_notes(section_docs: np.ndarray, section_scores: np.ndarray, k: int) -> list[int]:
    """The ``k`` notes with the best positive section scores, best first (a note counts by its best section). Ranks
    a few times ``k`` sections, not all of them: a query stays cheap at a million sections."""
    take = 8 * k
    while True:
        rows = top_positive(section_scores, take)  # ties in row order, as a full stable sort
        notes = list(dict.fromkeys(section_docs[rows].tolist()))
        if len(notes) >= k or len(rows) < take:
            return notes[:k]
        take *= 4


def leg_agreement(section_docs: np.ndarray, bm25: np.ndarray, cosines: np.ndarray, k: int = AGREEMENT_TOP) -> float:
    """Share of the best ``k`` notes by cosine that BM25 also ranks among its best ``k`` (0 when BM25 finds nothing;
    in a vault of fewer notes, a share of those)."""
    lexical, dense = best_notes(section_docs, bm25, k), best_notes(section_docs, cosines, k)
    return len(set(lexical) & set(dense)) / max(len(lexical), len(dense), 1)


def match_signals(index: KeywordIndex, query: str, best_passage: str | None, best_cosine: float | None,
                  agreement: float | None = None, texts: ChunkTexts | None = None) -> MatchSignals:
    """The signals for ``query``; with ``texts``, versioned names the vault lacks count as missing names too."""
    terms = index.query_terms(query)
    total = sum(idf for _, idf in terms)
    if total <= 0:
        return MatchSignals(0.0, 0.0, best_cosine, leg_agreement=agreement)
    known = sum(idf for term, idf in terms if index.holds(term))
    held = set(tokenize([best_passage])[0]) if best_passage else set()
    in_passage = sum(idf for term, idf in terms if term in held)
    missing = missing_names(index, query) + (missing_versions(index, query, texts) if texts is not None else ())
    return MatchSignals(known / total, in_passage / total, best_cosine, tuple(dict.fromkeys(missing)), agreement)


def confidence(signals: MatchSignals) -> float:
    cosine = signals.best_cosine if signals.best_cosine is not None else _COSINE_WITHOUT_MODEL
    agreement = signals.leg_agreement if signals.leg_agreement is not None else _AGREEMENT_WITHOUT_MODEL
    z = _BIAS + _VAULT * signals.vault_coverage + _PASSAGE * signals.passage_coverage + _COSINE * cosine + \
        _AGREEMENT * agreement + _MISSING * bool(signals.missing_names)
    return 1.0 / (1.0 + math.exp(-z))


def match_label(value: float | None) -> str | None:
    """One line for people: how far to trust the first results."""
    if value is None:
        return None
    if value < NO_GOOD_MATCH:
        return f"no good match (confidence {value:.2f}): the notes may not answer this"
    return f"confidence {value:.2f}"


def confidence_json(value: float | None) -> dict[str, float | bool]:
    """The keys a search reply carries (CLI ``--json``, the server API): absent when nothing was measured."""
    return {} if value is None else {"confidence": round(value, 4), "no_good_match": value < NO_GOOD_MATCH}
