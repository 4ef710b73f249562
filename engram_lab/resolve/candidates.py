"""Candidate pairs by blocking, never all pairs: shared name forms, acronyms, initials, surnames,
character trigrams and label-embedding neighbours.

Each blocking key puts entities in buckets; pairs come only from within a bucket,
and a bucket larger than ``MAX_BLOCK`` (a common surname, a generic word) is
skipped for the keys where size means ambiguity. Trigram similarity is a sparse
matrix product over rare trigrams, row chunk by row chunk, so memory stays flat
at 100,000 entities. ``focus`` limits the work to pairs touching those entities
(the ones in notes that changed).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator

import numpy as np
import polars as pl
import scipy.sparse as sp

from engram_lab.resolve import names as nm
from engram_lab.resolve.entities import EntityView
from engram_lab.resolve.name_keys import GRAM, NameKeys

MAX_BLOCK = 50
_DIGITS = re.compile(r"\d+")
TRIGRAM_MIN_COSINE = 0.6
TRIGRAM_MAX_DF_SHARE = 0.01
# A gram in more names than this is common at any vault size. The limit grew with the vault alone before, and the
# product's work with the square of it: 5.4 billion shared-gram incidences at 580,000 entities (`candidate_pairs`
# 452 s of the 100,000-note benchmark's cold analysis). The cap only matters past 40,000 entities, and there it can
# only drop pairs (a dropped gram still counts in a name's size); neither benchmark vault has a trigram pair with it
# or without it (syllable names), so what it costs on real names of that size is not measured.
TRIGRAM_MAX_DF = 400
TRIGRAM_PER_ROW = 20
_CHUNK = 2048
_IS_GRAM = pl.col("kind") == GRAM

Pair = tuple[int, int]


class NumbersInNames:
    """The numbers in each entity's name, in order, derived for the rows asked about (a focused pass asks about the
    members of the blocks its entities are in, not the whole view).

    Names that differ in a number are never merged ("Phase 1" / "Phase 2"), so no blocking source proposes them.
    Dropping them only after blocking held every such pair at once: the benchmark's "note-07304" and "note-09304"
    share a one-edit key, 1.4 million pairs at 20,000 notes (460 MB of the cold build's peak), all dropped."""

    def __init__(self, names: list[str]) -> None:
        self._names = names
        self._known: dict[int, tuple[str, ...]] = {}

    def __getitem__(self, row: int) -> tuple[str, ...]:
        known = self._known.get(row)
        if known is None:
            known = self._known[row] = _numbers(self._names[row])
        return known


def _numbers(name: str) -> tuple[str, ...]:
    return tuple(_DIGITS.findall(nm.loose(name)))


def _add(out: dict[Pair, set[str]], a: int, b: int, source: str, focus: set[int] | None) -> None:
    if a == b or (focus is not None and a not in focus and b not in focus):
        return
    out[(a, b) if a < b else (b, a)].add(source)


def _within_blocks(out: dict[Pair, set[str]], blocks: dict[str, list[int]], source: str, focus: set[int] | None,
                   max_block: int | None, numbers: NumbersInNames) -> None:
    for members in blocks.values():
        if len(members) < 2:
            continue
        members = sorted(set(members))
        if len(members) < 2 or (max_block is not None and len(members) > max_block):
            continue  # a block's size is its ambiguity, whatever the numbers in its names
        for group in _same_numbers(members, numbers):
            if focus is not None:  # only pairs touching the focus: far fewer than all pairs of the block
                for a in focus.intersection(group):
                    for b in group:
                        _add(out, a, b, source, focus)
                continue
            for x, a in enumerate(group):
                for b in group[x + 1 :]:
                    _add(out, a, b, source, focus)


def _same_numbers(members: list[int], numbers: NumbersInNames) -> Iterator[list[int]]:
    """``members`` split by the numbers in their names, each part of two or more in the order given (most blocks
    are one part)."""
    first = numbers[members[0]]
    if all(numbers[m] == first for m in members):
        yield members
        return
    parts: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for m in members:
        parts[numbers[m]].append(m)
    yield from (part for part in parts.values() if len(part) > 1)


def _across_blocks(out: dict[Pair, set[str]], left: dict[str, list[int]], right: dict[str, list[int]], source: str,
                   focus: set[int] | None, max_block: int, numbers: NumbersInNames) -> None:
    for key, shorts in left.items():
        longs = right.get(key, [])
        if not longs or len(longs) > max_block:
            continue
        for a in shorts:
            for b in longs:
                if (focus is None or a in focus or b in focus) and numbers[a] == numbers[b]:
                    _add(out, a, b, source, focus)


_FAMILY = {"exact": "exact", "loose": "loose", "acronym_long": "acronym", "acronym_short": "acronym", "initials": "initials",
           "surname_long": "surname", "single": "surname", "one_edit": "one_edit"}  # blocks paired with each other
_ACROSS = ["acronym_short", "acronym_long", "single", "surname_long"]  # blocks paired across, not within


def key_blocks(view: EntityView, focus: set[int] | None = None, numbers: NumbersInNames | None = None) -> dict[Pair, set[str]]:
    """Pairs sharing a name form, an acronym, initials or a surname, with the keys that paired them; never two
    names that differ in a number (``numbers``: the view's, when the caller has them already)."""
    blocking = pl.col("kind") != GRAM
    if focus is None:
        rows = view.name_keys.where(blocking)
    else:  # only the blocks the focus is in can pair anything: those, whole, and no others
        family = pl.col("kind").replace(_FAMILY).alias("family")
        mine = view.name_keys.of_rows(focus).filter(blocking)
        rows = view.name_keys.where(blocking & pl.col("key").is_in(mine["key"].unique()))  # by key alone: a fraction
        rows = rows.with_columns(family).join(mine.select(family, "key").unique(), on=["family", "key"], how="semi")
    # A block of one pairs nothing within itself; either side of a pair across blocks may stand alone.
    grouped = (rows.group_by("kind", "key").agg(pl.col("row").sort())
               .filter((pl.col("row").list.len() > 1) | pl.col("kind").is_in(_ACROSS)))
    blocks: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for block, key, members in zip(grouped["kind"].to_list(), grouped["key"].to_list(), grouped["row"].to_list()):
        blocks[block][key] = members
    out: dict[Pair, set[str]] = defaultdict(set)
    numbers = NumbersInNames(view.names) if numbers is None else numbers
    _within_blocks(out, blocks["exact"], "same-form", focus, None, numbers)
    _within_blocks(out, blocks["loose"], "loose-form", focus, MAX_BLOCK, numbers)
    _across_blocks(out, blocks["acronym_short"], blocks["acronym_long"], "acronym", focus, MAX_BLOCK, numbers)
    _within_blocks(out, blocks["initials"], "initials", focus, MAX_BLOCK, numbers)
    _across_blocks(out, blocks["single"], blocks["surname_long"], "surname", focus, MAX_BLOCK, numbers)
    _within_blocks(out, blocks["one_edit"], "one-edit", focus, MAX_BLOCK, numbers)
    return out


def trigram_pairs(view: EntityView, focus: set[int] | None = None, min_cosine: float = TRIGRAM_MIN_COSINE) -> dict[Pair, float]:
    """Pairs whose names share rare character trigrams (set cosine >= ``min_cosine``): catches typos. A gram is rare
    in at most min(max(20, ``TRIGRAM_MAX_DF_SHARE`` of the entities), ``TRIGRAM_MAX_DF``) names.

    Each entity (each of ``focus``, when given) proposes its ``TRIGRAM_PER_ROW`` best partners; a pair proposed
    either way is kept with its cosine. The cosine is the shared rare grams over the geometric mean of the two
    names' whole gram sets (dropped grams still count against). Both paths compare integer counts the same way,
    so a focused pass finds for its entities exactly what the full pass finds for them.
    """
    keys, n = view.name_keys, view.size
    sizes = keys.gram_counts()  # a name's grams are a set: one row each
    if not sizes.any() or n < 2:  # none for a local reference
        return {}
    rare_limit = min(max(20.0, TRIGRAM_MAX_DF_SHARE * n), TRIGRAM_MAX_DF)
    shared = _all_shared(keys, n, rare_limit) if focus is None else _shared_with(keys, focus, rare_limit)
    out: dict[Pair, float] = {}
    for a, b, count in shared:
        _keep_best(out, a, b, count, sizes, min_cosine)
    return out


def _all_shared(keys: NameKeys, n: int, rare_limit: float) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(a, b, rare grams shared) for every a, a sparse product a row chunk at a time (memory stays flat)."""
    grams = _grams(keys.where(_IS_GRAM))
    df = grams.group_by("key").len()
    rare = df.filter(pl.col("len") <= rare_limit).select("key").with_row_index("col")
    kept = grams.join(rare, on="key")
    rows, cols = kept["row"].to_numpy(), kept["col"].cast(pl.Int64).to_numpy()
    matrix = sp.csr_matrix((np.ones(rows.size, dtype=np.float32), (rows, cols)), shape=(n, max(rare.height, 1)))
    transposed = matrix.T.tocsr()
    for start in range(0, n, _CHUNK):
        counts = (matrix[start : start + _CHUNK] @ transposed).tocoo()  # small integers: exact in float32
        yield counts.row.astype(np.int64) + start, counts.col.astype(np.int64), np.rint(counts.data).astype(np.int64)


def _shared_with(keys: NameKeys, focus: set[int], rare_limit: float) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(a, b, rare grams shared) for a in ``focus``: joins over the grams the focus holds, never the whole matrix,
    ``_CHUNK`` focus entities at a time (the join of a whole vault's focus, a cold run's, held every entity pair
    sharing a gram at once: 24 GB at 10,000 notes)."""
    ordered = sorted(focus)
    for start in range(0, len(ordered), _CHUNK):
        mine = _grams(keys.of_rows(ordered[start : start + _CHUNK]).filter(_IS_GRAM))
        holders = _grams(keys.where(_IS_GRAM & pl.col("key").is_in(mine["key"].unique())))  # every entity holding one
        rare = holders.group_by("key").len().filter(pl.col("len") <= rare_limit).select("key")
        counts = (mine.join(rare, on="key").rename({"row": "a"})
                  .join(holders.rename({"row": "b"}), on="key").group_by("a", "b").len())
        yield counts["a"].to_numpy(), counts["b"].to_numpy(), counts["len"].cast(pl.Int64).to_numpy()


def _grams(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.select(pl.col("row").cast(pl.Int64), "key")


def _keep_best(out: dict[Pair, float], a: np.ndarray, b: np.ndarray, count: np.ndarray, sizes: np.ndarray,
               min_cosine: float) -> None:
    """Add each a's best ``TRIGRAM_PER_ROW`` partners b at ``min_cosine`` or above (ties: the lower b)."""
    product = sizes[a].astype(np.float64) * sizes[b]
    good = (a != b) & (count.astype(np.float64) ** 2 >= min_cosine * min_cosine * product)
    a, b, cosine = a[good], b[good], count[good] / np.sqrt(product[good])
    order = np.lexsort((b, -cosine, a))
    a, b, cosine = a[order], b[order], cosine[order]
    starts = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])
    rank = np.arange(a.size) - np.repeat(starts, np.diff(np.r_[starts, a.size]))
    top = rank < TRIGRAM_PER_ROW
    for x, y, value in zip(a[top].tolist(), b[top].tolist(), cosine[top].tolist()):
        key = (x, y) if x < y else (y, x)
        out[key] = max(out.get(key, 0.0), value)


def candidate_pairs(view: EntityView, focus: Iterable[int] | None = None,
                    embedding_pairs: dict[Pair, float] | None = None) -> dict[Pair, set[str]]:
    """Every candidate pair (a < b, entity indices) with the blocking sources that proposed it."""
    wanted = set(focus) if focus is not None else None
    numbers = NumbersInNames(view.names)
    out = key_blocks(view, wanted, numbers)
    for a, b in trigram_pairs(view, wanted):
        if numbers[a] == numbers[b]:
            out.setdefault((a, b), set()).add("trigram")
    names = view.names
    for (a, b), _cos in (embedding_pairs or {}).items():
        if wanted is not None and a not in wanted and b not in wanted:
            continue
        if numbers[a] == numbers[b] and not (nm.is_local_reference(names[a]) or nm.is_local_reference(names[b])):
            _add(out, a, b, "embedding", wanted)  # type: ignore[arg-type]
    return dict(out)
