"""engram memory: list, add, approve (tainted needs --tainted), retire, edit, export, import; one-line mistakes."""

from __future__ import annotations

import json

import pytest

from engram_lab.cli import main
from engram_lab.procedural.store import MemoryStore


def test_a_person_manages_memory_from_the_command_line(tmp_path, capsys):
    vault = str(tmp_path)
    assert main(["memory", "add", vault, "Keep summaries short.", "--kind", "preference"]) == 0
    pending = MemoryStore(tmp_path).add("practice", "Cite spans.", author="agent:m", source="turn", status="pending",
                                        tainted="vault:a.md#0-4")
    assert main(["memory", "list", vault]) == 0
    out = capsys.readouterr().out
    assert "Keep summaries short." in out and "TAINTED (read: vault:a.md#0-4)" in out
    assert main(["memory", "approve", vault, pending.id]) == 2
    assert "--tainted" in capsys.readouterr().err
    assert main(["memory", "approve", vault, pending.id, "--tainted"]) == 0
    assert main(["memory", "edit", vault, pending.id, "--text", "Cite notes by span."]) == 0
    assert main(["memory", "retire", vault, pending.id]) == 0
    assert main(["memory", "list", vault, "--status", "retired", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out.split("\n", 3)[-1])
    assert [(r["text"], r["status"]) for r in rows] == [("Cite notes by span.", "retired")]
    assert main(["memory", "export", vault, str(tmp_path / "m.json")]) == 0
    other = tmp_path / "other"
    other.mkdir()
    assert main(["memory", "import", str(other), str(tmp_path / "m.json")]) == 0
    assert len(MemoryStore(other).entries()) == 2


@pytest.mark.parametrize("argv, problem", [
    (["memory", "approve", "{v}", "nope"], "no memory entry 'nope'"),
    (["memory", "add", "{v}", "   "], "text must be a non-empty string"),
    (["memory", "edit", "{v}", "m1"], "no memory entry"),
    (["memory", "import", "{v}", "{v}/missing.json"], "cannot read"),
    (["memory", "list", "{v}/nowhere"], "no such folder"),
])
def test_mistakes_are_one_line_and_exit_2(tmp_path, capsys, argv, problem):
    assert main([a.format(v=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("engram: error: ") and problem in err and err.count("\n") == 1 and "Traceback" not in err
