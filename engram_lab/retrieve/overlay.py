"""What retrieval takes from the resolution overlay and supersession analysis.

Read from the ledger (never the graph store) and cached by the ledger's overlay
generation, so a judgment made in a panel reaches the next search without an
index rebuild. Merged entities gain synonym edges; broader/narrower judgments
hierarchy edges; ``related`` a half-weight relation edge; a ``distinct``
removes any embedding-synonym edge between the two clusters. A decision that a
later one replaces is labelled, and an accepted replacement ranks above it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl

from engram_lab.index.retrieval_index import EDGE_TYPE, RetrievalData, positions_of
from engram_lab.last_few import kept_for_last
from engram_lab.resolve.overlay import ResolutionState, judged_entities, state_among
from engram_lab.retrieve.results import SearchResult
from engram_lab.state.db import OVERLAY_GENERATION, open_ledger, read_counter
from engram_lab.state.decisions import Decision, DecisionLedger
from engram_lab.state.review import ReviewQueue, StoredCandidate

RELATED_WEIGHT = 0.5
_EDGE_TYPE = {"same": ("synonym", 1.0), "broader": ("hierarchy", 1.0), "narrower": ("hierarchy", 1.0),
              "related": ("relation", RELATED_WEIGHT)}


@dataclass(frozen=True)
class Superseded:
    """An earlier decision inside a note, and what may replace it."""

    doc_id: str
    cell_id: str | None
    span: tuple[int, int] | None
    later_doc: str
    later_date: str
    accepted: bool
    later_cell: str | None = None
    later_span: tuple[int, int] | None = None


@dataclass(frozen=True)
class PresentJudgments:
    """The judgments in force among the entities one index holds, and what they do to its graph."""

    edges: list[tuple[str, str, str]]  # (a, b, verdict) in force
    apart: list[tuple[set[str], set[str]]]  # clusters judged distinct


@dataclass
class OverlaySnapshot:
    generation: int
    decisions: tuple[Decision, ...] = ()  # the ledger's, as read (``DecisionLedger.verdicts``)
    superseded: list[Superseded] = field(default_factory=list)
    paths: dict[str, str] = field(default_factory=dict)  # doc_id -> vault-relative path, for labels
    _by_index: dict[int, tuple[RetrievalData, PresentJudgments]] = field(default_factory=dict, repr=False)

    def among(self, data: RetrievalData) -> PresentJudgments:
        """Judgments among the entities ``data`` holds: one on an entity the notes no longer name leaves the graph
        (a cluster joined only through it falls apart) and returns with the entity, as resolution does."""
        cached = self._by_index.get(id(data))
        if cached is not None and cached[0] is data:
            return cached[1]
        found = present_judgments(state_among(self.decisions, judged_present(self.decisions, data)))
        self._by_index = {id(data): (data, found)}  # one index is live at a time
        return found


def judged_present(decisions: tuple[Decision, ...], data: RetrievalData) -> frozenset[str]:
    """The entities ``decisions`` name that ``data`` holds (all ``state_among`` reads of the entities present): a
    set of every entity's IRI took 0.1 s of each edit's walk at 100,000 notes, and its dictionary 0.35 s more."""
    judged = judged_entities(decisions)
    if not judged:
        return frozenset()
    iris = data.entities["entity_iri"]
    return frozenset(iris.filter(iris.is_in(pl.Series(list(judged), dtype=pl.String).implode())).to_list())


# Kept for the last state (``state_among`` hands out the same object while the decisions and the judged entities
# present stay): an edit makes a new index, rarely a new state, and listing the 47,000 judgments of the 10,000-note
# benchmark again took 0.1 s of the first search after each edit.
@kept_for_last
def present_judgments(state: ResolutionState) -> PresentJudgments:
    """What ``state`` does to the walk's graph (callers must not change it)."""
    members = state.members()

    def cluster(iri: str) -> set[str]:
        return set(members.get(state.canonical(iri), [iri]))

    return PresentJudgments(state.edges(), [(cluster(a), cluster(b)) for a, b in state.distinct_pairs()])


def load_overlay(vault: Path) -> OverlaySnapshot:
    conn = open_ledger(vault)
    try:
        generation = read_counter(conn, OVERLAY_GENERATION)
        decisions = DecisionLedger(conn).verdicts()  # the walk reads verdicts, not why
        superseded = [_superseded(c) for c in ReviewQueue(conn).candidates() if c.evidence.get("status") != "rejected"]
        paths = _paths_of(conn, sorted({s.later_doc for s in superseded}))
    finally:
        conn.close()
    return OverlaySnapshot(generation, decisions, superseded, paths)


