"""Build an EntityView from plain tuples, so resolution tests state their input in one place."""

from __future__ import annotations

import polars as pl

from engram_lab.graph.vocabulary import entity_iri
from engram_lab.resolve.entities import EntityView, entity_view


def view_of(entities: list[tuple[str, str, str]], relations: list[tuple[str, str, str, str, str]] = (),
            aliases: dict[str, list[str]] | None = None) -> EntityView:
    """``entities``: (doc_id, name, kind); ``relations``: (doc_id, subject, subject kind, object, object kind)."""
    rows = [{"doc_id": d, "entity_iri": entity_iri(n, k), "name": n, "kind": k, "aliases": (aliases or {}).get(n, []), "mentions": 1}
            for d, n, k in entities]
    rel = [{"doc_id": d, "subject_iri": entity_iri(s, sk), "object_iri": entity_iri(o, ok)} for d, s, sk, o, ok in relations]
    return entity_view(
        pl.DataFrame(rows, schema={"doc_id": pl.String, "entity_iri": pl.String, "name": pl.String, "kind": pl.String,
                                   "aliases": pl.List(pl.String), "mentions": pl.Int32}),
        pl.DataFrame(rel, schema={"doc_id": pl.String, "subject_iri": pl.String, "object_iri": pl.String}),
    )


def index_of(view: EntityView, name: str, kind: str) -> int:
    return view.index[entity_iri(name, kind)]
