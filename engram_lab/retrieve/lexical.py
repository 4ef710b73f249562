"""Lexical seeding: query n-grams against entity names and aliases (exact, normalised, fuzzy)."""

from __future__ import annotations

import difflib
import re
from collections import defaultdict

from engram_lab.extract.heuristic.lexicon import STOP_CAPITALS
from engram_lab.graph.vocabulary import normalise_label

_WORD = re.compile(r"[\w'’-]+")
MAX_NGRAM = 5


def query_ngrams(query: str) -> list[tuple[str, int]]:
    """Normalised n-grams of the query with their length in words, longest first; stop words alone are skipped."""
    words = _WORD.findall(query)
    grams: list[tuple[str, int]] = []
    for size in range(min(MAX_NGRAM, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            chunk = words[start : start + size]
            if size == 1 and (chunk[0].lower() in STOP_CAPITALS or len(chunk[0]) < 3):
                continue
            grams.append((normalise_label(" ".join(chunk)), size))
    return grams


class LexicalMatcher:
    """Index of normalised labels -> entity indices, built once per loaded retrieval index."""

    def __init__(self, labels_per_entity: list[list[str]]) -> None:
        self.exact: dict[str, list[int]] = defaultdict(list)
        self.by_prefix: dict[str, list[str]] = defaultdict(list)
        for index, labels in enumerate(labels_per_entity):
            for label in labels:
                norm = normalise_label(label)
                if norm and index not in self.exact[norm]:
                    self.exact[norm].append(index)
        for norm in self.exact:
            if len(norm) >= 5:
                self.by_prefix[norm[:2]].append(norm)

    def match(self, query: str, fuzzy: bool = True) -> dict[int, float]:
        """Entity index -> score: 1 for an exact (normalised) match, the similarity for a fuzzy one (>= 0.85).

        Longer n-grams win: words already covered by a longer exact match do not seed again on their own.
        """
        scores: dict[int, float] = {}
        covered: set[str] = set()
        for gram, size in query_ngrams(query):
            if gram in covered:
                continue
            hits = self.exact.get(gram)
            if hits:
                for index in hits:
                    scores[index] = max(scores.get(index, 0.0), 1.0)
                covered.update(normalise_label(w) for w in gram.split("-"))
                continue
            if fuzzy and size <= 3 and len(gram) >= 5:
                for close in difflib.get_close_matches(gram, self.by_prefix.get(gram[:2], []), n=2, cutoff=0.85):
                    ratio = difflib.SequenceMatcher(None, gram, close).ratio()
                    for index in self.exact[close]:
                        scores[index] = max(scores.get(index, 0.0), ratio)
        return scores
