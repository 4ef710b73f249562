"""The local graph around one note or entity, to depth 1 or 2: what ``%engram graph`` draws.

Reads only the loaded retrieval index. A note is one node however many passages (notebook cells) it has; an
entity is one node. Edges keep their type (relation, hierarchy, synonym, mention, link, about) and nodes their
kind ("note", or the entity's kind), so the view can filter by both. Node ids are the retrieval graph's own
(a note's first passage row; ``n_passages + i`` for entity ``i``), as in the activation panel, so one view and
one click handler serve both.

Past the cap the strongest nodes are kept: every depth-1 node before any depth-2 one, depth-1 nodes by the
weight of their ties to the centre, depth-2 nodes by the strength they receive from depth-1 nodes, each of
which shares its own strength out over its weighted degree (so a hub entity named in every note does not
drag the whole vault in).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from engram_lab.errors import EngramError
from engram_lab.index.retrieval_index import RetrievalData
from engram_lab.retrieve.graph import with_judged

__all__ = ["DEPTHS", "MAX_LOCAL_NODES", "describe", "find_centre", "local_graph"]

DEPTHS = (1, 2)
MAX_LOCAL_NODES = 80
SYNONYM_THRESHOLD = 0.8  # the retrieval settings' default: the synonym edges the walk uses
NOTE = "note"


@dataclass
class _Graph:
    """The retrieval graph with passages folded into notes: undirected edges, one per (pair, type)."""

    edges: dict[tuple[int, int, str], float] = field(default_factory=dict)  # (source, target, type) -> weight
    around: dict[int, dict[int, float]] = field(default_factory=lambda: defaultdict(dict))  # node -> neighbour -> weight

    def add(self, a: int, b: int, kind: str, weight: float) -> None:
        if a == b:
            return
        key = (a, b, kind) if (b, a, kind) not in self.edges else (b, a, kind)
        self.edges[key] = max(self.edges.get(key, 0.0), weight)
        self.around[a][b] = self.around[a].get(b, 0.0) + weight
        self.around[b][a] = self.around[b].get(a, 0.0) + weight


def _note_nodes(data: RetrievalData) -> list[int]:
    """Passage row -> its note's node id (the note's first row)."""
    first: dict[str, int] = {}
    return [first.setdefault(path, row) for row, path in enumerate(data.documents["path"].to_list())]


def _fold(data: RetrievalData, judged: pl.DataFrame | None, synonym_threshold: float) -> _Graph:
    note_of = _note_nodes(data)
    n_pass = data.n_passages
    graph = _Graph()
    edges = with_judged(data.edges, judged)
    for src, dst, kind, weight in edges.select("src", "dst", "type", "weight").iter_rows():
        graph.add(note_of[src] if src < n_pass else src, note_of[dst] if dst < n_pass else dst, kind, float(weight))
    synonyms = data.synonym_pairs.filter(pl.col("cosine") >= synonym_threshold)
    for a, b, cosine in synonyms.select("a", "b", "cosine").iter_rows():
        graph.add(n_pass + a, n_pass + b, "synonym", min(1.0, float(cosine)))
    return graph


def find_centre(data: RetrievalData, text: str) -> int:
    """The node a name stands for: a note path or title (any case, ``.md`` optional), else an entity name, else an
    entity alias. ``note:NAME`` and ``entity:NAME`` look only among notes or only among entities (a note's title is
    often an entity's name too: "AquaSense" is the note orgs/aquasense.md, ``entity:AquaSense`` the organisation).

    Raises EngramError when nothing in the index goes by that name.
    """
    wanted = text.strip()
    scope, _, rest = wanted.partition(":")
    scope = scope.lower() if rest and scope.lower() in (NOTE, "entity") else ""
    wanted = rest.strip() if scope else wanted
    folded = wanted.casefold()
    if scope != "entity":
        paths = data.documents["path"].to_list()
        for row, (path, title) in enumerate(zip(paths, data.documents["title"].to_list())):
            if path == wanted or folded in (path.casefold(), path.casefold().removesuffix(".md"), (title or "").casefold()):
                return _note_nodes(data)[row]
    if scope != NOTE:
        named = [i for i, name in enumerate(data.entities["name"].to_list()) if name.casefold() == folded]
        named = named or [i for i, aliases in enumerate(data.entities["aliases"].to_list())
                          if any(alias.casefold() == folded for alias in aliases or [])]
        if named:  # one name, several kinds ("Priya Raman" a Person and a Concept): the most mentioned, a Concept last
            counts, kinds = data.entities["passages"].to_list(), data.entities["kind"].to_list()
            return data.entity_node(min(named, key=lambda i: (-counts[i], kinds[i] == "Concept", i)))
    what = {"": "note or entity", NOTE: "note", "entity": "entity"}[scope]
    raise EngramError(f"no {what} called {wanted!r} in the index (a note path or title, an entity name; "
                      "a note added since the last index run needs a re-index)")


def _strengths(graph: _Graph, centre: int, depth: int) -> tuple[dict[int, float], dict[int, float]]:
    """Depth-1 nodes with the weight of their ties to the centre; depth-2 nodes with what depth 1 passes on."""
    first = {n: w for n, w in graph.around[centre].items()}
    second: dict[int, float] = defaultdict(float)
    if depth == 2:
        for node, strength in first.items():
            degree = sum(graph.around[node].values())
            for other, weight in graph.around[node].items():
                if other != centre and other not in first:
                    second[other] += strength * weight / degree
    return first, dict(second)


def local_graph(data: RetrievalData, centre: str | int, depth: int = 1, limit: int = MAX_LOCAL_NODES,
                judged: pl.DataFrame | None = None, synonym_threshold: float = SYNONYM_THRESHOLD) -> dict[str, Any]:
    """Nodes and typed edges around ``centre`` (a name for ``find_centre``, or a node id), at most ``limit`` nodes.

    Returns ``{"centre", "depth", "nodes", "edges", "shown", "total", "capped", "edge_types", "node_kinds"}``;
    each node has id, label, type ("note" or "entity"), kind, path (notes), depth (0-2) and score.
    Raises EngramError for a depth other than 1 or 2, a limit below 2, or an unknown centre.
    """
    if depth not in DEPTHS:
        raise EngramError(f"depth must be 1 or 2, got {depth}")
    if limit < 2:
        raise EngramError(f"limit must be at least 2 (the centre and one neighbour), got {limit}")
    node = centre if isinstance(centre, int) else find_centre(data, centre)
    if not 0 <= node < data.n_passages + data.n_entities:
        raise EngramError(f"node {node} is not in the retrieval index")
    node = _note_nodes(data)[node] if node < data.n_passages else node
    graph = _fold(data, judged, synonym_threshold)
    first, second = _strengths(graph, node, depth)
    ranked = sorted(first, key=lambda n: (-first[n], n)) + sorted(second, key=lambda n: (-second[n], n))
    kept = [node, *ranked[:limit - 1]]
    keep = set(kept)
    nodes = [_node(data, n, 0 if n == node else 1 if n in first else 2, first.get(n, second.get(n, 0.0))) for n in kept]
    nodes[0]["score"] = max([1.0, *(n["score"] for n in nodes)])
    predicates = _predicates(data)
    edges = [{"source": a, "target": b, "type": kind, "weight": round(w, 4)} | _edge_label(predicates, data, a, b, kind)
             for (a, b, kind), w in graph.edges.items() if a in keep and b in keep]
    return {"centre": node, "depth": depth, "nodes": nodes, "edges": edges, "shown": len(nodes),
            "total": 1 + len(ranked), "capped": len(ranked) + 1 > limit,
            "edge_types": sorted({e["type"] for e in edges}), "node_kinds": sorted({n["kind"] for n in nodes})}


def describe(graph: dict[str, Any]) -> tuple[str, str]:
    """A local graph's title and summary line, as the notebook and lab panels head it."""
    centre = graph["nodes"][0]
    what = centre["path"] or f"{centre['label']} ({centre['kind']})"
    summary = f"depth {graph['depth']} · {graph['shown']} of {graph['total']} nodes" + (", the strongest" if graph["capped"] else "")
    return f"local graph of {what}", summary


def _node(data: RetrievalData, node: int, depth: int, score: float) -> dict[str, Any]:
    if node < data.n_passages:
        path = data.documents["path"][node]
        return {"id": node, "label": data.documents["title"][node] or path, "type": "passage", "kind": NOTE,
                "path": path, "depth": depth, "score": round(score, 4)}
    i = node - data.n_passages
    return {"id": node, "label": data.entities["name"][i], "type": "entity", "kind": data.entities["kind"][i] or "entity",
            "path": None, "depth": depth, "score": round(score, 4)}


def _predicates(data: RetrievalData) -> dict[tuple[int, int], str]:
    out: dict[tuple[int, int], str] = {}
    for s, o, predicate in data.facts.select("s", "o", "predicate").iter_rows():
        out.setdefault((s, o), predicate)
    return out


def _edge_label(predicates: dict[tuple[int, int], str], data: RetrievalData, a: int, b: int, kind: str) -> dict[str, str]:
    if kind != "relation":
        return {}
    n = data.n_passages
    label = predicates.get((a - n, b - n)) or predicates.get((b - n, a - n))
    return {"label": label} if label else {}
