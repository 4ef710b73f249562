"""One vault everywhere: a kernel's %engram open and the file browser switch the sidebar's vault through the
authenticated API; vaults stay under the server root; search operators filter the server's results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram_lab.engine import Engine
from engram_lab.jupyter.server_link import announce_vault, find_server
from engram_lab.jupyter.session import Session
from engram_lab.sample import copy_sample_vault
from tests.jupyter_process import jupyter
from tests.server.test_api import call

TOKEN = "engram-test-token"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("vaults")
    first = copy_sample_vault(root / "first")
    Engine(first).index(progress=False)
    second = root / "projects" / "second"
    second.mkdir(parents=True)
    (second / "buoys.md").write_text("# Buoys\n\nBuoy B7 drifted north in April.\n")
    with jupyter(root, token=TOKEN, extra=[f"--EngramServer.vault={first}"]) as url:
        yield url, root, first, second


def test_switching_vaults_by_api_and_by_a_kernel(server):
    url, root, first, second = server
    status, payload = call(url, "vault")
    assert status == 200 and payload["vault"] == str(first) and payload["root_relative"] == "first"
    # The file browser names folders relative to the root; the sidebar then lists that vault's notes.
    status, payload = call(url, "vault", method="POST", body={"path": "projects/second"})
    assert status == 200 and payload["name"] == "second" and payload["root_relative"] == "projects/second"
    assert [n["path"] for n in call(url, "notes")[1]["notes"]] == ["buoys.md"]
    # A kernel announces its vault with the server's token, as JupyterLab's own clients do.
    told = announce_vault(first, {"url": url + "/", "token": TOKEN})
    assert told == "the JupyterLab sidebar now shows this vault"
    assert call(url, "vault")[1]["vault"] == str(first) and set(call(url, "vault")[1]["known"]) == {str(first), str(second)}
    # Describing another vault (to open a link's note) does not switch.
    assert call(url, f"vault?path={second}")[1]["root_relative"] == "projects/second"
    assert call(url, "vault")[1]["vault"] == str(first)


def test_mistakes_are_one_clear_400(server, tmp_path):
    url, root, first, _ = server
    status, payload = call(url, "vault", method="POST", body={"path": str(tmp_path)})
    assert status == 400 and "outside JupyterLab's root folder" in payload["error"]
    status, payload = call(url, "vault", method="POST", body={"path": "no-such-folder"})
    assert status == 400 and "no such folder" in payload["error"]
    assert call(url, "vault", method="POST", body={"path": 3})[0] == 400
    assert call(url, "vault", method="POST", body={"path": "first"}, token=None)[0] == 403
    told = announce_vault(first, {"url": url, "token": "wrong"})
    assert told is not None and told.startswith("the sidebar keeps its vault")


def test_search_operators_filter_on_the_server(server):
    url, _, first, _ = server
    call(url, "vault", method="POST", body={"path": "first"})
    status, payload = call(url, "search?q=" + "sensor%20CT-200%20path:meetings&k=5&mode=keyword")
    assert status == 200 and payload["results"] and all(r["path"].startswith("meetings/") for r in payload["results"])
    assert payload["operators"]["path"] == ["meetings"] and [r["rank"] for r in payload["results"]] == list(range(1, len(payload["results"]) + 1))
    status, payload = call(url, "search?q=" + "sensor%20after:2026-03%20before:2026-04&k=5&mode=keyword")
    paths = {r["path"] for r in payload["results"]}
    assert status == 200 and "meetings/2026-03-18-sensor-review.md" in paths and "meetings/2026-05-27-midterm.md" not in paths
    status, payload = call(url, "search?q=" + "sensor%20after:2026-99&k=5")
    assert status == 400 and "not a date" in payload["error"]


def test_a_kernel_finds_the_server_that_started_it(tmp_path, monkeypatch):
    (tmp_path / "jpserver-1.json").write_text(json.dumps({"pid": 4242, "url": "http://127.0.0.1:9/", "token": "t"}))
    (tmp_path / "jpserver-2.json").write_text("not json")
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path))
    assert find_server(4242)["token"] == "t" and find_server(1) is None
    assert announce_vault(tmp_path) is None  # no server started this process: nothing to tell, no error


def test_a_notebook_user_is_told_the_magic_not_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    session = Session()
    message = session.in_notebook_words(f"{tmp_path}: not indexed yet; run `engram index {tmp_path}` first")
    assert "`engram" not in message and "%engram index" in message and "%engram open PATH" in message
    session.open(tmp_path)
    assert "%engram open" not in session.in_notebook_words("run `engram index x` first")
