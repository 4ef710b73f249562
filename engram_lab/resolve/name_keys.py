"""What resolution derives from an entity's labels alone, computed once per set of labels and remembered on disk.

Blocking keys, character trigrams, the loose form and the long and short forms of a name are a pure function of
the entity's labels (its name first, then its aliases). An edit's analysis pairs the few entities of the changed
notes against every other, so it needs the others' keys too: deriving them for the 10,000-note benchmark's 88,000
entities took about 6 s the first time in a process. The memo file keeps them by entity IRI with the labels they
were derived from; a row whose labels still match is used as it is, any other is derived again. The file is
rewritten only when many rows were derived (a full pass, or many edits since), so an edit writes nothing, and a
long-lived process reads it once and then keeps the table. A damaged or missing file costs time, never a wrong key.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl

from engram_lab.graph.vocabulary import normalise_label
from engram_lab.index.tables import write_parquet_atomic
from engram_lab.last_few import LastFew
from engram_lab.resolve import names as nm

MEMO_FILE = "name_keys-v1.parquet"  # the version names the derivation: a change to it must change the name
REWRITE_AFTER = 1000  # rows derived in one pass before the memo is written again
DERIVE_CHUNK = 20_000  # entities whose keys are Python objects at once
FORM_COLUMNS = ("form", "long_acronym", "long_initials", "long_surname", "short_acronym", "short_initials", "short_surname")
GRAM = "gram"  # the kind of a trigram row in ``NameKeys.keys``; every other kind is a blocking key
SLICED_ROWS = 2000  # entities whose keys ``NameKeys.of_rows`` gathers by slices; more by one filter


@dataclass(frozen=True)
class NameKeys:
    """Row i describes entity i of the view: ``forms`` has one row per entity (``FORM_COLUMNS``); ``keys`` one row
    per (kind, key) of an entity, entity by entity in row order: the blocking keys (kind = block) and the trigrams
    (kind = ``GRAM``). Entity i's are ``keys[starts[i]:starts[i + 1]]``; ``of_rows`` and ``where`` give them with
    the entity's row. The rows are not a column of ``keys``: numbering every key row again when an edit shifted the
    entities took 0.1 s per edit at 10,000 notes (2.6 million key rows), and a pass reads few of them."""

    forms: pl.DataFrame
    keys: pl.DataFrame
    starts: np.ndarray
    grams: np.ndarray | None = None  # per entity, its trigram rows (``counts`` of kind ``GRAM``), kept along with the
    # rows: counting them over the 17 million key rows of 580,000 entities took 0.6 s of every edit

    def gram_counts(self) -> np.ndarray:
        """Per entity, how many of its key rows are trigrams."""
        return self.grams if self.grams is not None else self.counts(pl.col("kind") == GRAM)

    def of_rows(self, rows: Iterable[int]) -> pl.DataFrame:
        """The key rows (row, kind, key) of these entities, in row order: by slices for a few, by one filter for
        many."""
        wanted = sorted(set(rows))
        if len(wanted) > SLICED_ROWS:
            chosen = np.zeros(self.starts.size - 1, dtype=bool)
            chosen[wanted] = True
            return self.where(pl.Series(np.repeat(chosen, np.diff(self.starts))))
        pieces = [self.keys.slice(int(self.starts[r]), int(self.starts[r + 1] - self.starts[r])) for r in wanted]
        counts = [piece.height for piece in pieces]
        keys = pl.concat(pieces) if pieces else self.keys.clear()
        return keys.select(pl.Series("row", np.repeat(np.asarray(wanted, dtype=np.uint32), counts), dtype=pl.UInt32), "kind", "key")

    def where(self, predicate: pl.Expr | pl.Series) -> pl.DataFrame:
        """The key rows (row, kind, key) that ``predicate`` (over kind and key) keeps, in row order."""
        kept = self.keys.with_row_index("at").filter(predicate)
        rows = np.searchsorted(self.starts, kept["at"].to_numpy(), side="right") - 1
        return kept.select(pl.Series("row", rows, dtype=pl.UInt32), "kind", "key")

    def counts(self, predicate: pl.Expr) -> np.ndarray:
        """Per entity, how many of its key rows ``predicate`` (over kind and key) keeps."""
        kept = self.keys.with_columns(predicate.alias("kept"))["kept"].to_numpy()
        running = np.concatenate([[0], np.cumsum(kept, dtype=np.int64)])
        return running[self.starts[1:]] - running[self.starts[:-1]]


@lru_cache(maxsize=1 << 12)  # helps only when a label keyed recently is derived again (an entity's aliases changed);
# a cold run keys each label once, and a cache of 2 ** 18 label tuples held ~130 MB at 88,000 entities for nothing
def label_keys(label: str, is_name: bool) -> tuple[tuple[str, str], ...]:
    """(block, key) pairs that ``label`` files an entity under; deletion keys only for the name itself (aliases
    are matched exactly)."""
    out = [("exact", normalise_label(label))]
    form = nm.loose(label)
    if form:
        out.append(("loose", form))
    if (long := nm.acronym_of(label)) is not None:
        out.append(("acronym_long", long))
    if (short := nm.as_acronym(label)) is not None:
        out.append(("acronym_short", short))
    if (key := nm.initials_key(label)) is not None:
        out.append(("initials", key))
    words = form.split()
    if len(words) >= 2:
        out.append(("surname_long", words[-1]))
    elif len(words) == 1 and len(words[0]) >= 3:
        out.append(("single", words[0]))
    if is_name:
        out.extend(("one_edit", key) for key in sorted(deletion_keys(form)))
    return tuple(out)


def entity_keys(labels: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(block, key) pairs of an entity whose name is ``labels[0]`` and aliases the rest; none for a local reference."""
    if not labels or nm.is_local_reference(labels[0]):
        return ()
    return tuple(pair for label in labels for pair in label_keys(label, label == labels[0]))


