"""One agent turn: the model asks for tools, the registry runs them, until the model answers or the step limit.

No Jupyter and no HTTP here: the model is any :data:`ChatModel` (:func:`engram_lab.agent.chat.openai_chat`
talks to an OpenAI-compatible endpoint), so the loop is tested with a scripted one. Tool calls go through
:func:`~engram_lab.agent.registry.call_tool`, the same permission enforcement as the MCP server; the model is
offered only the tools its mode allows. The system prompt carries, as data, the user's active procedural
memory and the quick ``auto`` context for the question, both already wrapped in ``<external_content>``.
A turn starts from the question alone: earlier turns' tool results are not carried over, so text read then
cannot steer this turn unseen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engram_lab.agent.prompt import conversation_prompt
from engram_lab.agent.registry import call_tool, tools_for
from engram_lab.agent.session import AgentSession
from engram_lab.errors import EngramError

DEFAULT_MAX_STEPS = 8
CITE_HINT = ("Answer from what the tools return. Cite each passage you use by its source, e.g. "
             "[vault:notes/a.md#120-340]; say so when the vault does not hold the answer.")
CONTEXT_LABEL = "Quick context for this question (the 'auto' search: partial and possibly stale; verify with search):"


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it


@dataclass(frozen=True)
class ModelReply:
    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()


ChatModel = Callable[[list[dict[str, Any]], list[dict[str, Any]]], ModelReply]  # (messages, tools) -> reply


class ModelCallError(EngramError):
    """The model could not be asked (endpoint down, timeout, HTTP error): one sentence, no traceback."""


@dataclass(frozen=True)
class Step:
    """One tool call the model made and what came of it: a result, or the one-sentence error it was told."""

    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class TurnResult:
    question: str
    answer: str | None = None
    steps: list[Step] = field(default_factory=list)
    error: str | None = None
    read: list[str] = field(default_factory=list)  # sources the turn read (``vault:PATH#START-END``, ...)

    def written(self, status: str) -> list[dict[str, Any]]:
        """Results of write tools with this status: ``pending`` (proposals) or ``applied`` (checkpoints)."""
        return [s.result for s in self.steps if s.result is not None and s.result.get("status") == status]


def tool_schemas(session: AgentSession) -> list[dict[str, Any]]:
    """The session's tools in the OpenAI ``tools`` form (no write tool in read-only)."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools_for(session.permission)]


def opening_messages(session: AgentSession, question: str) -> list[dict[str, Any]]:
    """System prompt (wrapper meaning, procedural memory, auto context, all as data) and the question."""
    parts = [conversation_prompt(session), CITE_HINT, f"Permission mode: {session.permission.value}."]
    try:
        context = call_tool(session, "context", {"query": question})["context"]
    except EngramError:
        context = ""  # an empty or unindexed vault: the model can still search
    if context:
        parts.append(f"{CONTEXT_LABEL}\n{context}")
    return [{"role": "system", "content": "\n\n".join(parts)}, {"role": "user", "content": question}]


def _run_call(session: AgentSession, call: ToolCall) -> Step:
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return Step(call.name, {}, error=f"{call.name}: the arguments are not valid JSON")
    if not isinstance(arguments, dict):
        return Step(call.name, {}, error=f"{call.name}: the arguments must be a JSON object")
    try:
        return Step(call.name, arguments, result=call_tool(session, call.name, arguments))
    except EngramError as exc:
        return Step(call.name, arguments, error=str(exc))


def _assistant_message(reply: ModelReply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                                 for c in reply.tool_calls]
    return message


def run_turn(session: AgentSession, question: str, model: ChatModel, *, max_steps: int = DEFAULT_MAX_STEPS) -> TurnResult:
    """Ask ``model`` about ``question`` with the vault's tools; a model failure ends the turn with ``error`` set."""
    session.begin_turn()
    turn = TurnResult(question)
    messages = opening_messages(session, question)
    tools = tool_schemas(session)
    for _ in range(max_steps):
        try:
            reply = model(messages, tools)
        except ModelCallError as exc:
            turn.error = str(exc)
            break
        messages.append(_assistant_message(reply))
        if not reply.tool_calls:
            turn.answer = (reply.content or "").strip() or None
            if turn.answer is None:
                turn.error = "the model returned an empty answer"
            break
        for call in reply.tool_calls:
            step = _run_call(session, call)
            turn.steps.append(step)
            content = step.result if step.error is None else {"error": step.error}
            messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(content, ensure_ascii=False)})
    else:
        turn.error = f"stopped after {max_steps} model calls without an answer ([agent] max_steps in engram.toml)"
    turn.read = list(session.taint.sources)
    return turn


_CITATION = re.compile(r"vault:([^\s#\]\[()<>\"'`]+?)(?:#(\d+)-(\d+))?(?=[\s\]\[()<>\"'`,;]|[.:!?](?:\s|$)|$)")


@dataclass(frozen=True)
class Citation:
    start: int  # where ``vault:…`` stands in the answer
    end: int
    path: str
    span: tuple[int, int] | None
    read: bool  # the turn read this note: a citation of anything else is the model's invention


def citations(answer: str, read: list[str]) -> list[Citation]:
    """Each ``vault:PATH#START-END`` in ``answer``, and whether the turn read that note."""
    read_paths = {m.group(1) for m in (_CITATION.match(s) for s in read) if m}
    out = []
    for m in _CITATION.finditer(answer):
        span = (int(m.group(2)), int(m.group(3))) if m.group(2) else None
        out.append(Citation(m.start(), m.end(), m.group(1), span, m.group(1) in read_paths))
    return out
