"""Two real kernels on one vault at the same time: no lock error, no lost write."""

from __future__ import annotations

import threading

import pytest
from jupyter_client.manager import start_new_kernel

from engram_lab.resolve.service import resolution_state
from engram_lab.sample import copy_sample_vault
from engram_lab.state.db import open_ledger
from engram_lab.state.documents import DocumentTable

WRITER = """
from pathlib import Path
for i in range(6):
    Path({vault!r}, "kernel-a", f"note-{{i}}.md").parent.mkdir(exist_ok=True)
    Path({vault!r}, "kernel-a", f"note-{{i}}.md").write_text(f"# Note {{i}}\\n\\nPriya Raman visited station S{{i}} with Jonas Lindqvist.\\n")
    r = get_ipython().run_line_magic("engram", "index")
    assert "failed" not in r.text.split("indexed")[0], r.text
print("writer done")
"""
READER = """
results = []
for i in range(6):
    results.append(get_ipython().run_line_magic("engram", "search Priya Raman station --mode keyword --k 3"))
    frame = get_ipython().run_cell_magic("engram", "sparql", "SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}")
    assert int(frame["n"][0]) > 0
judged = get_ipython().run_line_magic("engram", 'judge Okafor "Amara Okafor" same')
assert "recorded" in judged.text, judged.text
for r in results:
    assert "engram:" not in r.text, r.text
print("reader done")
"""


def _run(client, code, outputs):
    errors: list[str] = []

    def collect(msg):
        if msg["msg_type"] == "error":
            errors.append("\n".join(msg["content"]["traceback"]))
        elif msg["msg_type"] == "stream":
            outputs.append(msg["content"]["text"])

    reply = client.execute_interactive(code, output_hook=collect, timeout=240)
    if reply["content"]["status"] != "ok" or errors:
        outputs.append("ERROR " + "\n".join(errors))


@pytest.mark.slow
def test_two_kernels_index_search_and_judge_the_same_vault(tmp_path):
    vault = copy_sample_vault(tmp_path / "vault")
    kernels = [start_new_kernel(kernel_name="python3") for _ in range(2)]
    try:
        for _, client in kernels:
            out: list[str] = []
            _run(client, f"%load_ext engram_lab\n%engram open {vault}\n", out)
            assert not any(o.startswith("ERROR") for o in out), out
        out_a: list[str] = []
        _run(kernels[0][1], "%engram index", out_a)
        threads = [threading.Thread(target=_run, args=(kernels[0][1], WRITER.format(vault=str(vault)), out_a)),
                   threading.Thread(target=_run, args=(kernels[1][1], READER, out_b := []))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not any(o.startswith("ERROR") for o in out_a + out_b), (out_a, out_b)
        assert "writer done" in "".join(out_a) and "reader done" in "".join(out_b)
    finally:
        for manager, client in kernels:
            client.stop_channels()
            manager.shutdown_kernel(now=True)
    conn = open_ledger(vault)
    try:
        paths = {row.path: row.status for row in DocumentTable(conn).all()}
    finally:
        conn.close()
    assert all(paths.get(f"kernel-a/note-{i}.md") == "indexed" for i in range(6))  # no lost write
    assert any(d.actor == "user" and d.verdict == "same" for d in resolution_state(vault).judgments.values())
