"""The agent tools as plain functions for Jupyter AI 3, which takes its tools from ``jupyter-server-mcp``.

``jupyter-server-mcp`` runs one MCP server inside the Jupyter server and registers every function named by
the entry-point group ``jupyter_server_mcp.tools`` (``pyproject.toml`` points it at :func:`tool_specs`), so a
JupyterLab user's assistant finds these with no configuration. FastMCP builds each tool's JSON schema from
the function's signature and its description from the docstring: hence the precise hints below and the
docstrings, which are the registry's own descriptions.

Every function only translates: it calls :func:`engram_lab.agent.registry.call_tool` (the one copy of the
tool logic and of the permission check) on the vault the JupyterLab sidebar shows
(:func:`engram_lab.server.vaults.serving`), in the permission mode of that vault's ``[agent] permission``
(default ``ask``: a write becomes a pending proposal). Names carry an ``engram_`` prefix because this MCP
server is shared with other packages' tools (a bare ``search`` would be ambiguous there, or replaced).

No ``from __future__ import annotations`` here: FastMCP and jupyter-server-mcp's wrapper read the
annotations as objects.
"""

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import Field

from engram_lab.agent import reading
from engram_lab.agent.modes import DEFAULT_PERMISSION, Permission, parse_permission
from engram_lab.agent.registry import BY_NAME, call_tool, tools_for
from engram_lab.agent.session import AgentSession
from engram_lab.config import UntrustedVaultError, load_config, read_config
from engram_lab.errors import EngramError
from engram_lab.server.vaults import serving

PREFIX = "engram_"
ACTOR = "jupyter-ai"
Result = dict[str, Any]
F = TypeVar("F", bound=Callable[..., Any])

_sessions: dict[tuple[Path, Permission], AgentSession] = {}
_lock = threading.Lock()  # one call at a time: the engine is not thread-safe (as in engram mcp)


def vault_permission(vault: Path) -> Permission:
    """The vault's ``[agent] permission`` (``ask`` when unset). ``accept-edits`` counts only in a vault the user
    trusts with it (``engram trust``); elsewhere the vault's author cannot waive review, and it is ``ask``."""
    configured = parse_permission(read_config(vault).agent.permission)
    if configured is Permission.ACCEPT_EDITS:
        try:
            load_config(vault)
        except UntrustedVaultError:
            return Permission.ASK
    return configured


def _session() -> AgentSession:
    """A session on the sidebar's current vault, kept per vault and mode: taint then lasts as long as the
    server (an MCP client shows no turns), the safe side, as in ``engram mcp``."""
    vaults = serving()
    engine = vaults.engine  # EngramError "no vault open: run %engram open PATH …" when none is
    permission = vault_permission(engine.vault)
    key = (engine.vault, permission)
    if key not in _sessions:
        _sessions[key] = AgentSession(engine.vault, permission, actor=ACTOR, _engine=engine)
    return _sessions[key]


def _run(name: str, arguments: dict[str, Any]) -> Result:
    with _lock:
        return call_tool(_session(), name, {k: v for k, v in arguments.items() if v is not None})


async def _call(name: str, **arguments: Any) -> Result:
    """Run one registry tool off the server's event loop (a search must not stall JupyterLab); a mistake
    is raised as one sentence, which the MCP server returns as the tool's error."""
    try:
        return await asyncio.to_thread(_run, name, arguments)
    except EngramError as exc:
        raise ToolFailed(str(exc)) from None


try:  # FastMCP reports its own ToolError as the tool's error without logging a traceback for it
    from fastmcp.exceptions import ToolError as _ToolError
except ImportError:  # imported outside jupyter-server-mcp (tests, docs): any exception does
    _ToolError = Exception  # type: ignore[misc,assignment]


class ToolFailed(_ToolError):
    """A tool call the vault refused or could not run: its message is the whole error the model sees."""


def _described(name: str) -> Callable[[F], F]:
    """Give the function the registry's description of tool ``name``, so the model reads one text everywhere."""
    def attach(function: F) -> F:
        assert function.__name__ == PREFIX + name, function.__name__
        function.__doc__ = BY_NAME[name].description
        return function
    return attach


NotePath = Annotated[str, Field(description="vault-relative note path, e.g. 'projects/sensors.md'")]
Why = Annotated[str, Field(description="one sentence for the person reviewing it")]
Mode = Literal["full", "auto", "keyword", "dense", "graph-off", "hipporag2"]


@_described("search")
async def engram_search(query: Annotated[str, Field(description="the question or keywords")],
                        k: Annotated[int, Field(ge=1, le=reading.MAX_K)] = 5, mode: Mode = "full") -> Result:
    return await _call("search", query=query, k=k, mode=mode)


@_described("context")
async def engram_context(query: str) -> Result:
    return await _call("context", query=query)


@_described("read_note")
async def engram_read_note(path: NotePath, start: Annotated[int | None, Field(ge=0)] = None,
                           end: Annotated[int | None, Field(ge=0)] = None) -> Result:
    return await _call("read_note", path=path, start=start, end=end)


@_described("list_notes")
async def engram_list_notes(folder: str | None = None,
                            tag: Annotated[str | None, Field(description="a frontmatter tag, with or without #")] = None) -> Result:
    return await _call("list_notes", folder=folder, tag=tag)


@_described("note_links")
async def engram_note_links(path: NotePath) -> Result:
    return await _call("note_links", path=path)


@_described("entity")
async def engram_entity(name: str) -> Result:
    return await _call("entity", name=name)


@_described("query_graph")
async def engram_query_graph(sparql: str) -> Result:
    return await _call("query_graph", sparql=sparql)


@_described("propose_edit")
async def engram_propose_edit(path: NotePath, old_text: str, new_text: str, why: Why) -> Result:
    return await _call("propose_edit", path=path, old_text=old_text, new_text=new_text, why=why)


@_described("create_note")
async def engram_create_note(path: NotePath, content: str, why: Why) -> Result:
    return await _call("create_note", path=path, content=content, why=why)


@_described("learn")
async def engram_learn(title: str, body: str,
                       sources: Annotated[list[str], Field(min_length=1, description="vault note paths or URLs")]) -> Result:
    return await _call("learn", title=title, body=body, sources=sources)


@_described("remember")
async def engram_remember(kind: Literal["preference", "project", "practice"],
                          text: Annotated[str, Field(description="e.g. 'Keep summaries under 200 words.'")],
                          source: Annotated[str, Field(description="where it came from, e.g. 'user turn' or a note path")]) -> Result:
    return await _call("remember", kind=kind, text=text, source=source)


@_described("checkpoints")
async def engram_checkpoints() -> Result:
    return await _call("checkpoints")


@_described("rewind")
async def engram_rewind(checkpoint: str, force: bool = False) -> Result:
    return await _call("rewind", checkpoint=checkpoint, force=force)


def startup_permission() -> Permission:
    """The mode that decides which tools are listed: the current vault's, else the default. Each call is
    checked again against the vault current then, so switching to a read-only vault refuses writes."""
    try:
        vaults = serving()
        return vault_permission(vaults.current) if vaults.current else DEFAULT_PERMISSION
    except EngramError:
        return DEFAULT_PERMISSION


def tool_specs() -> list[str]:
    """The entry point ``jupyter_server_mcp.tools`` loads: ``module:function`` for every tool the registry
    offers in the server's permission mode (no write tool in read-only)."""
    return [f"{__name__}:{PREFIX}{tool.name}" for tool in tools_for(startup_permission())]
