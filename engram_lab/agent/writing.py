"""The write tools. The permission mode decides, here and nowhere else, what a write does:
``ask`` records a pending proposal with its diff; ``accept-edits`` applies it at once with a checkpoint and
re-indexes; ``read-only`` never reaches these functions (the registry refuses first)."""

from __future__ import annotations

from typing import Any

from engram_lab.agent.checkpoints import list_checkpoints
from engram_lab.agent.modes import Permission, PermissionRefused
from engram_lab.agent.proposals import propose
from engram_lab.agent.session import AgentSession
from engram_lab.agent.wrap import wrap
from engram_lab.agent.writes import WriteIntent, create_intent, edit_intent, learn_intent, perform, preview_diff, rewind_intent
from engram_lab.errors import EngramError
from engram_lab.procedural.judge import judge


def submit(session: AgentSession, intent: WriteIntent) -> dict[str, Any]:
    """Propose or apply ``intent`` as the session's mode says."""
    if session.permission is Permission.READ_ONLY:
        raise PermissionRefused("this session is read-only: no write tool is offered")
    session.taint.check_urls({k: v for k, v in intent.payload.items() if k != "old_text"},
                             quoted=str(intent.payload.get("old_text", "")))
    if session.permission is Permission.ASK:
        proposal = propose(session.vault, intent, actor=session.actor)
        return {"status": "pending", "proposal": proposal.id, "path": intent.path,
                "diff": wrap(proposal.diff, intent.path),
                "message": f"proposed; nothing is written until a person approves it (engram approve VAULT {proposal.id})"}
    diff = preview_diff(session.vault, intent)
    checkpoint, path = perform(session.vault, intent, actor=session.actor)
    session.reindex()
    return {"status": "applied", "checkpoint": checkpoint.id, "path": path, "diff": wrap(diff, path),
            "message": f"applied; undo with rewind({checkpoint.id!r})"}


def propose_edit(session: AgentSession, path: object, old_text: object, new_text: object, why: object) -> dict[str, Any]:
    return submit(session, edit_intent(path, old_text, new_text, why))


def create_note(session: AgentSession, path: object, content: object, why: object) -> dict[str, Any]:
    return submit(session, create_intent(path, content, why))


def learn(session: AgentSession, title: object, body: object, sources: object) -> dict[str, Any]:
    if isinstance(body, str) and judge(body).is_strong_preference:
        raise EngramError("not learned: this is a preference about how to work, not knowledge about the world; "
                          "record it with remember(kind, text, source)")
    return submit(session, learn_intent(session.vault, title, body, sources))


def checkpoints(session: AgentSession) -> dict[str, Any]:
    return {"checkpoints": [c.to_json() for c in list_checkpoints(session.vault)]}


def rewind(session: AgentSession, checkpoint: object, force: object = False) -> dict[str, Any]:
    return submit(session, rewind_intent(session.vault, checkpoint, force))
