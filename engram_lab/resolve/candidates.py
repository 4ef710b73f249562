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
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
import polars as pl
import scipy.sparse as sp

from engram_lab.resolve import names as nm
from engram_lab.resolve.entities import EntityView
from engram_lab.resolve.name_keys import GRAM

MAX_BLOCK = 50
_DIGITS = re.compile(r"\d+")
TRIGRAM_MIN_COSINE = 0.6
TRIGRAM_MAX_DF_SHARE = 0.01
TRIGRAM_PER_ROW = 20
_CHUNK = 2048

Pair = tuple[int, int]


def _add(out: dict[Pair, set[str]], a: int, b: int, source: str, focus: set[int] | None) -> None:
    if a == b or (focus is not None and a not in focus and b not in focus):
        return
    out[(a, b) if a < b else (b, a)].add(source)


def _within_blocks(out: dict[Pair, set[str]], blocks: dict[str, list[int]], source: str, focus: set[int] | None,
                   max_block: int | None) -> None:
    for members in blocks.values():
        if len(members) < 2:
            continue
        members = sorted(set(members))
        if len(members) < 2 or (max_block is not None and len(members) > max_block):
            continue
        if focus is not None:  # only pairs touching the focus: far fewer than all pairs of the block
            for a in focus.intersection(members):
                for b in members:
                    _add(out, a, b, source, focus)
            continue
        for x, a in enumerate(members):
            for b in members[x + 1 :]:
                _add(out, a, b, source, focus)


def _across_blocks(out: dict[Pair, set[str]], left: dict[str, list[int]], right: dict[str, list[int]], source: str,
                   focus: set[int] | None, max_block: int) -> None:
    for key, shorts in left.items():
        longs = right.get(key, [])
        if not longs or len(longs) > max_block:
            continue
        for a in shorts:
            for b in longs:
                _add(out, a, b, source, focus)


_FAMILY = {"exact": "exact", "loose": "loose", "acronym_long": "acronym", "acronym_short": "acronym", "initials": "initials",
           "surname_long": "surname", "single": "surname", "one_edit": "one_edit"}  # blocks paired with each other
_ACROSS = ["acronym_short", "acronym_long", "single", "surname_long"]  # blocks paired across, not within


def key_blocks(view: EntityView, focus: set[int] | None = None) -> dict[Pair, set[str]]:
    """Pairs sharing a name form, an acronym, initials or a surname, with the keys that paired them."""
    rows = view.name_keys.keys.filter(pl.col("kind") != GRAM)
    if focus is not None:  # only the blocks the focus is in can pair anything: those, whole, and no others
        rows = rows.with_columns(family=pl.col("kind").replace(_FAMILY))
        wanted = rows.filter(pl.col("row").is_in(sorted(focus))).select("family", "key").unique()
        rows = rows.join(wanted, on=["family", "key"], how="semi")
    # A block of one pairs nothing within itself; either side of a pair across blocks may stand alone.
    grouped = (rows.group_by("kind", "key").agg(pl.col("row").sort())
               .filter((pl.col("row").list.len() > 1) | pl.col("kind").is_in(_ACROSS)))
    blocks: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for block, key, members in zip(grouped["kind"].to_list(), grouped["key"].to_list(), grouped["row"].to_list()):
        blocks[block][key] = members
    out: dict[Pair, set[str]] = defaultdict(set)
    _within_blocks(out, blocks["exact"], "same-form", focus, None)
    _within_blocks(out, blocks["loose"], "loose-form", focus, MAX_BLOCK)
    _across_blocks(out, blocks["acronym_short"], blocks["acronym_long"], "acronym", focus, MAX_BLOCK)
    _within_blocks(out, blocks["initials"], "initials", focus, MAX_BLOCK)
    _across_blocks(out, blocks["single"], blocks["surname_long"], "surname", focus, MAX_BLOCK)
    _within_blocks(out, blocks["one_edit"], "one-edit", focus, MAX_BLOCK)
    return out


def trigram_pairs(view: EntityView, focus: set[int] | None = None, min_cosine: float = TRIGRAM_MIN_COSINE) -> dict[Pair, float]:
    """Pairs whose names share rare character trigrams (set cosine >= ``min_cosine``): catches typos."""
    grams = view.name_keys.keys.filter(pl.col("kind") == GRAM)  # none for a local reference
    n = view.size
    if not grams.height or n < 2:
        return {}
    rows = grams["row"].cast(pl.Int64).to_numpy()
    cols = grams["key"].rank("dense").cast(pl.Int64).to_numpy() - 1
    matrix = sp.csr_matrix((np.ones(rows.size, dtype=np.float32), (rows, cols)), shape=(n, int(cols.max()) + 1))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    df = np.asarray(matrix.sum(axis=0)).ravel()
    keep = df <= max(20.0, TRIGRAM_MAX_DF_SHARE * n)
    lengths = np.sqrt(np.asarray(matrix.sum(axis=1)).ravel())  # the full set size, so dropped grams still count against
    lengths[lengths == 0] = 1.0
    pruned = (sp.diags(1.0 / lengths) @ matrix[:, keep]).tocsr().astype(np.float32)
    transposed = pruned.T.tocsr()
    targets = np.arange(n) if focus is None else np.array(sorted(focus), dtype=np.int64)
    out: dict[Pair, float] = {}
    for start in range(0, len(targets), _CHUNK):
        chunk = targets[start : start + _CHUNK]
        sims = (pruned[chunk] @ transposed).tocsr()
        for r, a in enumerate(chunk):
            lo, hi = sims.indptr[r], sims.indptr[r + 1]
            cols_r, vals_r = sims.indices[lo:hi], sims.data[lo:hi]
            good = (vals_r >= min_cosine) & (cols_r != a)
            cols_r, vals_r = cols_r[good], vals_r[good]
            if cols_r.size > TRIGRAM_PER_ROW:
                top = np.argpartition(-vals_r, TRIGRAM_PER_ROW - 1)[:TRIGRAM_PER_ROW]
                cols_r, vals_r = cols_r[top], vals_r[top]
            for b, value in zip(cols_r.tolist(), vals_r.tolist()):
                key = (int(a), b) if a < b else (b, int(a))
                out[key] = max(out.get(key, 0.0), float(value))
    return out


def candidate_pairs(view: EntityView, focus: Iterable[int] | None = None,
                    embedding_pairs: dict[Pair, float] | None = None) -> dict[Pair, set[str]]:
    """Every candidate pair (a < b, entity indices) with the blocking sources that proposed it."""
    wanted = set(focus) if focus is not None else None
    out = key_blocks(view, wanted)
    for pair in trigram_pairs(view, wanted):
        out.setdefault(pair, set()).add("trigram")
    for (a, b), _cos in (embedding_pairs or {}).items():
        if not (nm.is_local_reference(view.names[a]) or nm.is_local_reference(view.names[b])):
            _add(out, a, b, "embedding", wanted)  # type: ignore[arg-type]
    # Names that differ in a number are never merged ("Phase 1" / "Phase 2"): drop them before scoring.
    names = view.names
    return {pair: sources for pair, sources in out.items() if _numbers(names[pair[0]]) == _numbers(names[pair[1]])}


@lru_cache(maxsize=1 << 18)
def _numbers(name: str) -> tuple[str, ...]:
    """The numbers in a name, in order (only the paired entities' names are read: a focused pass pairs a few hundred)."""
    return tuple(_DIGITS.findall(nm.loose(name)))
