"""The vault's entities as resolution sees them: one row per entity IRI with its names, documents and neighbours."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import polars as pl

from engram_lab.resolve.name_keys import NameKeys, name_keys


class RowSets:
    """Row i's set of other rows (relation neighbours), made when asked for: a pass scores the pairs of a few
    entities, and a frozenset for each of the 100,000-note benchmark's 580,000 entities took a second per edit."""

    def __init__(self, lists: pl.Series) -> None:
        lengths = lists.list.len().fill_null(0).to_numpy()
        self._offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        self._values = lists.explode().drop_nulls().cast(pl.Int64).to_numpy()

    def __len__(self) -> int:
        return self._offsets.size - 1

    def __getitem__(self, row: int) -> frozenset[int]:
        return frozenset(self._values[self._offsets[row] : self._offsets[row + 1]].tolist())

    def __iter__(self) -> Iterator[frozenset[int]]:
        return (self[row] for row in range(len(self)))


@dataclass
class EntityView:
    """``frame`` row i is entity i: entity_iri, name, kind, labels (name and aliases), doc_ids."""

    frame: pl.DataFrame
    neighbours: RowSets  # relation neighbours by entity index
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
    def labels(self) -> list[list[str]]:
        return [list(labels or []) for labels in self.frame["labels"].to_list()]

    @cached_property
    def name_keys(self) -> NameKeys:
        """Blocking keys, trigrams and name forms of every entity (``name_keys.py``)."""
        return name_keys(self.frame, self.memo)

    @cached_property
    def doc_sets(self) -> list[frozenset[str]]:
        return [frozenset(docs or []) for docs in self.frame["doc_ids"].to_list()]


def entity_view(entities: pl.DataFrame, relations: pl.DataFrame, memo: Path | None = None) -> EntityView:
    """Aggregate per-document entity rows (the ``entities`` and ``relations`` tables) into one view; the frame also
    holds each entity's relation neighbours as sorted IRIs (``neighbour_iris``, what its digest reads)."""
    frame = (
        entities.group_by("entity_iri")
        .agg(pl.col("name").first(), pl.col("kind").first(),
             pl.col("aliases").list.explode(keep_nulls=False, empty_as_null=False).unique().alias("aliases"),
             pl.col("doc_id").unique().sort().alias("doc_ids"))
        .with_columns(pl.concat_list([pl.col("name"), pl.col("aliases")]).list.unique(maintain_order=True).alias("labels"))
        .sort("entity_iri")
        .select("entity_iri", "name", "kind", "labels", "doc_ids")
    )
    rows = frame.select("entity_iri").with_row_index("row")
    linked = relations.filter(pl.col("object_iri").is_not_null()).select(a="subject_iri", b="object_iri")
    both = (pl.concat([linked, linked.select(a="b", b="a")]).filter(pl.col("a") != pl.col("b")).unique()
            .join(rows.rename({"entity_iri": "a", "row": "row_a"}), on="a")
            .join(rows.rename({"entity_iri": "b", "row": "row_b"}), on="b"))
    grouped = both.group_by("row_a").agg(pl.col("row_b").sort().alias("neighbour_rows"), pl.col("b").sort().alias("neighbour_iris"))
    joined = rows.join(grouped, left_on="row", right_on="row_a", how="left").sort("row")
    frame = frame.with_columns(joined["neighbour_iris"].fill_null([]).alias("neighbour_iris"))
    return EntityView(frame, RowSets(joined["neighbour_rows"]), memo)
