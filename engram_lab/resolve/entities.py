"""The vault's entities as resolution sees them: one row per entity IRI with its names, documents and neighbours."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np
import polars as pl

from engram_lab.index.tables import SCHEMAS, TableStore, rewritten_docs
from engram_lab.last_few import LastFew
from engram_lab.resolve.name_keys import NameKeys, name_keys


class RowSets:
    """Row i's set of other rows (relation neighbours), made when asked for: a pass scores the pairs of a few
    entities, and a frozenset for each of the 100,000-note benchmark's 580,000 entities took a second per edit."""

    def __init__(self, lengths: np.ndarray, values: np.ndarray) -> None:
        """``lengths[i]``: how many of ``values`` (concatenated in row order) are row i's."""
        self._offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        self._values = values

    def __len__(self) -> int:
        return self._offsets.size - 1

    def __getitem__(self, row: int) -> frozenset[int]:
        return frozenset(self._values[self._offsets[row] : self._offsets[row + 1]].tolist())

    def __iter__(self) -> Iterator[frozenset[int]]:
        return (self[row] for row in range(len(self)))


T = TypeVar("T")


class RowValues(Generic[T]):
    """Row i's value of a list column, converted when asked for and remembered: a pass scores the pairs of a few
    hundred entities, and converting every row's list (88,000 at 10,000 notes) took 0.1-0.3 s of each edit.
    Callers must not change what they get: a view, and so its values, may be handed out again."""

    def __init__(self, column: pl.Series, convert: Callable[[list[str] | None], T]) -> None:
        self._column, self._convert = column, convert
        self._done: dict[int, T] = {}

    def __len__(self) -> int:
        return self._column.len()

    def __getitem__(self, row: int) -> T:
        row = int(row)  # a numpy integer too
        if row not in self._done:
            value = self._column[row]
            self._done[row] = self._convert(None if value is None else value.to_list())
        return self._done[row]

    def __iter__(self) -> Iterator[T]:
        return (self._convert(value) for value in self._column.to_list())


class NeighbourRows:
    """Row i's relation neighbours as a set of rows, found when asked for by a binary search of the IRIs (``frame``
    is sorted by entity_iri): a focused pass reads the sets of the few hundred entities it scores, and building
    every row's at once (580,000 at 100,000 notes) took 0.7 s of each edit. Once ``EAGER_AFTER`` rows were asked
    for (a full pass), or on iteration, every row's set is built at once by a hash join."""

    EAGER_AFTER = 2000

    def __init__(self, frame: pl.DataFrame) -> None:
        self._frame = frame
        self._asked: dict[int, frozenset[int]] = {}
        self._all: RowSets | None = None

    def __len__(self) -> int:
        return self._frame.height

    def __getitem__(self, row: int) -> frozenset[int]:
        if self._all is None and len(self._asked) >= self.EAGER_AFTER:
            self._all = _all_neighbour_rows(self._frame)
        if self._all is not None:
            return self._all[row]
        if (found := self._asked.get(row)) is None:
            iris, ordered = self._frame["neighbour_iris"][row], self._frame["entity_iri"]
            rows = ordered.search_sorted(iris) if iris.len() else pl.Series([], dtype=pl.UInt32)
            present = rows < ordered.len()
            rows = rows.filter(present)
            found = frozenset(rows.filter(ordered.gather(rows) == iris.filter(present)).to_list())
            self._asked[row] = found
        return found

    def __iter__(self) -> Iterator[frozenset[int]]:
        if self._all is None:
            self._all = _all_neighbour_rows(self._frame)
        return iter(self._all)


def _all_neighbour_rows(frame: pl.DataFrame) -> RowSets:
    """Every row's neighbour rows at once (a hash join: a binary search over the sorted IRIs took three times as
    long)."""
    lists = frame["neighbour_iris"]
    rows = (lists.explode(empty_as_null=False).drop_nulls().to_frame("entity_iri")
            .join(frame.select("entity_iri").with_row_index("row"), on="entity_iri", how="left", maintain_order="left")["row"])
    return RowSets(lists.list.len().to_numpy(), rows.cast(pl.Int64).to_numpy())


