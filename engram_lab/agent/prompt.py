"""The system prompt a conversation starts with: what the wrapper means, then the user's active procedural
memory as data (:mod:`engram_lab.procedural.prompt`). Showing that block is reading untrusted content: an
entry may have been approved carelessly or imported, so the session's turns are tainted by it."""

from __future__ import annotations

from engram_lab.agent.session import AgentSession
from engram_lab.agent.wrap import SYSTEM_PROMPT
from engram_lab.procedural.prompt import MEMORY_SOURCE, memory_prompt


def conversation_prompt(session: AgentSession) -> str:
    block = memory_prompt(session.vault)
    if block:
        session.taint.read(block, MEMORY_SOURCE)
    return f"{SYSTEM_PROMPT}\n\n{block}" if block else SYSTEM_PROMPT
