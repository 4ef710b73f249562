"""Proper names, dates and quantities in a sentence, with a first guess at their kind."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_lab.extract.heuristic.lexicon import (
    CONNECTORS,
    EVENT_WORDS,
    MONTHS,
    ORG_WORDS,
    PLACE_WORDS,
    STOP_CAPITALS,
    TITLES,
)
from engram_lab.vault.model import Span

_TOKEN = re.compile(r"[^\W_][\w'’&.-]*[^\W_]|[^\W_]|&")
_MONTH = "|".join(m.capitalize() for m in MONTHS)
_MONTH_FULL = "|".join(m.capitalize() for m in MONTHS if len(m) > 4 or m in ("march", "april", "june", "july"))
_DATE = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|(?:\d{{1,2}} )?(?:{_MONTH})\.?(?: \d{{1,2}})?,? \d{{4}}|(?:{_MONTH}) \d{{1,2}}|"
    rf"(?:1[0-9]|20)\d{{2}}s?|(?:{_MONTH_FULL}))\b"
)
_QUANTITY = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?(?:%|percent|km|m|kg|t|million|billion|thousand|psu|µm|eur|usd|\$)(?!\w)", re.I)


_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*")
_CAPITALISED_INSIDE = re.compile(r"(?<=[a-z0-9,;)])[ \t]+([A-Z][\w'’-]*)")
_CLITIC = re.compile(r"(?:['’](?:s|m|re|ve|ll|d))$", re.I)


@dataclass(frozen=True)
class WordUsage:
    """How one document writes its words: the evidence that tells "Currently," at a sentence's start from a name.

    ``lower``: words the document writes in lower case somewhere; ``capitalised_inside``: words it capitalises
    inside a sentence (after a lower-case word), which is what proper names do. Per document, so a note's
    entities never depend on other notes (re-extraction stays local).
    """

    lower: frozenset[str] = frozenset()
    capitalised_inside: frozenset[str] = frozenset()

    @classmethod
    def of(cls, texts: list[str]) -> WordUsage:
        lower: set[str] = set()
        inside: set[str] = set()
        for text in texts:
            lower.update(_bare(m.group(0)) for m in _LOWER_WORD.finditer(text))
            inside.update(_bare(m.group(1)).lower() for m in _CAPITALISED_INSIDE.finditer(text))
        return cls(frozenset(lower), frozenset(inside))

    def common_word(self, word: str, heading: bool) -> bool:
        """True when ``word``, opening a sentence (or a heading), is an ordinary word rather than a name.

        Acronyms and inner capitals ("API", "GitHub") are never ordinary; a word the document capitalises inside
        sentences is a name; otherwise a heading's first word is a label ("Summary", "Motivation") and a
        sentence's first word is ordinary when the document also writes it in lower case ("Currently", "Using").
        """
        if any(c.isupper() for c in word[1:]):
            return False
        lowered = word.lower()
        if lowered in self.capitalised_inside:
            return False
        return heading or lowered in self.lower


def _bare(word: str) -> str:
    """A word without its clitic or possessive ("Rust's" -> "Rust", "it's" -> "it")."""
    return _CLITIC.sub("", word.rstrip(".’'"))


@dataclass(frozen=True)
class Candidate:
    name: str
    span: Span
    kind: str | None  # None: the text does not say


def _strip_trailing(word: str) -> str:
    return _bare(word) if not re.fullmatch(r"(?:[A-Z]\.)+", word) else word


def _capitalised(word: str) -> bool:
    return word[:1].isupper() or (word[:1].isdigit() and any(c.isupper() for c in word) and "-" in word)


def _guess_kind(words: list[str], before: str) -> str | None:
    last = words[-1].lower().rstrip(".")
    first = words[0].lower()
    if last in ORG_WORDS or first in ("university",):
        return "Organization"
    if last in PLACE_WORDS or first in ("mount", "lake", "river", "cape", "fort", "port", "saint", "san", "santa"):
        return "Place"
    if last in EVENT_WORDS:
        return "Event"
    previous = before.split()[-1:] if before.strip() else []
    if previous and previous[0].lower().rstrip(",") in TITLES:
        return "Person"
    if previous and previous[0].lower() in ("in", "near") and len(words) <= 3:
        return "Place"
    return None


_KIND_CONTEXT = 80  # characters before a name that _guess_kind looks at (it reads one word)


def find_names(masked: str, sentence: Span, usage: WordUsage | None = None, heading: bool = False) -> list[Candidate]:
    """Capitalised runs (with 'of', 'the', 'de' … inside them), dates and quantities, left to right, not overlapping.

    With ``usage``, a one-word run that opens the sentence (or the heading) and that the document otherwise treats
    as an ordinary word is no name (see ``WordUsage.common_word``).

    Linear in the sentence's length: a one-line 1 MB note is one sentence, so no step may rescan what came before.
    """
    text = masked[sentence.start : sentence.end]
    taken = bytearray(len(text) + 1)  # 1 where a date or quantity lies
    found: list[Candidate] = []
    for regex, kind in ((_DATE, "Time"), (_QUANTITY, "Quantity")):
        for m in regex.finditer(text):
            if taken.find(1, m.start(), m.end()) != -1:
                continue
            taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
            found.append(Candidate(m.group(0), Span(sentence.start + m.start(), sentence.start + m.end()), kind))
    tokens = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text)]
    opening = 0  # index of the sentence's first token that is not a stop word ("The", "In", "However")
    while opening < len(tokens) and tokens[opening][2].lower().rstrip(".") in STOP_CAPITALS | TITLES:
        opening += 1
    i = 0
    while i < len(tokens):
        start, end, word = tokens[i]
        if not _capitalised(word) or taken[start]:
            i += 1
            continue
        run = [i]
        j = i + 1
        while j < len(tokens) and len(run) < 8:
            gap = text[tokens[j - 1][1] : tokens[j][0]]
            initial = len(tokens[j - 1][2]) == 1 and tokens[j - 1][2].isupper() and gap.strip() == "."  # "M. Hall"
            if "\n" in gap or (gap.strip() not in ("", "&") and not initial) or taken[tokens[j][0]]:
                break
            w = tokens[j][2]
            if _capitalised(w):
                run.append(j)
            elif w.lower() in CONNECTORS and j + 1 < len(tokens) and _capitalised(tokens[j + 1][2]) and \
                    text[tokens[j][1] : tokens[j + 1][0]].strip() == "":
                run.append(j)
            else:
                break
            j += 1
        while run and tokens[run[0]][2].lower().rstrip(".") in STOP_CAPITALS | TITLES:
            run.pop(0)
        if usage is not None and not heading and len(run) > 1 and run[0] == opening and \
                usage.common_word(_strip_trailing(tokens[run[0]][2]), heading=False):
            run.pop(0)  # "Using Cargo, ..." names Cargo
        while run and tokens[run[-1]][2].lower() in CONNECTORS:
            run.pop()
        if run:
            words = [_strip_trailing(tokens[k][2]) for k in run]
            a = tokens[run[0]][0]
            b = tokens[run[-1]][0] + len(words[-1])
            name = text[a:b]
            ordinary = len(words) == 1 and (words[0].lower() in STOP_CAPITALS or (
                usage is not None and run[0] == opening and usage.common_word(words[0], heading)))
            # A heading is a label: its Title-Cased words ("How We Teach This", "Future Possibilities") name
            # something only if one of them is a name by the document's own evidence (an acronym or inner capital,
            # or a word its prose capitalises inside a sentence).
            ordinary = ordinary or (heading and usage is not None and all(usage.common_word(w, heading=True) for w in words))
            if not ordinary and any(c.isalpha() for c in name):
                found.append(Candidate(name, Span(sentence.start + a, sentence.start + b), _guess_kind(words, text[max(0, a - _KIND_CONTEXT) : a])))
        i = max(j, i + 1)
    found.sort(key=lambda c: c.span.start)
    return found
