"""GET /engram/graph and /engram/view/NAME on a real Jupyter server: the local graph around a note, an entity's
mentions, the notebook panels' view served to the lab, mistakes one clear 400."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from tests.server.test_api import call
from tests.server.test_related_api import server  # noqa: F401 (a Jupyter server on the indexed sample vault)

NOTE = "meetings/2026-03-18-sensor-review.md"


def test_the_graph_needs_the_token(server):
    assert call(server, f"graph?path={NOTE}", token=None)[0] == 403


def test_the_graph_around_a_note_and_an_entitys_mentions(server):
    status, body = call(server, f"graph?path={NOTE}&depth=2&limit=30")
    assert status == 200, body
    graph = body["graph"]
    assert body["path"] == NOTE and body["vault"].endswith("vault") and body["title"] == f"local graph of {NOTE}"
    assert body["summary"].startswith("depth 2 · ")
    assert graph["nodes"][0]["path"] == NOTE and graph["depth"] == 2 and graph["shown"] <= 30 and graph["edges"]
    entity = next(n for n in graph["nodes"] if n["type"] == "entity")
    status, body = call(server, f"graph?mentions={entity['id']}")
    assert status == 200 and body["mentions"] and all(m["path"].endswith((".md", ".ipynb")) for m in body["mentions"])


@pytest.mark.parametrize("query, message", [
    ("graph", "expected ?path=NOTE"),
    ("graph?path=nope.md", "no note or entity called 'nope.md'"),
    (f"graph?path={NOTE}&depth=5", "depth must be 1 or 2, got 5"),
    (f"graph?path={NOTE}&depth=x", "depth must be a whole number"),
    ("graph?mentions=0", "node 0 is not an entity"),
])
def test_mistakes_are_one_clear_400(server, query, message):
    status, body = call(server, query)
    assert status == 400 and message in body["error"]


def test_the_view_the_notebook_panels_use_is_served_to_the_lab(server):
    with urllib.request.urlopen(f"{server}/engram/view/activation.js", timeout=60) as response:
        assert response.headers["Content-Type"].startswith("text/javascript")
        assert b"export function layout" in response.read()
    with urllib.request.urlopen(f"{server}/engram/view/panels.css", timeout=60) as response:
        assert b".engram-graph" in response.read()
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{server}/engram/view/secret.js", timeout=60)
    assert missing.value.code == 404
