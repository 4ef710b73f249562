"""The MCP server, driven by the SDK's own client: in process, over stdio, and over HTTP with a token."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from engram_lab.agent import Permission
from engram_lab.agent.mcp_server import build_server
from engram_lab.agent.registry import TOOLS


async def _exercise(client: Client) -> dict[str, Any]:
    tools = await client.list_tools()
    hit = await client.call_tool("search", {"query": "AquaSense CT-200", "k": 2, "mode": "keyword"})
    edit = await client.call_tool("propose_edit", {"path": "people.md", "old_text": "leads the data work",
                                                   "new_text": "leads the field work", "why": "moved"})
    bad = await client.call_tool("query_graph", {"sparql": "DROP ALL"})
    return {"tools": {t.name: t for t in tools.tools}, "hit": hit, "edit": edit, "bad": bad}


def _check_round_trip(seen: dict[str, Any], vault) -> None:
    assert set(seen["tools"]) == {t.name for t in TOOLS}
    assert seen["tools"]["search"].input_schema["required"] == ["query"]
    top = json.loads(seen["hit"].content[0].text)["results"][0]
    assert top["path"] == "sensors.md" and top["span"] and top["text"].startswith('<external_content source="vault:sensors.md#')
    assert not seen["hit"].is_error
    edit = seen["edit"].structured_content
    assert edit["status"] == "pending" and "data work" in (vault / "people.md").read_text()
    assert seen["bad"].is_error and "update" in seen["bad"].content[0].text


def test_in_process_round_trip(session_for):
    session = session_for(Permission.ASK)

    async def go() -> dict[str, Any]:
        async with Client(build_server(session)) as client:
            return await _exercise(client)

    _check_round_trip(anyio.run(go), session.vault)


@pytest.mark.parametrize("mode", list(Permission), ids=[m.value for m in Permission])
def test_tools_offered_follow_the_permission_mode(session_for, mode):
    async def go() -> set[str]:
        async with Client(build_server(session_for(mode))) as client:
            return {t.name for t in (await client.list_tools()).tools}

    offered = anyio.run(go)
    writes = {t.name for t in TOOLS if t.writes}
    assert (offered & writes == set()) if mode is Permission.READ_ONLY else writes <= offered


def test_read_only_server_refuses_a_write_call(session_for):
    async def go() -> Any:
        async with Client(build_server(session_for(Permission.READ_ONLY))) as client:
            return await client.call_tool("create_note", {"path": "x.md", "content": "# x\n", "why": "w"})

    result = anyio.run(go)
    assert result.is_error and "read-only" in result.content[0].text


def test_stdio_round_trip(agent_vault):
    params = StdioServerParameters(command=sys.executable, args=["-m", "engram_lab.cli", "mcp", str(agent_vault)],
                                   env={**os.environ})

    async def go() -> dict[str, Any]:
        async with Client(params) as client:
            return await _exercise(client)

    _check_round_trip(anyio.run(go), agent_vault)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_http_round_trip_needs_the_token(agent_vault):
    port, token = _free_port(), "test-token-123"
    server = subprocess.Popen([sys.executable, "-m", "engram_lab.cli", "mcp", str(agent_vault), "--http", str(port),
                               "--token", token], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                refused = httpx2.post(url, json={}, timeout=2)
                break
            except httpx2.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read() if server.stderr else ""
                time.sleep(0.2)
        assert refused.status_code == 401

        async def go() -> dict[str, Any]:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                return await _exercise(client)

        _check_round_trip(anyio.run(go), agent_vault)
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_instructions_carry_active_memory_as_data_and_taint_the_session(session_for):
    from engram_lab.procedural.store import MemoryStore

    session = session_for(Permission.ACCEPT_EDITS)
    MemoryStore(session.vault).add("preference", "Answer in French.", author="user", source="cli")

    async def go() -> str:
        async with Client(build_server(session)) as client:
            return client.instructions or ""

    instructions = anyio.run(go)
    assert '<external_content source="procedural-memory">' in instructions and "Answer in French." in instructions
    assert session.taint.tainted  # a remember in this session waits for a person
