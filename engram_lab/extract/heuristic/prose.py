"""Relations inside one sentence: copulas and appositions as hierarchy, verbs between names as triples."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_lab.extract.heuristic.lexicon import CLASS_NOUN_KINDS

_COPULA = re.compile(
    r"^\s*(?:,\s*)?(?:is|was|are|were|has been|had been|became|remains)\s+(?:also\s+)?(?:a|an|the|one of the)\s+"
    r"(?P<np>[A-Za-z][\w'-]*(?:\s+[a-z][\w'-]*){0,5}?)(?=\s+(?P<prep>of|in|for|from|by|at|on|who|which|that|and|with|based|located|known)\b|\s*[,.;:()]|\s*$)"
)
_APPOSITION = re.compile(
    r"^\s*,\s*(?:a|an|the)\s+(?P<np>[A-Za-z][\w'-]*(?:\s+[a-z][\w'-]*){0,5}?)(?=\s+(?P<prep>of|in|for|from|by|at|on|who|which|that|and|with|based|located)\b|\s*[,.;:()]|\s*$)"
)
_PREDICATE_WORD = re.compile(r"^[a-z][a-z'-]*$")
_DROP = frozenset({"a", "an", "the", "and", "or", "but", "also", "then", "which", "who", "that", "its", "his", "her", "their"})
_AUXILIARIES = frozenset({"is", "was", "are", "were", "be", "been", "being", "has", "have", "had"})
_PREPOSITIONS = frozenset("of in on at by for from to with into onto as since until after before during near about under over".split())
_MAX_PREDICATE_WORDS = 4


@dataclass(frozen=True)
class Located:
    """A mention inside the sentence: registry key, offsets into the masked text, and its kind."""

    key: str
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class ClassAssertion:
    subject: str
    class_phrase: str
    kind_hint: str | None


@dataclass(frozen=True)
class SentenceTriple:
    subject: str
    predicate: str
    object: str


def _predicate(words: list[str]) -> str | None:
    kept = [w for w in words if w not in _DROP]
    if len(kept) > 1:
        kept = [w for w in kept if w not in _AUXILIARIES] or kept  # "was founded by" -> "founded by"
    if not kept or len(kept) > _MAX_PREDICATE_WORDS or not all(_PREDICATE_WORD.match(w) for w in kept):
        return None
    return " ".join(kept)


def _words(text: str) -> list[str]:
    return [w.strip(",;:()\"'").lower() for w in text.split() if w.strip(",;:()\"'")]


def class_of(masked: str, subject: Located, sentence_end: int) -> tuple[ClassAssertion, str | None, int] | None:
    """``X is a Y`` or ``X, a Y``: the class phrase, the preposition after it, and where it ends."""
    rest = masked[subject.end : sentence_end]
    match = _COPULA.match(rest) or _APPOSITION.match(rest)
    if not match:
        return None
    phrase = match.group("np").strip().lower()
    head = phrase.split()[-1]
    assertion = ClassAssertion(subject.key, phrase, CLASS_NOUN_KINDS.get(head))
    return assertion, match.group("prep"), subject.end + match.end("np")


def sentence_triples(masked: str, mentions: list[Located], sentence_end: int) -> tuple[list[SentenceTriple], list[ClassAssertion]]:
    """Triples led by the sentence's subject (its first named thing) and class assertions about it."""
    if not mentions:
        return [], []
    subject = next((m for m in mentions if m.kind not in ("Time", "Quantity")), None)
    if subject is None:
        return [], []
    triples: list[SentenceTriple] = []
    classes: list[ClassAssertion] = []
    verb: list[str] = []
    found = class_of(masked, subject, sentence_end)
    after_class = None
    if found:
        assertion, prep, end = found
        classes.append(assertion)
        if prep in ("of", "in", "for", "from", "at", "on", "by"):
            after_class = (assertion.class_phrase.split()[-1] + " " + prep, end)
    previous = subject
    last_predicate: str | None = None
    for mention in mentions:
        if mention.start < subject.end or mention.key == subject.key:
            continue
        if found and mention.start < found[2]:
            continue  # a name inside the class phrase ("an Argentine footballer") is part of the class
        between = [w for w in _words(masked[previous.end : mention.start]) if w not in _DROP or w in ("and", "or")]
        predicate: str | None = None
        if after_class and mention.start >= after_class[1] and len(_words(masked[after_class[1] : mention.start])) <= 2:
            predicate, after_class = after_class[0], None
        elif previous is subject:
            predicate = _predicate(between)
            verb = [w for w in between if w not in _DROP and w not in _AUXILIARIES][:4]
            while verb and verb[-1] in _PREPOSITIONS:
                verb.pop()  # "founded by A in 1968": the verb is "founded", the later object takes "in"
        elif between in (["and"], ["or"], []) and last_predicate:
            predicate = last_predicate  # "founded by A and B"
        elif not verb:
            predicate = None  # no verb links the subject to this stretch of the sentence
        elif between and all(w in _PREPOSITIONS for w in between) and len(between) <= 2:
            predicate = _predicate(verb + between)
        elif 0 < len(between) <= 4:
            predicate = _predicate(between)
        if predicate:
            triples.append(SentenceTriple(subject.key, predicate, mention.key))
            last_predicate = predicate
        previous = mention
    return triples, classes
