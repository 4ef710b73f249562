"""``engram mcp VAULT``: the tool layer as an MCP server (official ``mcp`` SDK), over stdio or streamable HTTP.

The server only translates: ``tools/list`` is :func:`engram_lab.agent.registry.tools_for` (no write tool in
read-only), ``tools/call`` is :func:`~engram_lab.agent.registry.call_tool`, one call at a time in a worker
thread (the engine is not thread-safe). A user mistake comes back as a tool error, one sentence. Over HTTP
the server listens on 127.0.0.1 only and every request must carry ``Authorization: Bearer <token>``.
"""

from __future__ import annotations

import hmac
import json
import secrets
import sys
import threading
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from engram_lab import __version__
from engram_lab.agent.modes import Permission
from engram_lab.agent.registry import call_tool, tools_for
from engram_lab.agent.session import AgentSession
from engram_lab.agent.prompt import conversation_prompt
from engram_lab.errors import EngramError

HOST = "127.0.0.1"
MCP_PATH = "/mcp"


def build_server(session: AgentSession) -> Server[Any]:
    """An MCP server whose tools are the session's, in its permission mode."""
    lock = threading.Lock()

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=t.name, description=t.description, input_schema=t.parameters,
                       annotations=types.ToolAnnotations(read_only_hint=not t.writes,
                                                         destructive_hint=t.writes and session.permission is Permission.ACCEPT_EDITS,
                                                         open_world_hint=False))
            for t in tools_for(session.permission)])

    def run(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        with lock:
            return call_tool(session, name, arguments)

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await anyio.to_thread.run_sync(run, params.name, dict(params.arguments or {}))
        except EngramError as exc:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(exc))], is_error=True)
        text = json.dumps(result, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=result)

    instructions = f"{conversation_prompt(session)}\n\nPermission mode: {session.permission.value}."
    return Server("engram", version=__version__, instructions=instructions, on_list_tools=list_tools, on_call_tool=call)


async def serve_stdio(session: AgentSession) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(session)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class TokenGate:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401 and reaches nothing."""

    def __init__(self, app: Any, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": b"engram mcp: a valid bearer token is required\n"})
                return
        await self.app(scope, receive, send)


def http_app(session: AgentSession, token: str) -> Any:
    return TokenGate(build_server(session).streamable_http_app(streamable_http_path=MCP_PATH, host=HOST), token)


def serve_http(session: AgentSession, port: int, token: str | None) -> None:
    """Serve streamable HTTP at http://127.0.0.1:PORT/mcp until interrupted; prints the URL and token on stderr."""
    import uvicorn

    token = token or secrets.token_urlsafe(24)
    print(f"engram mcp: http://{HOST}:{port}{MCP_PATH} (permission: {session.permission.value}); "
          f"send the header 'Authorization: Bearer {token}'", file=sys.stderr, flush=True)
    uvicorn.run(http_app(session, token), host=HOST, port=port, log_level="warning")
