"""The extraction prompt. Bump PROMPT_VERSION whenever the wording or the schema changes: it keys the cache."""

from __future__ import annotations

import json

from engram_lab.extract.kinds import CORE_KINDS

PROMPT_VERSION = "1"

SYSTEM = """You extract a knowledge graph from one segment of a note.
Reply with one JSON object and nothing else, of this shape:
{"entities": [{"name": str, "kind": str, "aliases": [str]}],
 "relations": [{"subject": str, "predicate": str, "object": str, "evidence": str, "date": str or null}],
 "statements": [{"kind": "decision" or "claim", "text": str, "date": str or null}]}
Rules:
- kind is one of: {kinds}.
- Names as written in the text; subject and object of a relation are entity names.
- predicate is a short verb phrase ("founded", "capital of", "works at").
- evidence is the exact sentence from the text that states the relation, copied verbatim.
- statements: decisions taken and dated claims, text copied verbatim; date as YYYY-MM-DD when the text gives one.
- Known entities from earlier segments are listed; use those names for pronouns and short names that refer to them.
- Never invent facts that the segment does not state."""


def system_prompt(custom_kinds: tuple[str, ...]) -> str:
    return SYSTEM.replace("{kinds}", ", ".join((*CORE_KINDS, *custom_kinds)))


def user_prompt(title: str, segment_text: str, hints: list[tuple[str, str]]) -> str:
    known = json.dumps([{"name": n, "kind": k} for n, k in hints], ensure_ascii=False)
    return f"Note title: {title}\nKnown entities: {known}\n\nSegment:\n<<<\n{segment_text}\n>>>"