@dataclass
class EntityView:
    """``frame`` row i is entity i: entity_iri, name, kind, labels (name and aliases), doc_ids."""

    frame: pl.DataFrame
    neighbours: NeighbourRows  # relation neighbours by entity index, rows found when asked for
    memo: Path | None = None  # where the keys derived from labels are remembered between passes (None: not kept)

    @property
    def size(self) -> int:
        return self.frame.height

    @cached_property
    def index(self) -> dict[str, int]:
        return {iri: i for i, iri in enumerate(self.frame["entity_iri"].to_list())}

    @cached_property
    def names(self) -> list[str]:
        return self.frame["name"].to_list()

    @cached_property
    def kinds(self) -> list[str]:
        return self.frame["kind"].to_list()

    @cached_property
    def iris(self) -> list[str]:
        return self.frame["entity_iri"].to_list()

    @cached_property
    def labels(self) -> RowValues[list[str]]:
        return RowValues(self.frame["labels"], lambda labels: list(labels or []))

    @cached_property
    def name_keys(self) -> NameKeys:
        """Blocking keys, trigrams and name forms of every entity (``name_keys.py``)."""
        return name_keys(self.frame, self.memo)

    @cached_property
    def doc_sets(self) -> RowValues[frozenset[str]]:
        return RowValues(self.frame["doc_ids"], lambda docs: frozenset(docs or []))


def entity_view(entities: pl.DataFrame, relations: pl.DataFrame, memo: Path | None = None) -> EntityView:
    """Aggregate per-document entity rows (the ``entities`` and ``relations`` tables) into one view; the frame also
    holds each entity's relation neighbours as sorted IRIs (``neighbour_iris``, what its digest reads)."""
    frame = _grouped(entities)
    return _with_neighbours(frame, _neighbour_iris(_links(relations), frame["entity_iri"]), memo)


@dataclass(frozen=True)
class Rewrite:
    """Documents whose table rows changed since a view was built, and the rows they had then."""

    docs: frozenset[str]
    entities_before: pl.DataFrame
    relations_before: pl.DataFrame


def patched_entity_view(previous: EntityView, entities: pl.DataFrame, relations: pl.DataFrame, rewrite: Rewrite) -> EntityView:
    """``entity_view(entities, relations)`` from ``previous`` (the view before ``rewrite``): only the entities the
    rewritten documents named or linked before or do now are grouped again, and only they and whoever is linked to
    one get their neighbours again; every other row is kept whole, neighbours included (joining every row's
    neighbours again, and hashing every IRI to test the partners, took 0.7 s of an edit at 100,000 notes). Equal to
    the full build because untouched documents' rows keep their order in the tables (``TableStore.apply``), so
    "first" picks the same row (``tests/resolve/test_entities.py``)."""
    docs = sorted(rewrite.docs)
    touched = pl.concat([rewrite.entities_before["entity_iri"], entities.filter(pl.col("doc_id").is_in(docs))["entity_iri"],
                         _links(rewrite.relations_before)["a"], _links(relations.filter(pl.col("doc_id").is_in(docs)))["a"]]
                        ).unique().implode()
    fresh = _grouped(entities.filter(pl.col("entity_iri").is_in(touched)))
    old = previous.frame
    links = _links(relations)
    affected = pl.concat([touched.explode(), links.filter(pl.col("b").is_in(touched))["a"]]).unique().implode()
    kept = old.filter(~pl.col("entity_iri").is_in(affected))
    regrouped = pl.concat([old.filter(pl.col("entity_iri").is_in(affected) & ~pl.col("entity_iri").is_in(touched))
                           .select(fresh.columns), fresh])
    wanted = links.filter(pl.col("a").is_in(affected))
    # A partner counts when it is an entity of the new view: one kept, or one grouped again (few IRIs, tested
    # against the kept rows rather than every row hashed).
    partners = wanted["b"].unique()
    present = pl.concat([kept.filter(pl.col("entity_iri").is_in(partners.implode()))["entity_iri"], regrouped["entity_iri"]])
    redone = _neighbour_iris(wanted, present)
    regrouped = (regrouped.join(redone, on="entity_iri", how="left")
                 .with_columns(pl.col("neighbour_iris").fill_null([])).select(kept.columns))
    frame = pl.concat([kept, regrouped]).sort("entity_iri")  # (``merge_sorted`` took four times as long)
    return EntityView(frame, NeighbourRows(frame), previous.memo)


def _grouped(entities: pl.DataFrame) -> pl.DataFrame:
    """One row per entity IRI, sorted by IRI: the first name and kind in row order, labels in order of first
    appearance (name first), the documents sorted."""
    return (
        entities.group_by("entity_iri")
        .agg(pl.col("name").first(), pl.col("kind").first(),
             pl.col("aliases").list.explode(keep_nulls=False, empty_as_null=False).unique(maintain_order=True).alias("aliases"),
             pl.col("doc_id").unique().sort().alias("doc_ids"))
        .with_columns(pl.concat_list([pl.col("name"), pl.col("aliases")]).list.unique(maintain_order=True).alias("labels"))
        .sort("entity_iri")
        .select("entity_iri", "name", "kind", "labels", "doc_ids")
    )


