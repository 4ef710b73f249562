"""%engram graph (issue 21, item 4): the local graph panel around a note, an entity or a search result, driven the
way the front end drives it; bad input is one line; the activation panel shares the view and keeps its API.
The layout itself (isolated nodes in the middle, not on the border) runs under Node when Node is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from engram_lab.jupyter.display import View
from engram_lab.jupyter.widgets import ActivationPanel, GraphPanel, LocalGraphPanel
from engram_lab.retrieve.graph import EDGE_TYPES
from tests.jupyter.test_magics import engram, shell  # noqa: F401 (shell: the indexed sample vault's shell fixture)

REVIEW = "meetings/2026-03-18-sensor-review.md"
VIEW_JS = Path(__file__).resolve().parents[2] / "engram_lab" / "jupyter" / "static" / "activation.js"


def test_graph_of_a_note_draws_its_neighbours_and_a_click_says_what_it_is(shell):
    panel = engram(shell, f"graph {REVIEW}")
    assert isinstance(panel, LocalGraphPanel) and panel.title == f"local graph of {REVIEW}"
    assert panel.summary.startswith("depth 1 · ") and panel.vault == str(shell.vault)
    graph = panel.graph
    assert graph["nodes"][0]["path"] == REVIEW and {e["type"] for e in graph["edges"]} <= set(EDGE_TYPES)
    note = next(n for n in graph["nodes"][1:] if n["kind"] == "note")
    panel._handle_custom_msg({"type": "node", "id": note["id"]}, [])
    assert panel.selected == note["label"] and panel.mentions[0]["path"] == note["path"]
    entity = next(n for n in graph["nodes"] if n["type"] == "entity")
    panel._handle_custom_msg({"type": "node", "id": entity["id"]}, [])
    assert panel.selected == entity["label"] and panel.mentions and all(m["path"].endswith((".md", ".ipynb")) for m in panel.mentions)


def test_depth_two_around_an_entity_and_a_search_result(shell):
    one = engram(shell, 'graph "entity:Priya Raman"')
    two = engram(shell, 'graph "entity:Priya Raman" --depth 2 --limit 30')
    assert one.title == "local graph of Priya Raman (Person)" and one.graph["shown"] < two.graph["shown"] <= 30
    first = engram(shell, "search sensor drift --mode keyword")
    result = engram(shell, "graph sensor drift --result 1")
    assert isinstance(result, LocalGraphPanel) and result.graph["nodes"][0]["kind"] == "note"
    assert result.graph["nodes"][0]["path"] in first.text


@pytest.mark.parametrize(("line", "expected"), [
    ("graph no/such-note.md", "engram: no note or entity called 'no/such-note.md' in the index"),
    (f"graph {REVIEW} --depth 5", "engram: depth must be 1 or 2, got 5"),
    (f"graph {REVIEW} --depth 0", "engram: depth must be 1 or 2, got 0"),
    (f"graph {REVIEW} --depth two", "argument --depth: invalid int value: 'two'"),
    ("graph sensor drift --result 99", "--result 99: the search returned"),
])
def test_bad_input_is_one_clear_line(shell, line, expected):
    out = engram(shell, line)
    first, *rest = out.text.splitlines()
    assert isinstance(out, View) and expected in first and "Traceback" not in out.text
    assert all(line.startswith(("usage: %engram graph", " ")) for line in rest)  # the problem, then the usage at most


def test_the_activation_panel_shares_the_view_and_keeps_its_api(shell):
    panel = engram(shell, 'activation "Who works at the Northern Estuary Research Institute?" --limit 40')
    assert isinstance(panel, ActivationPanel) and issubclass(ActivationPanel, GraphPanel) and issubclass(LocalGraphPanel, GraphPanel)
    assert panel.title.startswith('activation for "Who works') and "active nodes shown" in panel.summary
    assert panel.query.startswith("Who works") and panel.vault == str(shell.vault)
    assert {n["kind"] for n in panel.graph["nodes"]} >= {"note"}


LAYOUT_CHECK = """
import { layout, fit, viewSize } from %s;
const [n, isolated] = [300, 100];
const nodes = [...Array(n).keys()].map((id) => ({ id }));
const edges = [];
for (let i = isolated + 1; i < n; i++) edges.push({ source: i, target: isolated + ((i * 7919) %% (i - isolated)) });
const pos = layout(nodes, edges, 760, 480, 80), v = fit(pos, 760, 480);
const at = pos.map((p) => [v.tx + v.s * p.x, v.ty + v.s * p.y]);
const r = ([x, y]) => Math.hypot((x - 380) / 380, (y - 240) / 240);
console.log(JSON.stringify({ isolated: at.slice(0, isolated).map(r), connected: at.slice(isolated).map(r),
  inside: at.every(([x, y]) => x >= 0 && x <= 760 && y >= 0 && y <= 480),
  sizes: [viewSize(0), viewSize(1200), viewSize(300), viewSize(100)] }));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is not installed")
def test_isolated_nodes_sit_in_the_middle_not_on_the_border():
    out = subprocess.run(["node", "--input-type=module", "-e", LAYOUT_CHECK % json.dumps(VIEW_JS.as_uri())],
                         capture_output=True, text=True, timeout=120, check=True)
    radii = json.loads(out.stdout)
    assert radii["inside"], "the fitted view holds every node"
    notebook, wide, sidebar, narrow = radii["sizes"]  # a notebook's 760 x 480; a sidebar's own width, taller
    assert notebook == wide == {"width": 760, "height": 480} and sidebar == {"width": 300, "height": 345}
    assert narrow["width"] == 240
    isolated, connected = sorted(radii["isolated"]), sorted(radii["connected"])
    assert max(isolated) < 0.6, "no isolated node out towards the border"
    assert isolated[len(isolated) // 2] < connected[len(connected) // 2] / 2
