"""Lexical seeding: query n-grams against entity names and aliases (exact, normalised, fuzzy)."""

from __future__ import annotations

import difflib
import re
import threading
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import polars as pl

from engram_lab.extract.heuristic.lexicon import STOP_CAPITALS
from engram_lab.graph.vocabulary import normalise_label
from engram_lab.last_few import LastFew

if TYPE_CHECKING:
    from engram_lab.index.retrieval_index import RetrievalData

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
    """Index of normalised labels -> entities (by IRI), built once per process and patched as entities change:
    rebuilding it from every label took 0.2 s of each edit on the 10,000-note benchmark. ``match`` answers in
    entity indices of the index it is given."""

    def __init__(self, labels_by_entity: dict[str, list[str]]) -> None:
        self.exact: dict[str, list[str]] = defaultdict(list)  # norm -> entity IRIs
        self.by_prefix: dict[str, list[str]] = defaultdict(list)
        self._norms: dict[str, list[str]] = {}  # entity IRI -> its normalised labels, to take them out again
        self.patch({}, labels_by_entity)

    def patch(self, gone: Iterable[str], labels_by_entity: dict[str, list[str]]) -> None:
        """Take out the ``gone`` entities' labels, then add (or replace) those of ``labels_by_entity``."""
        for iri in [*gone, *labels_by_entity]:
            for norm in self._norms.pop(iri, ()):
                holders = self.exact[norm]
                holders.remove(iri)
                if not holders:
                    del self.exact[norm]
                    if len(norm) >= 5:
                        self.by_prefix[norm[:2]].remove(norm)
        for iri, labels in labels_by_entity.items():
            norms = list(dict.fromkeys(n for n in map(normalise_label, labels) if n))
            self._norms[iri] = norms
            for norm in norms:
                if norm not in self.exact and len(norm) >= 5:
                    self.by_prefix[norm[:2]].append(norm)
                self.exact[norm].append(iri)

    def match(self, query: str, position: Mapping[str, int], fuzzy: bool = True) -> dict[int, float]:
        """Entity index (``position``: IRI -> index) -> score: 1 for an exact (normalised) match, the similarity for a
        fuzzy one (>= 0.85).

        Longer n-grams win: words already covered by a longer exact match do not seed again on their own.
        """
        scores: dict[int, float] = {}
        covered: set[str] = set()
        for gram, size in query_ngrams(query):
            if gram in covered:
                continue
            hits = self.exact.get(gram)
            if hits:
                for index in sorted(position[iri] for iri in hits):
                    scores[index] = max(scores.get(index, 0.0), 1.0)
                covered.update(normalise_label(w) for w in gram.split("-"))
                continue
            if fuzzy and size <= 3 and len(gram) >= 5:
                for close in difflib.get_close_matches(gram, self.by_prefix.get(gram[:2], []), n=2, cutoff=0.85):
                    ratio = difflib.SequenceMatcher(None, gram, close).ratio()
                    for index in sorted(position[iri] for iri in self.exact[close]):
                        scores[index] = max(scores.get(index, 0.0), ratio)
        return scores


class _Kept(NamedTuple):
    entities: pl.DataFrame  # the entities of the index the matcher reflects
    keys: pl.DataFrame  # and their labels as one key per entity_iri
    matcher: LexicalMatcher


_KEPT: LastFew[Path, _Kept] = LastFew(4)  # per index folder's parent (one vault's retrieval indexes), the last four vaults
_LOCK = threading.Lock()


def _label_keys(data: RetrievalData) -> pl.DataFrame:
    labels = pl.concat_str([pl.col("name"), pl.col("aliases").list.join("\x1f")], separator="\x1e", ignore_nulls=True)
    return data.entities.select("entity_iri", labels.alias("key"))


def _labels(entities: pl.DataFrame) -> dict[str, list[str]]:
    return {iri: [name, *(aliases or [])] for iri, name, aliases in
            zip(entities["entity_iri"].to_list(), entities["name"].to_list(), entities["aliases"].to_list())}


def match_names(data: RetrievalData, query: str, fuzzy: bool = True) -> dict[int, float]:
    """``LexicalMatcher.match`` over ``data``'s entities, with the vault's matcher patched to them first (it follows
    whichever index asks: an edit's next index patches it with the entities that changed)."""
    with _LOCK:
        kept = _KEPT.get(data.folder.parent)
        if kept is None or kept.entities is not data.entities:
            keys = _label_keys(data)
            if kept is None:
                matcher = LexicalMatcher(_labels(data.entities))
            else:
                matcher = kept.matcher
                gone = kept.keys.join(keys, on="entity_iri", how="anti")["entity_iri"].to_list()
                fresh = keys.join(kept.keys, on=["entity_iri", "key"], how="anti").select("entity_iri")
                matcher.patch(gone, _labels(data.entities.join(fresh, on="entity_iri")))
            kept = _Kept(data.entities, keys, matcher)
            _KEPT[data.folder.parent] = kept
        return kept.matcher.match(query, data.entity_position, fuzzy)
