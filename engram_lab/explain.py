"""Provenance lookups for people: what the vault says about an entity, where a result came from,
and how activation spread for a query. Plain data (dicts and dataclasses) for the magics, the
panels and the server; no display code here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from engram_lab.errors import EngramError
from engram_lab.graph import vocabulary as v
from engram_lab.index.retrieval_index import RetrievalData
from engram_lab.index.tables import TABLES_DIR, TableStore
from engram_lab.resolve.run import load_tables
from engram_lab.resolve.service import find_entity, resolution_state, supersession_candidates
from engram_lab.retrieve.results import SearchResult
from engram_lab.retrieve.graph import with_judged
from engram_lab.retrieve.scoring import Ranking
from engram_lab.state.db import engram_dir, open_ledger
from engram_lab.state.documents import DocumentTable
from engram_lab.vault import decode_note_text, parse_document, read_note_bytes

MAX_ACTIVATION_NODES = 500


def part_text(vault: Path, rel_path: str, cell_id: str | None) -> str:
    """The text spans index into: the decoded note, or one notebook cell's source."""
    kind = "notebook" if rel_path.lower().endswith(".ipynb") else "markdown"
    note = read_note_bytes(vault, rel_path, 64 * 1024 * 1024)
    doc = parse_document(decode_note_text(note.data, rel_path), rel_path, kind)  # type: ignore[arg-type]
    for part in doc.parts:
        if part.cell_id == cell_id:
            return part.model.text
    raise EngramError(f"{rel_path}: no cell {cell_id!r} (was the notebook edited since indexing?)")


@dataclass
class EntitySummary:
    iri: str
    name: str
    kind: str
    labels: list[str]
    mentions: list[dict[str, Any]] = field(default_factory=list)  # path, cell_id, start, end, surface
    relations: list[dict[str, Any]] = field(default_factory=list)  # subject, predicate, object, path, start, end, label
    same_as: list[str] = field(default_factory=list)
    judgments: list[dict[str, Any]] = field(default_factory=list)


def entity_summary(vault: Path, text: str, limit: int = 50) -> EntitySummary:
    data = load_tables(vault)
    view = data.view
    i = find_entity(view, text)
    iri = view.iris[i]
    tables = TableStore(engram_dir(vault) / TABLES_DIR)
    paths = dict(zip(data.documents["doc_id"].to_list(), data.documents["path"].to_list()))
    summary = EntitySummary(iri, view.names[i], view.kinds[i], view.labels[i])
    for row in tables.read("mentions").filter(pl.col("entity_iri") == iri).head(limit).iter_rows(named=True):
        summary.mentions.append({"path": paths.get(row["doc_id"], "?"), "cell_id": row["cell_id"], "start": row["start"],
                                 "end": row["end"], "surface": row["surface"]})
    relations = tables.read("relations").filter((pl.col("subject_iri") == iri) | (pl.col("object_iri") == iri))
    for row in relations.head(limit).iter_rows(named=True):
        summary.relations.append({"subject": row["subject"], "predicate": row["predicate"], "object": row["object"],
                                  "path": paths.get(row["doc_id"], "?"), "cell_id": row["cell_id"], "start": row["start"],
                                  "end": row["end"], "label": row["label"]})
    state = resolution_state(vault)
    canonical = state.canonical(iri)
    summary.same_as = [m for m in state.members().get(canonical, []) if m != iri]
    for (a, b), d in state.judgments.items():
        if iri in (a, b):
            summary.judgments.append({"decision_id": d.decision_id, "subject": d.subject, "object": d.object,
                                      "verdict": d.verdict, "actor": d.actor, "made_at": d.made_at,
                                      "blocked": state.blocked.get(d.decision_id)})
    return summary


