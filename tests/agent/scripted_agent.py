"""A stand-in agent model that follows the conversation it is sent, for any vault: search the question, read
the top note, propose an edit to its first sentence, then answer citing the passage. Served by
:class:`tests.extract.chat_server.ChatServer` (set as its ``fallback``), so it goes through the real openai client."""

from __future__ import annotations

import json
import re
from typing import Any

from engram_lab.agent.wrap import unescape_content
from tests.extract.chat_server import Behaviour, call_tools, reply

_WRAPPED = re.compile(r'<external_content source="[^"]*">(.*?)</external_content>', re.S)
EDIT_MARK = " (checked by the agent)"


def _first_sentence(wrapped: str) -> str:
    """The first body line of a note as read_note returned it (frontmatter, headings and blanks skipped)."""
    text = unescape_content(_WRAPPED.search(wrapped).group(1))  # type: ignore[union-attr]
    body = text.split("\n---", 1)[1] if text.startswith("---") else text
    line = next(line for line in body.splitlines() if line.strip() and not line.startswith(("#", "---")))
    return line.split(". ")[0]


def next_reply(request: dict[str, Any]) -> Behaviour:
    messages = request["messages"]
    question = next(m["content"] for m in messages if m["role"] == "user")
    results = [json.loads(m["content"]) for m in messages if m["role"] == "tool"]
    if not results:
        return call_tools(("search", {"query": question, "k": 3, "mode": "keyword"}))
    hits = results[0].get("results") or []
    if not hits:
        return reply("The vault does not say.")
    top = hits[0]
    if len(results) == 1:
        return call_tools(("read_note", {"path": top["path"]}))
    if len(results) == 2:
        old = _first_sentence(results[1]["text"])
        return call_tools(("propose_edit", {"path": top["path"], "old_text": old, "new_text": old + EDIT_MARK,
                                            "why": "mark the sentence the answer rests on as checked"}))
    start, end = top["span"] or (0, 0)
    return reply(f"{_first_sentence(top['text'])} [vault:{top['path']}#{start}-{end}]")
