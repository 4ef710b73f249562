"""The server extension's API on a real Jupyter server: authentication, the sidebar's data, search,
re-index, learn, and a vault written by another process at the same time."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

from engram_lab.engine import Engine
from engram_lab.sample import copy_sample_vault
from tests.jupyter_process import jupyter

TOKEN = "engram-test-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("server")
    vault = copy_sample_vault(root / "vault")
    Engine(vault).index(progress=False)
    with jupyter(root, token=TOKEN, extra=[f"--EngramServer.vault={vault}"]) as url:
        yield url, vault


def call(url, path, method="GET", body=None, token=TOKEN):
    request = urllib.request.Request(f"{url}/engram/{path}", method=method, data=json.dumps(body).encode() if body is not None else None)
    if token:
        request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, json.loads(text) if text.startswith(b"{") else text.decode()


def test_requests_without_the_token_are_refused(server):
    url, _ = server
    status, _ = call(url, "notes", token=None)
    assert status == 403


def test_notes_list_status_and_counts(server):
    url, vault = server
    status, payload = call(url, "notes")
    assert status == 200 and payload["vault"] == str(vault)
    notes = {n["path"]: n for n in payload["notes"]}
    assert notes["orgs/aquasense.md"]["status"] == "indexed" and notes["orgs/aquasense.md"]["entities"] > 0
    assert any(n["status"] == "pending-review" for n in notes.values())
    (vault / "orgs" / "aquasense.md").write_text((vault / "orgs" / "aquasense.md").read_text() + "\nEdited.\n")
    status_payload = call(url, "status")[1]
    assert status_payload["stale"] == 1 and status_payload["root_relative"] == "vault"


def test_search_returns_ranked_results_with_snippets(server):
    url, _ = server
    status, payload = call(url, "search?q=Which%20sensors%20replaced%20the%20CT-200&k=3&mode=keyword")
    assert status == 200 and len(payload["results"]) == 3 and payload["notes"] == []  # no model was asked
    first = payload["results"][0]
    assert {"rank", "doc", "score", "span", "heading", "path", "snippet", "heading_path"} <= set(first)
    assert call(url, "search?q=x&k=abc")[0] == 400
    status, payload = call(url, "search?q=&k=3")
    assert status == 400 and "empty" in payload["error"]


def test_reindex_provenance_and_learn(server):
    url, vault = server
    status, report = call(url, "index", method="POST", body={})
    assert status == 200 and "orgs/aquasense.md" in report["updated"]
    status, payload = call(url, "provenance?path=orgs/aquasense.md")
    assert status == 200 and payload["triples"] and all("start" in t for t in payload["triples"])
    assert call(url, "provenance?path=nope.md")[0] == 400
    body = {"title": "Buoy drift", "body": "Buoy B7 drifted north in April after the storm.", "sources": ["index.md"]}
    status, payload = call(url, "learn", method="POST", body=body)
    assert status == 200 and payload["path"] == "learned/buoy-drift.md"
    status, payload = call(url, "learn", method="POST", body={**body, "title": "Buoy drift again"})
    assert status == 409 and "learned/buoy-drift.md" in payload["error"]


def test_oversized_deep_or_mistyped_bodies_are_one_clear_400(server):
    url, vault = server
    request = urllib.request.Request(f"{url}/engram/learn", method="POST", data=b"[" * 100_000 + b"]" * 100_000)
    request.add_header("Authorization", f"token {TOKEN}")
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=120)
    assert info.value.code == 400 and "nested more than" in json.loads(info.value.read())["error"]
    big = {"title": "Huge", "body": "word " * 600_000, "sources": ["index.md"]}
    status, payload = call(url, "learn", method="POST", body=big)
    assert status == 400 and "bytes of JSON" in payload["error"]
    status, payload = call(url, "learn", method="POST", body={"title": {"x": 1}, "body": "b", "sources": ["index.md"]})
    assert status == 400 and "expected" in payload["error"]
    assert not (vault / "learned" / "huge.md").exists()
    assert "Traceback" not in (vault.parent / "jupyter-server.log").read_text()


def test_background_index_reports_progress(server):
    import time

    url, vault = server
    for i in range(5):
        (vault / "bulk").mkdir(exist_ok=True)
        (vault / "bulk" / f"b{i}.md").write_text(f"# B{i}\n\nKofi Mensah sampled station S{i}.\n")
    status, state = call(url, "index?background=1", method="POST", body={})
    assert status == 202 and state["running"]
    deadline = time.monotonic() + 120
    while True:
        status, state = call(url, "index")
        if not state["running"] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert state["report"] is not None and state["error"] is None
    assert len([p for p in state["report"]["added"] if p.startswith("bulk/")]) == 5
    assert state["stage"] == "matrices" and state["done"] == state["total"]  # the last stage: the walk, loaded for searches


WRITER = """
import sys
from pathlib import Path
from engram_lab.engine import Engine
vault = Path(sys.argv[1])
engine = Engine(vault)
for i in range(6):
    (vault / "other-process").mkdir(exist_ok=True)
    (vault / "other-process" / f"n{i}.md").write_text(f"# N{i}\\n\\nPriya Raman checked station S{i}.\\n")
    engine.index(progress=False)
"""


def test_a_kernel_writing_at_the_same_time_is_neither_locked_out_nor_corrupted(server):
    url, vault = server
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(vault)], stderr=subprocess.PIPE, text=True)
    failures: list[object] = []

    def poll():
        while writer.poll() is None:
            for path in ("notes", "search?q=Priya%20Raman%20station&k=3&mode=keyword", "status"):
                status, payload = call(url, path)
                if status != 200:
                    failures.append((path, status, payload))
            status, payload = call(url, "index", method="POST", body={})
            if status != 200:
                failures.append(("index", status, payload))

    thread = threading.Thread(target=poll)
    thread.start()
    _, err = writer.communicate(timeout=300)
    thread.join()
    assert writer.returncode == 0, err
    assert not failures, failures[:3]
    status, payload = call(url, "notes")
    paths = {n["path"]: n["status"] for n in payload["notes"]}
    assert all(paths.get(f"other-process/n{i}.md") == "indexed" for i in range(6))