def deletion_keys(form: str, min_length: int = 5) -> set[str]:
    """The name with one letter deleted from one long word: two names one substitution, insertion or swap
    apart share a key (the symmetric-deletion trick), so typos are found without comparing all pairs."""
    words = form.split()
    keys = set()
    for w, word in enumerate(words):
        if len(word) < min_length:
            continue
        head, tail = " ".join([*words[:w], ""]), " ".join(["", *words[w + 1 :]]) + f"#{w}"  # the words around it, joined once
        keys.update(f"{head}{word[:c]}{word[c + 1 :]}{tail}" for c in range(len(word)))
        keys.add(" ".join(words) + f"#{w}")  # the unedited word: pairs with a one-letter insertion
    return keys


class Derived(NamedTuple):
    """One entity's memo values: its ``FORM_COLUMNS`` in order, and its key rows as two aligned lists."""

    forms: tuple[str | None, ...]
    kinds: list[str]
    keys: list[str]


def derive(name: str, labels: tuple[str, ...]) -> Derived:
    """What the memo keeps for an entity named ``name`` (``labels``: the name first, then its aliases)."""
    blocks = entity_keys(labels)
    grams = () if nm.is_local_reference(name) else sorted(nm.char_ngrams(name))
    kinds = [block for block, _ in blocks] + [GRAM] * len(grams)
    keys = [key for _, key in blocks] + list(grams)
    return Derived((nm.loose(name), *nm.long_form_keys(name), *nm.short_form_keys(name)), kinds, keys)


_SCHEMA = {"entity_iri": pl.String, "labels": pl.List(pl.String), **{c: pl.String for c in FORM_COLUMNS},
           "kinds": pl.List(pl.String), "keys": pl.List(pl.String)}


class _Exploded(NamedTuple):
    """A memo table's keys, one row per (kind, key), in row order; row r's are ``keys[starts[r]:starts[r + 1]]``,
    ``grams[r]`` of them trigrams."""

    keys: pl.DataFrame
    starts: np.ndarray
    grams: np.ndarray


class _Memo(NamedTuple):
    table: pl.DataFrame
    lookup: pl.DataFrame  # entity_iri, labels_hash, at: the table's row
    exploded: _Exploded  # the table's keys
    pending: int  # rows derived since the file was written


