"""How an agent turn shows in a notebook: the answer with its citations as links to the note at the span,
the tool calls it made, and what it proposed or applied. Every string from the model or a note is escaped.

A citation of a note the turn never read is shown as text, flagged: the model made it up.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from engram_lab.agent.loop import TurnResult, citations
from engram_lab.jupyter.display import View, note_link


def _answer_html(answer: str, read: list[str], vault: Path) -> str:
    out, at = [], 0
    for c in citations(answer, read):
        out.append(escape(answer[at:c.start]))
        label = answer[c.start:c.end]
        out.append(note_link(vault, c.path, label=label, span=c.span) if c.read
                   else f"{escape(label)} <span class='warn'>(not read in this turn)</span>")
        at = c.end
    out.append(escape(answer[at:]))
    return f"<div style='white-space:pre-wrap'>{''.join(out)}</div>"


def _short(value: Any, limit: int = 60) -> str:
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit - 1] + "…"
    return json.dumps(value, ensure_ascii=False)[:limit + 20]


def _call_line(tool: str, arguments: dict[str, Any], outcome: str) -> str:
    """``tool(arg=…) → outcome``; the text a write would put in a note is in the diff, not here."""
    args = ", ".join(f"{k}={_short(v)}" for k, v in arguments.items() if k not in ("new_text", "content", "body"))
    return f"{tool}({args}) → {outcome}"


def _outcome(result: dict[str, Any] | None, error: str | None) -> str:
    if error is not None:
        return f"refused: {error}"
    assert result is not None
    if result.get("status") == "pending":
        return f"proposal {result['proposal']} waits for review"
    if result.get("status") == "applied":
        return f"applied, checkpoint {result['checkpoint']}"
    return "ok"


def turn_view(turn: TurnResult, vault: Path) -> View:
    """The answer (or why there is none) and one line per tool call."""
    calls = [_call_line(s.tool, s.arguments, _outcome(s.result, s.error)) for s in turn.steps]
    head = turn.answer if turn.answer is not None else f"engram: {turn.error}"
    text = [head] + [f"  {c}" for c in calls]
    html = _answer_html(turn.answer, turn.read, vault) if turn.answer is not None else f"<div class='error'>{escape(head)}</div>"
    if calls:
        html += "<details><summary class='muted'>" + escape(f"{len(calls)} tool call(s)") + "</summary>" + "".join(
            f"<div class='muted'>{escape(c)}</div>" for c in calls) + "</details>"
    return View("\n".join(text), html)
