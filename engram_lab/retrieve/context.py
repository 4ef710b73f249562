"""The "last metre": turn ranked passages and graph evidence into the context an agent reads.

Within a character budget it takes the best passages, but first reserves room
for (a) relation evidence whose endpoints are top-ranked entities and (b) the
bridges of multi-hop chains: entities on short paths between the query's seed
entities, with a passage that mentions them even when that passage ranked low.
Every line says where it came from.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from engram_lab.index.retrieval_index import RetrievalData
from engram_lab.retrieve.results import SearchResult
from engram_lab.retrieve.scoring import top_positive

BRIDGE_DEPTH = 3
RESERVED_SHARE = 0.3


@dataclass(frozen=True)
class EvidenceLine:
    text: str
    doc: str
    span: tuple[int, int] | None
    kind: str  # "relation" or "bridge"


def bridge_entities(neighbours: Mapping[int, set[int]], seeds: list[int], depth: int = BRIDGE_DEPTH) -> set[int]:
    """Entities strictly inside shortest paths (at most ``depth`` hops) between pairs of seed entities."""
    bridges: set[int] = set()
    for i, source in enumerate(seeds):
        parents: dict[int, int | None] = {source: None}
        queue = deque([(source, 0)])
        while queue:
            node, dist = queue.popleft()
            if dist == depth:
                continue
            for nxt in neighbours.get(node, ()):
                if nxt not in parents:
                    parents[nxt] = node
                    queue.append((nxt, dist + 1))
        for target in seeds[i + 1 :]:
            step = parents.get(target) if target in parents else None
            while step is not None and step != source:
                bridges.add(step)
                step = parents[step]
    return bridges - set(seeds)


def _fact_line(data: RetrievalData, fact: int, paths: dict[str, str]) -> EvidenceLine:
    row = data.facts.row(fact, named=True)
    names = data.entities["name"]
    doc = paths.get(row["evidence_doc"], "?")
    span = (row["start"], row["end"]) if row["start"] is not None else None
    where = f"{doc}, chars {span[0]}-{span[1]}" if span else doc
    text = f"{names[row['s']]} — {row['predicate']} — {names[row['o']]}"
    return EvidenceLine(f"{text}  [{where}]", doc, span, "relation")


def assemble(data: RetrievalData, results: list[SearchResult], entity_scores: np.ndarray, seed_entities: list[int],
             budget_chars: int = 6000) -> str:
    paths = data.doc_paths
    top_entities = top_positive(entity_scores, 5)
    bridges = bridge_entities(data.entity_neighbours, seed_entities[:5])
    subjects, objects = data.facts["s"].to_numpy(), data.facts["o"].to_numpy()
    wanted = set(top_entities) | bridges
    ends = wanted | set(seed_entities)
    chosen = sorted(int(f) for e in wanted for f in data.facts_of_subject(e) if int(objects[f]) in ends)
    evidence: list[EvidenceLine] = []
    for f in chosen:
        line = _fact_line(data, int(f), paths)
        kind = "bridge" if {int(subjects[f]), int(objects[f])} & bridges else "relation"
        evidence.append(EvidenceLine(line.text, line.doc, line.span, kind))
    evidence.sort(key=lambda e: e.kind != "bridge")
    reserved = int(budget_chars * RESERVED_SHARE)
    blocks: list[str] = []
    relation_lines: list[str] = []
    used = 0
    for line in evidence:
        if used + len(line.text) > reserved:
            break
        relation_lines.append(f"- {line.text}")
        used += len(line.text) + 3
    if relation_lines:
        blocks.append("Relations:\n" + "\n".join(relation_lines))
    for result in results:
        head = f"[{result.rank}] {result.provenance()}"
        block = f"{head}\n{result.text.strip()}"
        if blocks and used + len(block) > budget_chars:
            break
        blocks.append(block)
        used += len(block)
    return "\n\n".join(blocks)
