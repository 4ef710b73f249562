"""Procedural memory: how a person wants to work (preferences, ongoing projects, practices), kept apart from
the notes (what people wrote) and the graph (derived from them), because it is neither: it is not derivable
from notes, and it must never be read as instructions or as facts.

:mod:`.store` keeps the entries, :mod:`.judge` tells a way of working from a fact about the world,
:mod:`.transfer` exports and imports them, :mod:`.prompt` renders active entries for an agent's system prompt.
"""

from engram_lab.procedural.judge import Judgement, judge
from engram_lab.procedural.store import KINDS, STATUSES, MemoryEntry, MemoryStore

__all__ = ["KINDS", "STATUSES", "Judgement", "MemoryEntry", "MemoryStore", "judge"]