# The last key table of each memo file in this process, its lookup, its exploded keys, and how many of its rows were
# derived since the file was written: a long-lived process (kernel, server) reads the file once, not per edit (0.27 s
# of each at 10,000 notes), and writes it when derivations accumulate. Rows are a function of their labels, so a
# table another process has since rewritten holds no row that is wrong for us.
KEPT_MEMOS = 4  # vaults
_KEPT: LastFew[Path, _Memo] = LastFew(KEPT_MEMOS)
_HASH_SEED = 18
MAX_PIECES = 256  # slices a kept table may be made of before it is copied into one


def _hashed(frame: pl.DataFrame) -> pl.DataFrame:
    """entity_iri and a hash of its labels: rows are matched by these, not by joining lists of strings (which took
    10 s per edit for the 100,000-note benchmark's 580,000 entities). A collision of 64-bit hashes between an
    entity's old and new labels is the one way to a stale key."""
    return frame.select("entity_iri", labels_hash=pl.col("labels").hash(seed=_HASH_SEED))


def _read_memo(path: Path | None) -> tuple[pl.DataFrame, pl.DataFrame, _Exploded | None] | None:
    """The memo table, its lookup (entity_iri, labels_hash, at: the row) and its keys when kept, or None."""
    if path is None:
        return None
    if (kept := _KEPT.get(path)) is not None:
        return kept.table, kept.lookup, kept.exploded
    if not path.exists():
        return None
    try:
        memo = pl.read_parquet(path)
    except Exception:  # noqa: BLE001 - a damaged memo is derived again, never trusted
        return None
    return (memo, _hashed(memo).with_row_index("at"), None) if dict(memo.schema) == _SCHEMA else None


def _derived_rows(todo: pl.DataFrame) -> pl.DataFrame:
    """Memo rows for ``todo``'s entities, ``DERIVE_CHUNK`` at a time: the keys are Python strings until they are in a
    frame, and the heap they fill stays resident after they are freed (deriving the 10,000-note benchmark's 88,000
    entities at once: 1,121 MB resident after, 980 MB in chunks, both with the label caches then in place)."""
    parts = [_derived_chunk(todo.slice(start, DERIVE_CHUNK)) for start in range(0, todo.height, DERIVE_CHUNK)]
    return pl.concat(parts) if parts else _derived_chunk(todo)


def _derived_chunk(todo: pl.DataFrame) -> pl.DataFrame:
    """Memo rows built column by column (rows of lists into polars took 7 s for 88,000)."""
    derived = [derive(name or "", tuple(labels or [name or ""])) for name, labels in zip(todo["name"].to_list(), todo["labels"].to_list())]
    forms = {c: pl.Series(c, [row.forms[i] for row in derived], dtype=pl.String) for i, c in enumerate(FORM_COLUMNS)}
    counts = [len(row.keys) for row in derived]
    flat = pl.DataFrame({"at": pl.Series(np.repeat(np.arange(len(derived), dtype=np.uint32), counts)),
                         "kinds": pl.Series([k for row in derived for k in row.kinds], dtype=pl.String),
                         "keys": pl.Series([k for row in derived for k in row.keys], dtype=pl.String)})
    lists = flat.group_by("at").agg("kinds", "keys")
    return (todo.select("entity_iri", "labels").with_columns(**forms).with_row_index("at")
            .join(lists, on="at", how="left", maintain_order="left")
            .with_columns(pl.col("kinds", "keys").fill_null([])).select(list(_SCHEMA)))


def _runs(at: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Where ``at`` runs on by one: (first position, length) of each run; None when it is empty or scattered over
    more than ``MAX_PIECES`` runs (an edit moves a few rows; a new process's order may be anything)."""
    breaks = np.flatnonzero(np.diff(at.astype(np.int64)) != 1) + 1
    starts = np.concatenate([[0], breaks]).astype(np.int64)
    if not at.size or starts.size > MAX_PIECES:
        return None
    return starts, np.diff(np.concatenate([starts, [at.size]])).astype(np.int64)


def _joined(pieces: list[pl.DataFrame]) -> pl.DataFrame:
    joined = pl.concat(pieces, rechunk=False)
    return joined.rechunk() if joined.n_chunks() > MAX_PIECES else joined


def _rows_at(table: pl.DataFrame, at: np.ndarray) -> pl.DataFrame:
    """``table``'s rows ``at``, as slices of it where ``at`` runs on (gathering lists of strings row by row took 4 s
    for 580,000 entities); gathered when it is scattered."""
    runs = _runs(at)
    if runs is None:
        return table.select(pl.all().gather(pl.Series(at, dtype=pl.UInt32)))
    return _joined([table.slice(int(at[first]), int(length)) for first, length in zip(*runs)])


def _explode(table: pl.DataFrame) -> _Exploded:
    lists = table.select(kind="kinds", key="keys")
    keys = lists.explode("kind", "key").drop_nulls("key")  # an empty list explodes to one null row
    counts = lists["key"].list.drop_nulls().list.len().fill_null(0).to_numpy()
    grams = lists["kind"].list.count_matches(GRAM).fill_null(0).to_numpy().astype(np.int64)
    return _Exploded(keys, np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]), grams)


