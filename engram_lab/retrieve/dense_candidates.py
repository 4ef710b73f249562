"""The query's cosines for a dense seed leg, which keeps only its best few rows: every row's when the kind is small,
else only those of the rows its HNSW graph finds near the query (``index.vector_graph``), -inf for the rest.

A leg keeps five facts (or an LLM filter's few dozen candidates) of 700,000 at 100,000 notes; reading every vector
for them was most of a search's memory traffic. The graph's candidates are many times what the leg keeps, and
their cosines are exact, so the leg's own ordering (CSLS, the section context) decides among them as before.
"""

from __future__ import annotations

import numpy as np

from engram_lab.index.row_vectors import RowVectors
from engram_lab.index.vector_graph import VectorGraph

CANDIDATES = 200  # the graph's rows per query, at least; a leg keeps at most tens
CONTEXT_SECTIONS = 32  # sections most like the query whose facts are scored too (``fact_context`` can lift them)


def leg_cosines(vectors: RowVectors, graph: VectorGraph | None, query: np.ndarray, kept: int,
                also: np.ndarray | None = None) -> np.ndarray:
    """Cosines with ``query``, one per row: exact for every row without a graph; with one, exact for the graph's
    nearest rows (``CANDIDATES`` or four times ``kept``) and the rows ``also`` names, -inf elsewhere."""
    if graph is None:
        return vectors @ query
    rows = graph.nearest(query, max(CANDIDATES, 4 * kept))
    if also is not None and also.size:
        rows = np.union1d(rows, also)
    cosines = np.full(len(vectors), -np.inf, dtype=np.float32)
    if rows.size:
        cosines[rows] = vectors[rows] @ query
    return cosines


def facts_in_best_sections(fact_sections: np.ndarray, section_cos: np.ndarray | None,
                           sections: int = CONTEXT_SECTIONS) -> np.ndarray:
    """Facts stated in the ``sections`` sections most like the query: a fact scores its own cosine plus a share
    of its section's, so one from the section that answers may beat facts nearer the query by wording alone."""
    if section_cos is None or not section_cos.size or not fact_sections.size:
        return np.zeros(0, dtype=np.int64)
    best = np.argpartition(-section_cos, min(sections, section_cos.size) - 1)[:sections]
    chosen = np.zeros(section_cos.size, dtype=bool)
    chosen[best] = True
    stated = fact_sections >= 0
    return np.flatnonzero(stated & chosen[np.maximum(fact_sections, 0)])
