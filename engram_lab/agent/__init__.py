"""The vault as an agent's memory: one tool layer, permission modes, proposals, checkpoints and rewind.

Every surface (the MCP server, the notebook) takes its tools from :mod:`.registry` and calls the engine's
own search, read and write paths through them.
"""

from engram_lab.agent.modes import Permission, PermissionRefused, parse_permission
from engram_lab.agent.registry import TOOLS, ToolSpec, call_tool, tools_for
from engram_lab.agent.session import AgentSession
from engram_lab.agent.wrap import SYSTEM_PROMPT

__all__ = ["AgentSession", "Permission", "PermissionRefused", "SYSTEM_PROMPT", "TOOLS", "ToolSpec", "call_tool",
           "parse_permission", "tools_for"]
