"""One agent's connection to one vault: the engine it reads through, its permission mode, its name."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engram_lab.agent.modes import DEFAULT_PERMISSION, Permission, parse_permission
from engram_lab.agent.taint import TurnTaint
from engram_lab.engine import Engine


@dataclass
class AgentSession:
    """``actor`` is recorded on every proposal and checkpoint (e.g. ``mcp:claude-desktop``)."""

    vault: Path
    permission: Permission = DEFAULT_PERMISSION
    actor: str = "agent"
    _engine: Engine | None = field(default=None, repr=False)
    taint: TurnTaint = field(default_factory=TurnTaint, repr=False)

    def __post_init__(self) -> None:
        self.permission = parse_permission(self.permission)
        self._engine = self._engine or Engine(self.vault)
        self.vault = self._engine.vault

    @property
    def engine(self) -> Engine:
        assert self._engine is not None
        return self._engine

    def begin_turn(self) -> None:
        """A new user turn: what earlier turns read no longer taints it, except the conversation's own prompt
        (:func:`engram_lab.agent.prompt.conversation_prompt`), which every turn carries. A client that cannot
        see turns (an MCP server) never calls this, so its taint lasts the whole session: the safe side."""
        prompt_sources = [s for s in self.taint.sources if s == "procedural-memory"]
        self.taint = TurnTaint(prompt_sources)

    def reindex(self) -> None:
        """After an applied write: the changed note is searchable at once."""
        self.engine.index(progress=False)