def _extended(exploded: _Exploded, rows: pl.DataFrame) -> _Exploded:
    """``exploded`` with the keys of ``rows`` appended as the table's next rows."""
    more = _explode(rows)
    return _Exploded(pl.concat([exploded.keys, more.keys], rechunk=False), np.concatenate([exploded.starts, more.starts[1:] + exploded.starts[-1]]),
                     np.concatenate([exploded.grams, more.grams]))


def _keys_at(exploded: _Exploded, at: np.ndarray) -> _Exploded | None:
    """The keys of the table's rows ``at`` (what exploding ``_rows_at`` gives), as slices of ``exploded``: an edit
    exploded 1.7 million key rows again for one note at 10,000 notes. None when ``at`` is scattered."""
    runs = _runs(at)
    if runs is None:
        return None
    pieces = [exploded.keys.slice(int(exploded.starts[at[first]]), int(exploded.starts[at[first] + length] - exploded.starts[at[first]]))
              for first, length in zip(*runs)]
    counts = np.diff(exploded.starts)[at]
    return _Exploded(_joined(pieces), np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]), exploded.grams[at])


def name_keys(frame: pl.DataFrame, memo: Path | None = None) -> NameKeys:
    """The keys of ``frame``'s entities (columns entity_iri, name, labels; row i = entity i), from the memo where
    the labels match and derived otherwise; the memo is rewritten when many rows were derived."""
    ours = frame.select("entity_iri", "name", pl.col("labels").fill_null([]))
    hashed = _hashed(ours)
    stored = _read_memo(memo)
    table, at = pl.DataFrame(schema=_SCHEMA), pl.Series("at", [None] * ours.height, dtype=pl.UInt32)
    exploded = None
    if stored is not None:
        table, lookup, exploded = stored
        matched = hashed.join(lookup, on="entity_iri", how="left", suffix="_stored", maintain_order="left")
        at = matched.select(pl.when(pl.col("labels_hash") == pl.col("labels_hash_stored")).then(pl.col("at")))["at"]
    fresh_at = at.is_null().arg_true()
    if fresh_at.len():
        at = at.scatter(fresh_at, pl.int_range(table.height, table.height + fresh_at.len(), dtype=pl.UInt32, eager=True))
        derived = _derived_rows(ours[fresh_at])
        exploded = _extended(exploded, derived) if exploded is not None else None
        table = pl.concat([table, derived])
    full = _rows_at(table, at.to_numpy())  # row i is entity i
    keys = (_keys_at(exploded, at.to_numpy()) if exploded is not None else None) or _explode(full)
    if memo is not None:
        _remember(memo, full, hashed.with_row_index("at"), keys, fresh_at.len(), first=stored is None and ours.height > 0)
    return NameKeys(full.select(FORM_COLUMNS), keys.keys, keys.starts, keys.grams)


def _remember(memo: Path, table: pl.DataFrame, lookup: pl.DataFrame, exploded: _Exploded, derived: int, first: bool) -> None:
    """Keep ``table`` as this process's memo; write the file when there was none (``first``) or when the rows
    derived since its last write reach ``REWRITE_AFTER``."""
    pending = derived + (kept.pending if (kept := _KEPT.get(memo)) is not None else 0)
    if first or pending >= REWRITE_AFTER:
        write_parquet_atomic(table, memo)
        pending = 0
    _KEPT[memo] = _Memo(table, lookup, exploded, pending)