def _links(relations: pl.DataFrame) -> pl.DataFrame:
    """Every relation between two entities as (a, b) both ways, self-links dropped, repeats kept."""
    linked = relations.filter(pl.col("object_iri").is_not_null()).select(a="subject_iri", b="object_iri")
    return pl.concat([linked, linked.select(a="b", b="a")]).filter(pl.col("a") != pl.col("b"))


def _neighbour_iris(links: pl.DataFrame, iris: pl.Series) -> pl.DataFrame:
    """entity_iri -> its partners among ``iris``, sorted (entities with none are absent)."""
    present = iris.implode()
    return (links.filter(pl.col("a").is_in(present) & pl.col("b").is_in(present)).unique()
            .group_by("a").agg(pl.col("b").sort().alias("neighbour_iris")).rename({"a": "entity_iri"}))


def _with_neighbours(frame: pl.DataFrame, neighbours: pl.DataFrame, memo: Path | None) -> EntityView:
    """The view of ``frame`` (sorted by IRI) with each row's neighbour IRIs, and their rows when asked for."""
    frame = (frame.join(neighbours, on="entity_iri", how="left", maintain_order="left")
             .with_columns(pl.col("neighbour_iris").fill_null([])))
    return EntityView(frame, NeighbourRows(frame), memo)


PATCH_SHARE = 0.25  # past this share of rewritten documents the whole build costs no more than the patch
_KEPT: LastFew[Path, tuple[dict[Path, pl.DataFrame], dict[Path, pl.DataFrame], EntityView]] = LastFew(4)


def table_entity_view(tables: TableStore, memo: Path | None = None) -> EntityView:
    """The view of the tables as they are now; patched from the one this process built last from the same tables
    when few documents' rows moved since (a long-lived process's edit: 0.25 s of regrouping at 10,000 notes), else
    built whole."""
    entity_buckets, relation_buckets = tables.read_buckets("entities"), tables.read_buckets("relations")
    entities, relations = _concat(list(entity_buckets.values()), "entities"), _concat(list(relation_buckets.values()), "relations")
    kept = _KEPT.get(tables.base)
    view = None
    if kept is not None:
        rewrite = _rewrite(kept[0], entity_buckets, kept[1], relation_buckets)
        if len(rewrite.docs) <= 8 or len(rewrite.docs) <= PATCH_SHARE * entities["doc_id"].n_unique():
            view = patched_entity_view(kept[2], entities, relations, rewrite) if rewrite.docs else kept[2]
    if view is None:
        view = entity_view(entities, relations, memo)
    # Kept without what callers derive from it (name keys: 17 million rows at 100,000 notes), so the process holds the
    # frame and neighbour lists only; every caller gets a view of its own to derive on.
    _KEPT[tables.base] = (entity_buckets, relation_buckets, EntityView(view.frame, view.neighbours, view.memo))
    return EntityView(view.frame, view.neighbours, view.memo)


def _concat(frames: list[pl.DataFrame], table: str) -> pl.DataFrame:
    return pl.concat(frames, how="vertical") if frames else pl.DataFrame(schema=SCHEMAS[table])


def _rewrite(entities_before: dict[Path, pl.DataFrame], entities_now: dict[Path, pl.DataFrame],
             relations_before: dict[Path, pl.DataFrame], relations_now: dict[Path, pl.DataFrame]) -> Rewrite:
    """The documents whose rows moved between two reads of the buckets, and their rows in the first."""
    docs: set[str] = set()
    old_frames: dict[str, list[pl.DataFrame]] = {"entities": [], "relations": []}
    for table, before, now in (("entities", entities_before, entities_now), ("relations", relations_before, relations_now)):
        empty = pl.DataFrame(schema=SCHEMAS[table])
        for path in before.keys() | now.keys():
            old, new = before.get(path, empty), now.get(path, empty)
            if old is not new:
                docs |= rewritten_docs(old, new)
                old_frames[table].append(old)
    wanted = sorted(docs)
    return Rewrite(frozenset(docs), *(_concat(old_frames[table], table).filter(pl.col("doc_id").is_in(wanted))
                                      for table in ("entities", "relations")))
