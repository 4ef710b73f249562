"""Jupyter AI 3 registration: jupyter-server-mcp's entry point finds the engram tools, FastMCP builds schemas
that match the registry's, and the tools run on a real Jupyter server against the sidebar's vault."""

from __future__ import annotations

import importlib.metadata
import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("jupyter_server_mcp", reason="jupyter-server-mcp is a test dependency: make test installs it")

from fastmcp import Client as FastClient  # noqa: E402
from jupyter_server_mcp.mcp_server import MCPServer  # noqa: E402

from engram_lab.agent import jupyter_tools  # noqa: E402
from engram_lab.agent.proposals import list_proposals  # noqa: E402
from engram_lab.agent.registry import TOOLS, tools_for  # noqa: E402
from engram_lab.agent.modes import Permission  # noqa: E402
from engram_lab.server import vaults  # noqa: E402
from tests.jupyter_process import jupyter  # noqa: E402


def _entry_point_specs() -> list[str]:
    (entry,) = [e for e in importlib.metadata.entry_points(group="jupyter_server_mcp.tools") if e.name == "engram"]
    loaded = entry.load()
    return loaded() if callable(loaded) else loaded


def _listed(specs: list[str]) -> dict[str, Any]:
    """The tools as an MCP client sees them after jupyter-server-mcp registered them (its wrapper included)."""
    server = MCPServer(name="test", port=0)
    for spec in specs:
        module, name = spec.split(":")
        assert module == "engram_lab.agent.jupyter_tools"
        server.register_tool(getattr(jupyter_tools, name))

    async def go() -> dict[str, Any]:
        async with FastClient(server.mcp) as client:
            return {t.name: t for t in await client.list_tools()}

    return anyio.run(go)


@pytest.fixture
def serving(monkeypatch: pytest.MonkeyPatch, agent_vault: Path) -> vaults.VaultRegistry:
    """The registry a Jupyter server would publish, on the agent test vault; sessions start afresh."""
    registry = vaults.VaultRegistry(agent_vault.parent)
    registry.open(str(agent_vault))
    monkeypatch.setattr(vaults, "_SERVING", registry)
    monkeypatch.setattr(jupyter_tools, "_sessions", {})
    return registry


def test_entry_point_lists_every_tool_with_the_registry_schema(serving):
    specs = _entry_point_specs()
    assert [s.rsplit(":", 1)[1] for s in specs] == [f"engram_{t.name}" for t in TOOLS]  # ask mode: all of them
    listed = _listed(specs)
    for tool in TOOLS:
        seen = listed[f"engram_{tool.name}"]
        schema = seen.input_schema
        assert set(schema["properties"]) == set(tool.parameters["properties"]), tool.name
        assert sorted(schema.get("required", [])) == sorted(tool.required), tool.name
        assert seen.description == tool.description
        for arg, spec in tool.parameters["properties"].items():
            if "enum" in spec:
                assert schema["properties"][arg]["enum"] == spec["enum"], (tool.name, arg)
            if "default" in spec:
                assert schema["properties"][arg]["default"] == spec["default"], (tool.name, arg)
    assert listed["engram_search"].input_schema["properties"]["k"]["maximum"] == TOOLS[0].parameters["properties"]["k"]["maximum"]


def test_a_read_only_vault_lists_and_runs_no_write_tool(serving, agent_vault):
    (agent_vault / "engram.toml").write_text('[agent]\npermission = "read-only"\n')
    names = {s.rsplit(":", 1)[1] for s in _entry_point_specs()}
    assert names == {f"engram_{t.name}" for t in tools_for(Permission.READ_ONLY)} and "engram_propose_edit" not in names
    with pytest.raises(jupyter_tools.ToolFailed, match="read-only"):  # a call is refused even if a client kept the tool
        anyio.run(lambda: jupyter_tools.engram_create_note("new.md", "# New\n", "test"))
    assert not (agent_vault / "new.md").exists()


def test_no_open_vault_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(vaults, "_SERVING", vaults.VaultRegistry(tmp_path))
    with pytest.raises(jupyter_tools.ToolFailed, match=r"^no vault open: run %engram open PATH"):
        anyio.run(lambda: jupyter_tools.engram_search("anything"))
    monkeypatch.setattr(vaults, "_SERVING", None)
    assert jupyter_tools.tool_specs()  # outside a server: the default mode's tools, and a call says why it fails
    with pytest.raises(jupyter_tools.ToolFailed, match="server extension is not running"):
        anyio.run(lambda: jupyter_tools.engram_checkpoints())


def _mcp_url(runtime: Path, log: Path) -> str:
    """The URL jupyter-server-mcp publishes in the runtime folder once its server is bound."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = sorted(runtime.glob("jpserver-mcp-*.json"))
        if found:
            return json.loads(found[0].read_text())["url"]
        time.sleep(0.3)
    pytest.fail(f"jupyter-server-mcp published no URL:\n{log.read_text()[-3000:]}")


@pytest.mark.slow
def test_tools_run_on_a_real_jupyter_server_in_ask_mode(agent_vault):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    root = agent_vault.parent
    before = (agent_vault / "people.md").read_text()
    with jupyter(root, token="t0ken", extra=[f"--EngramServer.vault={agent_vault}"]):
        url = _mcp_url(root / ".runtime", root / "jupyter-server.log")

        async def go() -> dict[str, Any]:
            async with Client(streamable_http_client(url)) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                hit = await client.call_tool("engram_search", {"query": "AquaSense CT-200", "k": 2, "mode": "keyword"})
                edit = await client.call_tool("engram_propose_edit", {
                    "path": "people.md", "old_text": "leads the data work", "new_text": "leads the field work",
                    "why": "she moved to field work"})
                escape = await client.call_tool("engram_create_note", {"path": "../outside.md", "content": "x", "why": "t"})
                return {"tools": tools, "hit": hit, "edit": edit, "escape": escape}

        seen = anyio.run(go)
    assert {f"engram_{t.name}" for t in TOOLS} <= seen["tools"]
    assert not seen["hit"].is_error
    top = json.loads(seen["hit"].content[0].text)["results"][0]
    assert top["path"] == "sensors.md" and top["text"].startswith('<external_content source="vault:sensors.md#')
    edit = json.loads(seen["edit"].content[0].text)
    assert not seen["edit"].is_error and edit["status"] == "pending"
    assert (agent_vault / "people.md").read_text() == before  # nothing on disk until a person approves
    (pending,) = list_proposals(agent_vault)
    assert pending.intent.path == "people.md" and pending.actor == "jupyter-ai"
    assert seen["escape"].is_error and not (root / "outside.md").exists()
