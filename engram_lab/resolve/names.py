"""Name forms used to block and compare entity names: loose forms, acronyms, initials, local references.

Pure functions over strings, no state; cached, because an analysis pass asks them of every entity's name and a
long-lived process (a kernel, the server) sees the same names on every edit. ``loose`` folds what never tells two
things apart (case, accents, punctuation, a leading "the", honorifics, legal
suffixes such as "Inc." or "GmbH"); everything else is evidence.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from rapidfuzz.distance import OSA

from engram_lab.extract.heuristic.lexicon import PRONOUNS

HONORIFICS = frozenset("dr mr mrs ms miss prof professor sir dame lord lady rev st saint".split())
LEGAL_SUFFIXES = frozenset("inc incorporated ltd limited llc gmbh plc corp corporation co company ag sa bv nv srl pty".split())
CONNECTORS = frozenset("of and for the de la le du des der von van y et in on at to &".split())
# "the company", "this project", "our team": a reference that means something only inside its own note.
_DEFINITE = re.compile(r"^(the|this|that|these|those|our|my|your|their|its|his|her)\s+\w+$", re.I)


_NON_LETTERS = re.compile(r"[\W_]+")


@lru_cache(maxsize=1 << 18)  # names repeat across blocks, rules and passes
def fold(text: str) -> str:
    """Lower case, accents stripped, every run of non-letters a single space."""
    if text.isascii():  # normalisation leaves ASCII as it is and casefold is lower there: 4 s of 300,000 note titles
        plain = text.lower()
    else:
        decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
        plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(_NON_LETTERS.sub(" ", plain).split())


def tokens(text: str) -> list[str]:
    return fold(text).split()


@lru_cache(maxsize=1 << 18)
def loose(text: str) -> str:
    """The folded name without a leading article or honorific and without trailing legal suffixes."""
    words = tokens(text)
    while len(words) > 1 and (words[0] in HONORIFICS or words[0] == "the"):
        words = words[1:]
    while len(words) > 1 and words[-1] in LEGAL_SUFFIXES:
        words = words[:-1]
    return " ".join(words)


@lru_cache(maxsize=1 << 18)
def acronym_of(text: str) -> str | None:
    """'World Health Organization' -> 'who'; None for names of fewer than two significant words."""
    words = [w for w in loose(text).split() if w not in CONNECTORS]
    if len(words) < 2 or any(not w[0].isalpha() for w in words):
        return None
    return "".join(w[0] for w in words)


@lru_cache(maxsize=1 << 18)
def as_acronym(text: str) -> str | None:
    """The name itself when it is written as an acronym ('WHO', 'N.A.S.A.', 'IBM'): 2-6 capitals, else None."""
    compact = re.sub(r"[.\s]", "", text.strip())
    if 2 <= len(compact) <= 6 and compact.isalpha() and compact.isupper():
        return compact.lower()
    return None


@lru_cache(maxsize=1 << 18)
def initials_key(text: str) -> str | None:
    """'Marta Hall', 'M. Hall', 'Dr M Hall' -> 'm hall': first initial and last word of a 2-4 word name."""
    words = loose(text).split()
    if not 2 <= len(words) <= 4 or len(words[-1]) < 2:
        return None
    return f"{words[0][0]} {words[-1]}"


@lru_cache(maxsize=1 << 18)
def is_initialled(text: str) -> bool:
    """Whether the first given name is written as an initial ('M. Hall', 'M Hall')."""
    words = loose(text).split()
    return len(words) >= 2 and len(words[0]) == 1


@lru_cache(maxsize=1 << 18)
def is_local_reference(text: str) -> bool:
    """A pronoun or a definite description ('the company'): meaningful only inside its own note."""
    folded = fold(text)
    return folded in PRONOUNS or bool(_DEFINITE.match(folded)) or not folded


def jaro_winkler(a: str, b: str, prefix_scale: float = 0.1) -> float:
    """Jaro-Winkler similarity in [0, 1]: typo-tolerant, rewards a shared beginning."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    window = max(len(a), len(b)) // 2 - 1
    matched_b = [False] * len(b)
    a_matches: list[str] = []
    for i, ch in enumerate(a):
        for j in range(max(0, i - window), min(len(b), i + window + 1)):
            if not matched_b[j] and b[j] == ch:
                matched_b[j] = True
                a_matches.append(ch)
                break
    if not a_matches:
        return 0.0
    b_matches = [b[j] for j, used in enumerate(matched_b) if used]
    transpositions = sum(x != y for x, y in zip(a_matches, b_matches)) / 2
    m = len(a_matches)
    jaro = (m / len(a) + m / len(b) + (m - transpositions) / m) / 3
    prefix = 0
    for x, y in zip(a[:4], b[:4]):
        if x != y:
            break
        prefix += 1
    return jaro + prefix * prefix_scale * (1 - jaro)


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Optimal-string-alignment distance (a swap of neighbours counts once), capped at ``limit``.

    rapidfuzz's C++ (equal to the textbook recurrence, tested against it): the analysis scores every candidate pair,
    1.3 million on the 10,000-note benchmark, where the pure-Python loop took 77 microseconds a pair.
    """
    return min(OSA.distance(a, b, score_cutoff=limit), limit)


@lru_cache(maxsize=1 << 12)  # read once per entity when its keys are derived (``name_keys.derive``)
def char_ngrams(text: str, n: int = 3) -> frozenset[str]:
    padded = f" {loose(text)} "
    return frozenset(padded[i : i + n] for i in range(max(1, len(padded) - n + 1)))


@lru_cache(maxsize=1 << 12)  # read once per entity when its keys are derived (``name_keys.derive``)
def long_form_keys(text: str) -> tuple[str | None, str | None, str | None]:
    """The short forms a long name could be written as: its acronym, its initials key (unless it is initialled
    itself) and its surname (its last word, for names of two words or more); None where there is none. One cached
    call per entity: the analysis asks it of every entity on every edit."""
    words = loose(text).split()
    return (acronym_of(text), initials_key(text) if not is_initialled(text) else None, words[-1] if len(words) >= 2 else None)


@lru_cache(maxsize=1 << 12)  # read once per entity when its keys are derived (``name_keys.derive``)
def short_form_keys(text: str) -> tuple[str | None, str | None, str | None]:
    """What a name written as a short form stands for a key of: itself as an acronym, its initials key when it is
    initialled, itself as a lone surname (a one-word name); None where it is not that kind of short form."""
    words = loose(text).split()
    return (as_acronym(text), initials_key(text) if is_initialled(text) else None, words[0] if len(words) == 1 else None)
