"""GET /engram/related on a real Jupyter server: token-protected, reasons per note, mistakes one clear 400."""

from __future__ import annotations

import pytest

from engram_lab.engine import Engine
from engram_lab.sample import copy_sample_vault
from tests.jupyter_process import jupyter
from tests.server.test_api import TOKEN, call


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("related-server")
    vault = copy_sample_vault(root / "vault")
    Engine(vault).index(progress=False)
    with jupyter(root, token=TOKEN, extra=[f"--EngramServer.vault={vault}"]) as url:
        yield url


def test_related_notes_need_the_token(server):
    status, _ = call(server, "related?path=index.md", token=None)
    assert status == 403


def test_related_notes_carry_their_reasons(server):
    status, body = call(server, "related?path=meetings/2026-03-18-sensor-review.md&k=5")
    assert status == 200, body
    assert len(body["related"]) == 5
    first = body["related"][0]
    assert first["path"] and first["title"] and first["score"] > 0
    kinds = {r["kind"] for note in body["related"] for r in note["reasons"]}
    assert {"links to", "linked from", "shared entities"} <= kinds
    assert all(r["detail"] for note in body["related"] for r in note["reasons"])


@pytest.mark.parametrize("query, message", [("related", "expected ?path=NOTE"), ("related?path=nope.md", "not in the retrieval index"),
                                            ("related?path=index.md&k=x", "k must be a whole number")])
def test_mistakes_are_one_clear_400(server, query, message):
    status, body = call(server, query)
    assert status == 400 and message in body["error"]