def result_provenance(vault: Path, result: SearchResult) -> dict[str, Any]:
    """Everything the provenance panel shows for one result: text, span, graph, triples, authorship, overlays."""
    text = part_text(vault, result.path, result.cell_id)
    conn = open_ledger(vault)
    try:
        row = DocumentTable(conn).by_id(result.doc_id)
    finally:
        conn.close()
    tables = TableStore(engram_dir(vault) / TABLES_DIR)
    docs = tables.read("documents").filter(pl.col("doc_id") == result.doc_id)
    meta = docs.row(0, named=True) if docs.height else {}
    start, end = result.span or (0, len(text))
    relations = tables.read("relations").filter(
        (pl.col("doc_id") == result.doc_id) & (pl.col("start") >= start) & (pl.col("end") <= end)
        & (pl.col("cell_id").is_null() if result.cell_id is None else pl.col("cell_id") == result.cell_id))
    triples = [{"subject": r["subject"], "predicate": r["predicate"], "object": r["object"], "start": r["start"],
                "end": r["end"], "subject_iri": r["subject_iri"], "object_iri": r["object_iri"]}
               for r in relations.iter_rows(named=True)]
    touched = {t["subject_iri"] for t in triples} | {t["object_iri"] for t in triples if t["object_iri"]}
    state = resolution_state(vault)
    overlays = [{"verdict": d.verdict, "actor": d.actor, "subject": d.subject, "object": d.object, "decision_id": d.decision_id}
                for (a, b), d in state.judgments.items() if a in touched or b in touched]
    supersessions = [c.evidence | {"id": str(c.evidence.get("iri", ""))[-12:]} for c in supersession_candidates(vault)
                     if result.doc_id in (c.earlier_doc, c.later_doc)]
    return {
        "path": result.path, "cell_id": result.cell_id, "doc": result.doc, "text": text, "span": [start, end],
        "heading": " > ".join(result.heading_path), "graph": v.document_iri(result.doc_id),
        "author": meta.get("author"), "extractor": meta.get("extractor"), "extractor_version": meta.get("extractor_version"),
        "model": meta.get("model"), "extracted_at": row.indexed_at if row else None, "status": result.status,
        "triples": triples, "overlays": overlays, "supersessions": supersessions, "superseded": result.superseded,
    }


def activation_graph(data: RetrievalData, ranking: Ranking, results: list[SearchResult], limit: int = MAX_ACTIVATION_NODES,
                     judged: pl.DataFrame | None = None) -> dict[str, Any]:
    """The most activated nodes (seeds first), the typed edges among them, and which passages won."""
    n_pass = data.n_passages
    scores = np.concatenate([ranking.doc_scores, ranking.entity_scores]) if ranking.entity_scores.size else ranking.doc_scores
    reset = ranking.reset if ranking.reset is not None else np.zeros(scores.shape[0])
    seeds = [int(i) for i in np.flatnonzero(reset > 0)]
    active = [int(i) for i in np.argsort(-scores) if scores[i] > 0]
    chosen = list(dict.fromkeys(sorted(seeds, key=lambda i: -reset[i]) + active))
    total = len(chosen)
    chosen = chosen[:limit]
    keep = set(chosen)
    winners = {r.doc_id for r in results}
    doc_ids = data.documents["doc_id"].to_list()
    nodes = []
    for i in chosen:
        is_passage = i < n_pass
        label = data.documents["title"][i] if is_passage else data.entities["name"][i - n_pass]
        nodes.append({"id": i, "label": label, "type": "passage" if is_passage else "entity",
                      "kind": "note" if is_passage else data.entities["kind"][i - n_pass],
                      "activation": float(scores[i]), "seed": float(reset[i]) if i < reset.shape[0] else 0.0,
                      "won": bool(is_passage and doc_ids[i] in winners),
                      "path": data.documents["path"][i] if is_passage else None})
    edges_frame = with_judged(data.edges, judged)
    part = edges_frame.filter(pl.col("src").is_in(list(keep)) & pl.col("dst").is_in(list(keep)))
    edges = [{"source": int(s), "target": int(t), "type": k, "weight": float(w)}
             for s, t, k, w in zip(part["src"].to_list(), part["dst"].to_list(), part["type"].to_list(), part["weight"].to_list())]
    return {"nodes": nodes, "edges": edges, "shown": len(nodes), "total": total, "capped": total > limit}


def entity_mentions(vault: Path, data: RetrievalData, entity_index: int, limit: int = 20) -> list[dict[str, Any]]:
    """Where an entity node of the retrieval graph is mentioned (for a click in the activation panel)."""
    iri = data.entities["entity_iri"][entity_index]
    tables = TableStore(engram_dir(vault) / TABLES_DIR)
    paths = data.doc_paths
    rows = tables.read("mentions").filter(pl.col("entity_iri") == iri).head(limit)
    return [{"path": paths.get(r["doc_id"], "?"), "cell_id": r["cell_id"], "start": r["start"], "end": r["end"],
             "surface": r["surface"]} for r in rows.iter_rows(named=True)]


def note_triples(vault: Path, rel_path: str) -> list[dict[str, Any]]:
    """Every triple extracted from one note, with its span, for highlighting in an editor."""
    conn = open_ledger(vault)
    try:
        row = DocumentTable(conn).by_path(rel_path)
    finally:
        conn.close()
    if row is None:
        raise EngramError(f"{rel_path}: not an indexed note of this vault")
    relations = TableStore(engram_dir(vault) / TABLES_DIR).read("relations").filter(pl.col("doc_id") == row.doc_id)
    return [{"subject": r["subject"], "predicate": r["predicate"], "object": r["object"], "cell_id": r["cell_id"],
             "start": r["start"], "end": r["end"], "label": r["label"]} for r in relations.iter_rows(named=True)]
