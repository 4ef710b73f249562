"""The retrieval graph as a sparse matrix: typed edges weighted per mode, synonyms above a threshold."""

from __future__ import annotations

import numpy as np
import polars as pl
import scipy.sparse as sp

from engram_lab.index.retrieval_index import EDGE_TYPE, RetrievalData
from engram_lab.retrieve.settings import EdgeWeights

ENTITY_EDGE_TYPES = ("relation", "hierarchy", "synonym")
EDGE_TYPES = (*ENTITY_EDGE_TYPES, "mention", "link", "about")  # every type the retrieval graph holds


def with_judged(edges: pl.DataFrame, judged: pl.DataFrame | None) -> pl.DataFrame:
    """The index's typed edges and the resolution judgments' (``overlay_edges``; any frame of src, dst, type,
    weight), one frame with the index's edge types."""
    if judged is None or judged.is_empty():
        return edges
    return pl.concat([edges, judged.cast({"type": EDGE_TYPE})])


def adjacency(data: RetrievalData, weights: EdgeWeights, synonym_threshold: float, types: tuple[str, ...] | None = None,
              judged: pl.DataFrame | None = None, blocked: set[tuple[int, int]] | None = None) -> sp.csr_matrix:
    """Symmetric weighted adjacency over passage nodes (first) and entity nodes (after them).

    ``judged``: edges from resolution judgments (same/broader/narrower/related), added to their type;
    ``blocked``: entity pairs judged distinct, dropped from the embedding synonyms.
    """
    n = data.n_passages + data.n_entities
    per_type = {"relation": weights.relation, "hierarchy": weights.hierarchy, "mention": weights.mention, "link": weights.link,
                "about": weights.about, "synonym": weights.synonym}
    # One weight per Enum code, read through the codes: one pass over the edges instead of a filter per type.
    by_code = np.array([per_type.get(edge_type, 0.0) if types is None or edge_type in types else 0.0
                        for edge_type in EDGE_TYPE.categories], dtype=np.float64)
    edges = with_judged(data.edges, judged)
    weight = edges["weight"].to_numpy() * by_code[edges["type"].to_physical().to_numpy()]
    kept = np.flatnonzero(weight != 0)  # a type weighed 0 (hierarchy, by default) adds no edge
    rows, cols, vals = [edges["src"].to_numpy()[kept]], [edges["dst"].to_numpy()[kept]], [weight[kept]]
    if types is None or "synonym" in types:
        synonyms = data.synonym_pairs.filter(pl.col("cosine") >= synonym_threshold)
        if blocked:  # by keys, not a loop over every pair (a million above 0.8 at 10,000 notes)
            pairs = np.array(sorted(blocked), dtype=np.int64).reshape(-1, 2)
            keys = synonyms["a"].to_numpy() * n + synonyms["b"].to_numpy()
            synonyms = synonyms.filter(pl.Series(~np.isin(keys, pairs[:, 0] * n + pairs[:, 1])))
        rows.append(synonyms["a"].to_numpy() + data.n_passages)
        cols.append(synonyms["b"].to_numpy() + data.n_passages)
        vals.append(synonyms["cosine"].to_numpy() * weights.synonym)
    # Node numbers in the index type the matrix keeps (int32 below two billion nodes): int64 ones were copied into
    # it, 0.3 s of each edit's walk at 100,000 notes (ten million entries).
    index = np.int32 if n < np.iinfo(np.int32).max else np.int64
    r, c, w = (np.concatenate(part) for part in (rows, cols, vals))
    r, c = r.astype(index, copy=False), c.astype(index, copy=False)
    matrix = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([r, c]), np.concatenate([c, r]))), shape=(n, n))
    return matrix.tocsr()
