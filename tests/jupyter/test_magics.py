"""The %engram magics in a real IPython shell, and the panels driven the way the front end drives them."""

from __future__ import annotations

import re

import polars as pl
import pytest
from IPython.core.interactiveshell import InteractiveShell

from engram_lab.jupyter.display import View
from engram_lab.resolve.service import resolution_state
from engram_lab.retrieve.graph import EDGE_TYPES
from engram_lab.sample import copy_sample_vault


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    vault = copy_sample_vault(tmp_path_factory.mktemp("magics") / "vault")
    ip = InteractiveShell.instance()
    ip.extension_manager.load_extension("engram_lab")
    ip.run_line_magic("engram", f"open {vault}")
    ip.run_line_magic("engram", "index")
    ip.vault = vault
    return ip


def engram(shell, line, cell=None):
    return shell.run_cell_magic("engram", line, cell) if cell is not None else shell.run_line_magic("engram", line)


def _bundle(view):
    bundle = view._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    return bundle


def test_search_status_context_render_as_rich_objects(shell):
    result = engram(shell, 'search "Which sensors replaced the CT-200?" --k 3')
    bundle = _bundle(result)
    assert "sensor" in bundle["text/plain"].lower() and "<table>" in bundle["text/html"]
    assert "documents" in _bundle(engram(shell, "status"))["text/plain"]
    context = engram(shell, "context who leads the data work --mode keyword")
    assert isinstance(context, View) and "[1]" in context.text


def test_usage_errors_are_short_messages_not_tracebacks(shell):
    for line in ["", "nonsense", "search", 'search "unclosed', "judge a b maybe", "search x --k 0"]:
        result = engram(shell, line)
        assert isinstance(result, View) and "Traceback" not in result.text and result.text
    missing = engram(shell, "show Nobody At All")
    assert "no entity named" in missing.text


def test_show_lists_mentions_relations_and_judgments(shell):
    view = engram(shell, "show AquaSense")
    assert "AquaSense" in view.text and "mention" in view.text and "judgment same by auto" in view.text


def test_sparql_cell_magic_returns_a_dataframe(shell):
    frame = engram(shell, "sparql", "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert isinstance(frame, pl.DataFrame) and int(frame["n"][0]) > 100


def test_sparql_service_is_a_short_message_unless_allowed(shell):
    refused = engram(shell, "sparql", "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }")
    assert isinstance(refused, View) and "--allow-service" in refused.text and "Traceback" not in refused.text
    failed = engram(shell, "sparql --allow-service", "SELECT * WHERE { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }")
    assert isinstance(failed, View) and "SPARQL query failed" in failed.text


def test_learn_writes_pending_and_refuses_a_duplicate(shell):
    body = "The biweekly freshet sampling ended in May and monthly sampling resumed in June at all five stations."
    first = engram(shell, "learn --title 'Sampling rhythm' --source meetings/2026-05-27-midterm.md", body)
    assert "wrote learned/sampling-rhythm.md" in first.text
    again = engram(shell, "learn --title 'Sampling again' --source meetings/2026-05-27-midterm.md", body)
    assert "learned/sampling-rhythm.md" in again.text and "already says this" in again.text


def test_review_panel_click_writes_the_ledger_and_undo_retracts(shell):
    box = engram(shell, "review")
    resolution, supersession, learned = box.children
    assert resolution.items and supersession.items
    item = resolution.items[0]
    resolution._handle_custom_msg({"type": "act", "action": "distinct", "index": 0}, [])
    state = resolution_state(shell.vault)
    judged = [d for d in state.judgments.values() if d.actor == "user" and {d.subject, d.object} == {item["a"], item["b"]}]
    assert judged and judged[0].verdict == "distinct" and resolution.can_undo
    assert all((i["a"], i["b"]) != (item["a"], item["b"]) for i in resolution.items)
    resolution._handle_custom_msg({"type": "undo"}, [])
    assert "retracted" in resolution.status
    assert resolution.items[0] == item  # undo puts the pair back for review, evidence and all
    count = len(supersession.items)
    supersession._handle_custom_msg({"type": "act", "action": "accept", "index": 0}, [])
    assert len(supersession.items) == count - 1 and "accept" in supersession.status


def test_provenance_panel_carries_span_graph_and_authorship(shell):
    box = engram(shell, 'provenance "replace the Halden CT-200" --mode keyword')
    link, panel = box.children
    assert ".md#Decisions'" in link.outputs[0]["data"]["text/html"]
    data = panel.data
    start, end = data["span"]
    assert data["text"][start:end] and data["graph"].startswith("urn:engram:doc:") and data["extractor"] == "heuristic"
    panel._handle_custom_msg({"type": "opened", "path": data["path"]}, [])
    assert panel.opened == [data["path"]]
    assert "--rank" in engram(shell, 'provenance "CT-200" --rank 99 --mode keyword').text


def test_activation_panel_caps_nodes_and_lists_mentions_on_click(shell, tmp_path):
    panel = engram(shell, 'activation "Who works at the Northern Estuary Research Institute?" --limit 40')
    graph = panel.graph
    assert 0 < graph["shown"] <= 40 and any(n["seed"] > 0 for n in graph["nodes"]) and any(n["won"] for n in graph["nodes"])
    assert {e["type"] for e in graph["edges"]} <= set(EDGE_TYPES)
    entity = next(n for n in graph["nodes"] if n["type"] == "entity")
    panel._handle_custom_msg({"type": "node", "id": entity["id"]}, [])
    assert panel.selected == entity["label"] and isinstance(panel.mentions, list)
    out = panel.to_pyvis(tmp_path / "graph.html")
    html = out.read_text()
    assert "vis-network" in html and not re.search(r'(?:src|href)="https?://', html)  # everything in line: renders offline


def test_a_search_shows_what_it_asked_a_model(tmp_path):
    from engram_lab.jupyter.display import search_view
    from engram_lab.retrieve.searcher import SearchOutcome

    note = "fact filter (llm:m) gave no usable answer, facts unfiltered: <timeout>"
    view = search_view(SearchOutcome("q", "full", [], "", notes=[note]), tmp_path)
    assert note in view.text and "facts unfiltered: &lt;timeout&gt;" in view.html