def _paths_of(conn: sqlite3.Connection, doc_ids: list[str]) -> dict[str, str]:
    """The paths of these documents, the replacements a label names (every note's path took 0.14 s of each overlay
    reload at 100,000 notes)."""
    paths: dict[str, str] = {}
    for start in range(0, len(doc_ids), 500):
        chunk = doc_ids[start : start + 500]
        rows = conn.execute(f"SELECT doc_id, path FROM documents WHERE doc_id IN ({', '.join('?' * len(chunk))})", chunk)
        paths.update((r["doc_id"], r["path"]) for r in rows)
    return paths


def _superseded(c: StoredCandidate) -> Superseded:
    earlier, later = c.evidence["earlier"], c.evidence["later"]
    return Superseded(c.earlier_doc, earlier.get("cell_id"), _span(earlier), c.later_doc, c.later_date,
                      c.evidence.get("status") == "accepted", later.get("cell_id"), _span(later))


def _span(part: dict[str, object]) -> tuple[int, int] | None:
    span = part.get("span")
    return (int(span[0]), int(span[1])) if isinstance(span, list) and len(span) == 2 else None


def overlay_edges(data: RetrievalData, snapshot: OverlaySnapshot) -> pl.DataFrame:
    """Judgment edges between entity nodes present in this index (src, dst, type, weight)."""
    schema = {"src": pl.Int64, "dst": pl.Int64, "type": EDGE_TYPE, "weight": pl.Float64}  # as the index's edges
    edges = snapshot.among(data).edges
    if not edges:
        return pl.DataFrame(schema=schema)
    nodes = data.entities.select("entity_iri", pl.int_range(data.entity_node(0), data.entity_node(0) + pl.len(), dtype=pl.Int64).alias("node"))
    types = pl.DataFrame({"verdict": list(_EDGE_TYPE), "type": [t for t, _ in _EDGE_TYPE.values()],
                          "weight": [w for _, w in _EDGE_TYPE.values()]})
    # By joins, in the judgments' order: a loop took 0.15 s of each edit's walk at 10,000 notes (23,000 merges).
    return (pl.DataFrame(edges, schema={"a": pl.String, "b": pl.String, "verdict": pl.String}, orient="row")
            .join(types, on="verdict", maintain_order="left")
            .join(nodes.rename({"entity_iri": "a", "node": "src"}), on="a", maintain_order="left")
            .join(nodes.rename({"entity_iri": "b", "node": "dst"}), on="b", maintain_order="left")
            .select(list(schema)).cast(schema))


def blocked_synonyms(data: RetrievalData, snapshot: OverlaySnapshot) -> set[tuple[int, int]]:
    """Entity-index pairs (a < b) that a ``distinct`` keeps from being embedding synonyms."""
    apart = snapshot.among(data).apart
    index = positions_of(data.entity_position, (iri for left, right in apart for iri in (*left, *right)))  # one search
    out: set[tuple[int, int]] = set()
    for left, right in apart:
        for x in left:
            for y in right:
                if x in index and y in index:
                    a, b = index[x], index[y]
                    out.add((a, b) if a < b else (b, a))
    return out


def _contains(result: SearchResult, doc_id: str, cell_id: str | None, span: tuple[int, int] | None) -> bool:
    if result.doc_id != doc_id or result.cell_id != cell_id:
        return False
    if result.span is None or span is None:
        return True
    return result.span[0] <= span[0] and span[1] <= result.span[1]


def label_superseded(results: list[SearchResult], snapshot: OverlaySnapshot) -> list[SearchResult]:
    """Label results holding a replaced decision; an accepted replacement found in the results moves above it."""
    labelled: list[SearchResult] = []
    demote: dict[int, Superseded] = {}  # result position -> the replacement that must come first
    for position, result in enumerate(results):
        hits = [s for s in snapshot.superseded if _contains(result, s.doc_id, s.cell_id, s.span)]
        if not hits:
            labelled.append(result)
            continue
        hit = max(hits, key=lambda s: (s.accepted, s.later_date))
        where = f"{snapshot.paths.get(hit.later_doc, hit.later_doc)} ({hit.later_date})"
        label = f"superseded by {where}" if hit.accepted else f"possibly superseded by {where}; unreviewed"
        labelled.append(replace(result, superseded=label))
        if hit.accepted:
            demote[position] = hit
    order = list(range(len(labelled)))
    for position, hit in demote.items():
        later_positions = [i for i, r in enumerate(labelled) if _contains(r, hit.later_doc, hit.later_cell, hit.later_span)]
        if later_positions and order.index(later_positions[0]) > order.index(position):
            order.remove(position)
            order.insert(order.index(later_positions[0]) + 1, position)
    return [replace(labelled[i], rank=rank) for rank, i in enumerate(order, start=1)]
