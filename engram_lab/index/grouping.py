"""The retrieval index's entities and facts: per-document table rows grouped, or the last grouping patched.

An entity row gathers every document's row of one IRI (its first name and kind, its aliases and documents); a fact
row every document's relation of one (subject, predicate, object). An edit moves the rows of a few documents, so
only the entities and facts those documents held before or hold now are grouped again, from every row they have;
the rest stand as they were. Grouping all 350,000 mention rows of the 10,000-note benchmark on each edit was most of
what the index spent outside the model.

The patch equals grouping from scratch (``tests/index/test_grouping.py``) because a table keeps the rows of the
documents an edit did not touch in their order (``TableStore.apply`` appends the rewritten ones), so "first" picks
the same row for an entity no touched document names; and because lists are kept in order of first appearance.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

import numpy as np
import polars as pl

from engram_lab.graph import vocabulary as v
from engram_lab.index.vector_reuse import old_to_new

ENTITY_COLUMNS = ["entity_iri", "name", "kind", "aliases", "passages", "doc_ids"]
FACT_KEY = ["subject_iri", "predicate", "object_iri"]
FACT_COLUMNS = ["s", "o", "subject", "predicate", "object", "predicate_iri", "text", "doc_ids", "evidence_doc", "cell_id",
                "start", "end", "label"]


def group_entities(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per entity IRI (``ENTITY_COLUMNS``), sorted by IRI, from the ``entities`` table's rows."""
    return (
        rows.group_by("entity_iri", maintain_order=True)
        .agg(pl.col("name").first(), pl.col("kind").first(),
             pl.col("aliases").list.explode(keep_nulls=False, empty_as_null=False).unique(maintain_order=True).alias("aliases"),
             pl.col("doc_id").unique(maintain_order=True).alias("doc_ids"))
        .with_columns(pl.col("doc_ids").list.len().alias("passages"))
        .select(ENTITY_COLUMNS)
        .sort("entity_iri")
    )


_FROM = "_kept_from"  # a kept row's row in the previous grouping, carried through the patch's sort


class Patched(NamedTuple):
    frame: pl.DataFrame
    kept_from: np.ndarray  # per row, the previous grouping's row it stands as, unchanged (-1: grouped again)


def _kept_rows(previous: pl.DataFrame) -> pl.DataFrame:
    return previous.with_row_index(_FROM).with_columns(pl.col(_FROM).cast(pl.Int64))


def _patched(kept: pl.DataFrame, fresh: pl.DataFrame, by: str | list[str]) -> Patched:
    """``kept`` (carrying their previous rows) and ``fresh`` rows, sorted ``by`` (a unique key) as a whole grouping."""
    out = pl.concat([kept, fresh.with_columns(pl.lit(None, dtype=pl.Int64).alias(_FROM))]).sort(by)
    return Patched(out.drop(_FROM), out[_FROM].fill_null(-1).to_numpy())


def patch_entities(previous: pl.DataFrame, rows: pl.DataFrame, touched_docs: Collection[str]) -> tuple[Patched, pl.Series]:
    """``group_entities(rows)`` from ``previous`` (the grouping before ``touched_docs`` changed), with the previous
    row each kept row stands as (``Patched``), and the IRIs grouped again (those the touched documents named before or
    name now)."""
    docs = sorted(touched_docs)
    before = previous.filter(_in_any(docs))["entity_iri"]
    now = rows.filter(pl.col("doc_id").is_in(docs))["entity_iri"]
    touched = pl.concat([before, now]).unique()
    fresh = group_entities(rows.filter(pl.col("entity_iri").is_in(touched.implode())))
    kept = _kept_rows(previous).filter(~pl.col("entity_iri").is_in(touched.implode())).select(*ENTITY_COLUMNS, _FROM)
    return _patched(kept, fresh, "entity_iri"), touched


def _in_any(docs: list[str]) -> pl.Expr:
    """Whether a row's ``doc_ids`` hold any of ``docs``."""
    return pl.col("doc_ids").list.eval(pl.element().is_in(docs)).list.any()


def _known(relations: pl.DataFrame, entity_index: pl.DataFrame) -> pl.DataFrame:
    """Relations between two entities of the index, with their rows there (``s``, ``o``)."""
    return (relations.filter(pl.col("object_iri").is_not_null())
            .join(entity_index.rename({"entity_iri": "subject_iri", "row": "s"}), on="subject_iri", maintain_order="left")
            .join(entity_index.rename({"entity_iri": "object_iri", "row": "o"}), on="object_iri", maintain_order="left"))


def entity_rows(entities: pl.DataFrame) -> pl.DataFrame:
    """entity_iri -> row of ``entities``."""
    return entities.select("entity_iri").with_row_index("row").with_columns(pl.col("row").cast(pl.Int64))


