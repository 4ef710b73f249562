"""``%%engram ask`` in a real IPython shell against a scripted model on 127.0.0.1, and the agent-edits panel
driven the way its buttons drive it: approve writes the note with a checkpoint, rewind restores its bytes."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from engram_lab.agent.checkpoints import list_checkpoints
from engram_lab.agent.proposals import list_proposals
from engram_lab.jupyter.display import View
from engram_lab.jupyter.widgets import AgentEdits
from tests.agent.conftest import agent_vault, indexed_template  # noqa: F401 (the indexed little vault)
from tests.agent.scripted_agent import EDIT_MARK, next_reply
from tests.agent.test_loop import closed_port, configure
from tests.extract.chat_server import ChatServer


@pytest.fixture
def shell(agent_vault):
    ip = InteractiveShell.instance()
    ip.extension_manager.load_extension("engram_lab")
    ip.run_line_magic("engram", f"open {agent_vault}")
    return ip


def ask(shell, question="Who leads the data work?", line=""):
    return shell.run_cell_magic("engram", f"ask {line}".strip(), question)


def test_no_model_configured_is_one_line_pointing_to_search(shell, agent_vault):
    result = ask(shell)
    assert isinstance(result, View) and "\n" not in result.text
    assert result.text.startswith("no agent model configured") and '%engram search "Who leads the data work?"' in result.text


def test_an_untrusted_agent_endpoint_is_refused_before_any_call(shell, agent_vault):
    with ChatServer() as server:
        (agent_vault / "engram.toml").write_text(f'[agent]\nbase_url = "{server.url}"\nmodel = "m"\n')
        result = ask(shell)
    assert result.text.startswith("engram: ") and "engram trust" in result.text and server.requests == []


def test_an_endpoint_that_is_down_is_one_line(shell, agent_vault):
    configure(agent_vault, f"http://127.0.0.1:{closed_port()}/v1")
    result = ask(shell)
    assert isinstance(result, View) and "\n" not in result.text and "cannot reach the agent model" in result.text


def test_ask_proposes_then_the_panel_approves_and_rewinds(shell, agent_vault):
    note = agent_vault / "people.md"
    before = note.read_bytes()
    with ChatServer() as server:
        server.fallback = next_reply
        configure(agent_vault, server.url)
        panel = ask(shell)
    assert isinstance(panel, AgentEdits) and note.read_bytes() == before
    (item,) = panel.items
    assert item["item"] == "proposal" and item["actions"] == ["approve", "reject"] and EDIT_MARK in item["diff"]

    panel._handle_custom_msg({"type": "act", "action": "approve", "index": 0}, [])
    assert panel.status.startswith(f"approved {item['id']}") and EDIT_MARK in note.read_text()
    (checkpoint,) = [i for i in panel.items if i["item"] == "checkpoint"]
    assert list_proposals(agent_vault) == [] and checkpoint["proposal"] == item["id"]

    panel._handle_custom_msg({"type": "act", "action": "rewind", "index": panel.items.index(checkpoint)}, [])
    assert panel.status.startswith(f"rewound {checkpoint['id']}") and note.read_bytes() == before
    assert len(list_checkpoints(agent_vault)) == 2  # the rewind is itself a checkpoint


def test_permission_flag_overrides_the_configured_mode(shell, agent_vault):
    with ChatServer() as server:
        server.fallback = next_reply
        configure(agent_vault, server.url)
        result = ask(shell, line="--permission read-only")
    assert isinstance(result, View) and "refused: propose_edit writes to the vault" in result.text
    assert list_proposals(agent_vault) == []
