"""The ``remember`` tool: an agent writes procedural memory, never facts, and never past a person.

- a fact about the world is refused with a pointer to ``learn`` (:func:`engram_lab.procedural.judge`);
- ``ask``: the entry is pending until a person approves it (``engram memory approve``);
- ``accept-edits``: active at once, unless the turn has read untrusted content: then pending and tainted,
  whatever the mode, with what was read recorded for the person who reviews it;
- ``read-only``: the registry refuses it (it writes).
"""

from __future__ import annotations

from typing import Any

from engram_lab.agent.modes import Permission, PermissionRefused
from engram_lab.agent.session import AgentSession
from engram_lab.errors import EngramError
from engram_lab.procedural.judge import judge
from engram_lab.procedural.store import MAX_SOURCE_CHARS, MemoryStore, check_kind, check_text


def fact_refusal(text: str) -> str:
    return (f"not remembered: this states a fact about the world, not a way of working ({judge(text).reason}); "
            "record knowledge with learn(title, body, sources), which a person reviews as a note")


def remember(session: AgentSession, kind: object, text: object, source: object) -> dict[str, Any]:
    if session.permission is Permission.READ_ONLY:
        raise PermissionRefused("this session is read-only: no write tool is offered")
    kind_text, body = check_kind(kind), check_text(text)
    where = check_text(source, "source", MAX_SOURCE_CHARS)
    if judge(body).is_fact:
        raise EngramError(fact_refusal(body))
    session.taint.check_urls({"text": body, "source": where})
    tainted = session.taint.describe()
    active = session.permission is Permission.ACCEPT_EDITS and tainted is None
    entry = MemoryStore(session.vault).add(kind_text, body, author=f"agent:{session.actor}", source=where,
                                           status="active" if active else "pending", tainted=tainted)
    if active:
        message = f"remembered as {entry.id}; a person can retire it (engram memory retire VAULT {entry.id})"
    elif tainted:
        message = (f"pending and marked tainted: this turn read untrusted content ({tainted}); a person decides "
                   f"(engram memory approve VAULT {entry.id} --tainted)")
    else:
        message = f"pending until a person approves it (engram memory approve VAULT {entry.id})"
    return {"status": entry.status, "id": entry.id, "tainted": tainted is not None, "message": message}
