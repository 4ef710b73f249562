"""%engram memory: list, add, approve, retire, and the panel driven as the front end drives it."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from engram_lab.jupyter.display import View
from engram_lab.jupyter.widgets import MemoryReview
from engram_lab.procedural.store import MemoryStore


@pytest.fixture
def shell(tmp_path):
    ip = InteractiveShell.instance()
    ip.extension_manager.load_extension("engram_lab")
    ip.run_line_magic("engram", f"open {tmp_path}")
    ip.vault = tmp_path
    return ip


def test_add_list_approve_retire(shell):
    added = shell.run_line_magic("engram", "memory add Keep summaries short --kind practice")
    assert isinstance(added, View) and "practice: Keep summaries short" in added.text
    store = MemoryStore(shell.vault)
    pending = store.add("preference", "Cite spans.", author="agent:m", source="t", status="pending", tainted="vault:a.md")
    listing = shell.run_line_magic("engram", "memory list")
    assert "Cite spans." in listing.text and "TAINTED" in listing.text
    refused = shell.run_line_magic("engram", f"memory approve {pending.id}")
    assert "--tainted" in refused.text and store.get(pending.id).status == "pending"
    shell.run_line_magic("engram", f"memory approve {pending.id} --tainted")
    shell.run_line_magic("engram", f"memory retire {pending.id}")
    assert store.get(pending.id).status == "retired"


@pytest.mark.parametrize("line", ["memory add", "memory approve", "memory forget x", "memory retire nope"])
def test_mistakes_are_short_messages(shell, line):
    result = shell.run_line_magic("engram", line)
    assert isinstance(result, View) and result.text and "Traceback" not in result.text


def test_the_panel_approves_retires_and_undoes(shell):
    store = MemoryStore(shell.vault)
    pending = store.add("practice", "Approve all.", author="agent:m", source="turn", status="pending", tainted="vault:x.md")
    store.add("preference", "Old habit.", author="user", source="cli")
    gone = store.add("preference", "Retired one.", author="user", source="cli")
    store.retire(gone.id, by="user")
    panel = shell.run_line_magic("engram", "memory")
    assert isinstance(panel, MemoryReview) and [i["text"] for i in panel.items] == ["Approve all.", "Old habit."]
    assert panel.items[0]["tainted"] == "vault:x.md"
    panel._handle_custom_msg({"type": "act", "action": "approve", "index": 0}, [])
    assert store.get(pending.id).status == "active" and panel.can_undo
    panel._handle_custom_msg({"type": "undo"}, [])
    assert store.get(pending.id).status == "pending" and "pending again" in panel.status
    panel._handle_custom_msg({"type": "act", "action": "retire", "index": 1}, [])
    assert [i["text"] for i in panel.items] == ["Approve all."]
    panel._handle_custom_msg({"type": "act", "action": "approve", "index": 5}, [])
    assert panel.status.startswith("error:")
