"""Export an activation subgraph as a standalone HTML file that renders offline (pyvis, resources in line)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# pyvis's page template links Bootstrap from a CDN even with resources in line; the graph does not need it.
_REMOTE = re.compile(r"<link[^>]+href=\"https?://[^\"]+\"[^>]*>|<script[^>]+src=\"https?://[^\"]+\"[^>]*>\s*</script>")

EDGE_COLORS = {"relation": "#4e79a7", "synonym": "#f28e2b", "hierarchy": "#59a14f", "mention": "#bab0ac", "link": "#b07aa1", "about": "#76b7b2"}


def to_pyvis(graph: dict[str, Any], path: str | Path, title: str = "engram subgraph") -> Path:
    from pyvis.network import Network

    net = Network(height="700px", width="100%", directed=False, cdn_resources="in_line", heading=title)
    top = max((n["activation"] for n in graph.get("nodes", [])), default=1.0) or 1.0
    for n in graph.get("nodes", []):
        color = "#2ca02c" if n.get("won") else "#9ecae1" if n["type"] == "passage" else "#fdae6b"
        net.add_node(n["id"], label=str(n["label"])[:40], title=f"{n['label']} (activation {n['activation']:.3g})",
                     size=8 + 30 * (n["activation"] / top) ** 0.5, color=color,
                     borderWidth=3 if n.get("seed") else 1)
    for e in graph.get("edges", []):
        net.add_edge(e["source"], e["target"], title=f"{e['type']} {e['weight']:.2f}", color=EDGE_COLORS.get(e["type"], "#999"),
                     value=e["weight"])
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(_REMOTE.sub("", net.generate_html(notebook=False)), encoding="utf-8")
    return out