def group_facts(relations: pl.DataFrame, entities: pl.DataFrame) -> pl.DataFrame:
    """One row per (subject, predicate, object) between entities of ``entities`` (``FACT_COLUMNS``), sorted by
    subject row, predicate and object row, from the ``relations`` table's rows."""
    return _grouped(_known(relations, entity_rows(entities)))


def _grouped(known: pl.DataFrame) -> pl.DataFrame:
    return (
        known.group_by(FACT_KEY, maintain_order=True)
        .agg(pl.col("s").first(), pl.col("o").first(), pl.col("subject").first(), pl.col("object").first(),
             pl.col("predicate_iri").first(), pl.col("doc_id").unique(maintain_order=True).alias("doc_ids"),
             pl.col("doc_id").first().alias("evidence_doc"), pl.col("cell_id").first(), pl.col("start").first(),
             pl.col("end").first(), pl.col("label").first())
        .with_columns(pl.concat_str([pl.col("subject"), pl.col("predicate"), pl.col("object")], separator=" ").alias("text"))
        .select(FACT_COLUMNS)
        .sort(["s", "predicate", "o"])
    )


def patch_facts(previous: pl.DataFrame, previous_entities: pl.DataFrame, relations: pl.DataFrame, entities: Patched,
                touched_docs: Collection[str], touched_entities: pl.Series) -> Patched:
    """``group_facts(relations, entities.frame)`` from ``previous`` (grouped over ``previous_entities`` before
    ``touched_docs`` changed; ``entities``: their patch): the facts those documents stated before or state now, and
    those naming an entity grouped again (it may have come or gone), are grouped again; the rest get their entities'
    new rows through ``entities.kept_from`` (``Patched``: with the previous row each of them stands as). Rows are
    matched by entity row numbers, not IRIs: joining every kept fact's two IRIs took 0.6 s per edit at 100,000 notes."""
    docs = sorted(touched_docs)
    to_new = old_to_new(entities.kept_from, previous_entities.height).astype(np.int64)  # -1: grouped again
    s_old, o_old = previous["s"].to_numpy(), previous["o"].to_numpy()
    moved = (to_new[s_old] < 0) | (to_new[o_old] < 0)  # naming a regrouped entity
    moved |= previous.select(_in_any(docs)).to_series().to_numpy()
    naming = pl.col("subject_iri").is_in(touched_entities.implode()) | pl.col("object_iri").is_in(touched_entities.implode())
    stated_now = relations.filter(pl.col("doc_id").is_in(docs) | naming).select(FACT_KEY).unique()
    moved |= _rows_stating(previous, previous_entities, stated_now, s_old)
    iris = previous_entities["entity_iri"]
    moved_rows = previous.filter(pl.Series(moved))
    moved_keys = pl.concat([moved_rows.select(subject_iri=iris.gather(moved_rows["s"]), predicate="predicate",
                                              object_iri=iris.gather(moved_rows["o"])), stated_now]).unique()
    index = entity_rows(entities.frame)
    fresh = _grouped(_known(relations.join(moved_keys, on=FACT_KEY, how="semi", nulls_equal=True, maintain_order="left"), index))
    keep = ~moved
    kept = (_kept_rows(previous).filter(pl.Series(keep))
            .with_columns(s=pl.Series(to_new[s_old[keep]]), o=pl.Series(to_new[o_old[keep]])).select(*FACT_COLUMNS, _FROM))
    return _patched(kept, fresh, ["s", "predicate", "o"])


def _rows_stating(previous: pl.DataFrame, previous_entities: pl.DataFrame, keys: pl.DataFrame, s_old: np.ndarray) -> np.ndarray:
    """Per row of ``previous``, whether its (subject, predicate, object) is one of ``keys`` (a few facts): the keys'
    IRIs as previous entity rows, then only the rows with such a subject compared."""
    rows = entity_rows(previous_entities)
    wanted = (keys.join(rows.rename({"entity_iri": "subject_iri", "row": "s"}), on="subject_iri")
              .join(rows.rename({"entity_iri": "object_iri", "row": "o"}), on="object_iri").select("s", "predicate", "o"))
    out = np.zeros(previous.height, dtype=bool)
    if wanted.is_empty():
        return out
    candidates = np.flatnonzero(np.isin(s_old, wanted["s"].to_numpy()))
    near = previous[candidates].select("s", "predicate", "o").with_columns(pl.Series("_row", candidates))
    out[near.join(wanted, on=["s", "predicate", "o"], how="semi")["_row"].to_numpy()] = True
    return out


def links_of(relations: pl.DataFrame) -> pl.DataFrame:
    """The note links the relations hold (doc_id, object: the target as written)."""
    return relations.filter(pl.col("predicate_iri") == v.LINKS_TO.value).select("doc_id", "object")
