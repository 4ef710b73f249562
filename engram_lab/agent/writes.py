"""An agent's write, from intent to bytes: the same checks whether it is proposed now or applied now.

Three kinds: ``edit`` (replace one quoted passage of a note), ``create`` (a new note, never over one) and
``learn`` (machine knowledge through :func:`engram_lab.learn.learn`: ``learned/``, pending review).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram_lab.agent.checkpoints import (
    Checkpoint, FileChange, apply_changes, current_bytes, get_checkpoint, record_created, rewind, rewind_changes,
)
from engram_lab.agent.edits import check_review_gate, replace_once, unified_diff
from engram_lab.agent.note_paths import check_note_path, write_target
from engram_lab.config import read_config
from engram_lab.errors import EngramError
from engram_lab.indexer import LEARNED_DIR
from engram_lab.learn import PENDING, check_sources, learn
from engram_lab.vault.write import render_note, slugify

MAX_WHY_CHARS = 2000
KINDS = ("edit", "create", "learn", "rewind")


@dataclass(frozen=True)
class WriteIntent:
    kind: str  # edit | create | learn | rewind
    path: str  # vault-relative; for learn, the path it would take now (learn picks a free one when applied)
    payload: dict[str, Any] = field(default_factory=dict)
    why: str = ""


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise EngramError(f"{name} must be a string")
    return value


def _why(why: object) -> str:
    text = _text(why, "why").strip()
    if not text:
        raise EngramError("why is required: say in a sentence why this change is made (a person reviews it)")
    if len(text) > MAX_WHY_CHARS:
        raise EngramError(f"why is longer than {MAX_WHY_CHARS} characters")
    return text


def _limit(vault: Path, text: str, what: str) -> None:
    limit = read_config(vault).max_note_bytes
    size = len(text.encode("utf-8"))
    if size > limit:
        raise EngramError(f"{what} would be {size} bytes, more than max_note_mb ({limit} bytes) allows")


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise EngramError(f"{path}: not valid UTF-8; an agent edits only text notes") from None


def _opt(data: bytes | None, path: str) -> str | None:
    return None if data is None else _decode(data, path)


def edit_intent(path: object, old_text: object, new_text: object, why: object) -> WriteIntent:
    return WriteIntent("edit", check_note_path(path), {"old_text": _text(old_text, "old_text"),
                                                       "new_text": _text(new_text, "new_text")}, _why(why))


def create_intent(path: object, content: object, why: object) -> WriteIntent:
    return WriteIntent("create", check_note_path(path), {"content": _text(content, "content")}, _why(why))


def learn_intent(vault: Path, title: object, body: object, sources: object) -> WriteIntent:
    title_text, body_text = _text(title, "title").strip(), _text(body, "body")
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise EngramError("sources must be a list of vault note paths or URLs")
    if not title_text or not body_text.strip():
        raise EngramError("a learned note needs a title and a body")
    _limit(vault, body_text, "the body")
    cleaned = check_sources(vault, sources)
    return WriteIntent("learn", f"{LEARNED_DIR}{slugify(title_text)}.md",
                       {"title": title_text, "body": body_text, "sources": cleaned}, f"learn: {title_text}"[:MAX_WHY_CHARS])


def rewind_intent(vault: Path, checkpoint_id: object, force: object = False) -> WriteIntent:
    if not isinstance(checkpoint_id, str) or not checkpoint_id.strip():
        raise EngramError("checkpoint must be the id `checkpoints` lists")
    if not isinstance(force, bool):
        raise EngramError("force must be true or false")
    checkpoint = get_checkpoint(vault, checkpoint_id)
    return WriteIntent("rewind", checkpoint.files[0]["path"], {"checkpoint": checkpoint.id, "force": force},
                       f"rewind {checkpoint.id}: {checkpoint.why}"[:MAX_WHY_CHARS])


def changes(vault: Path, intent: WriteIntent) -> tuple[FileChange, str]:
    """The bytes an edit or create would write, checked (paths, size, review gate, staleness), and its diff."""
    target = write_target(vault, intent.path)
    if intent.kind == "edit":
        before = current_bytes(vault, intent.path)
        if before is None:
            raise EngramError(f"{intent.path}: no such note; create_note makes a new one")
        old = _decode(before, intent.path)
        new = replace_once(old, intent.payload["old_text"], intent.payload["new_text"], intent.path)
    elif intent.kind == "create":
        if target.exists():
            raise EngramError(f"{intent.path}: already exists; propose an edit to it instead (notes are never overwritten)")
        old, before, new = None, None, intent.payload["content"]
        if not new.strip():
            raise EngramError("content is empty")
    else:
        raise EngramError(f"unknown write kind {intent.kind!r}")
    _limit(vault, new, intent.path)
    check_review_gate(intent.path, new)
    return FileChange(intent.path, before, new.encode("utf-8")), unified_diff(intent.path, old, new)


def preview_diff(vault: Path, intent: WriteIntent) -> str:
    """What a person reviews: the diff the write would make if applied now."""
    if intent.kind == "rewind":
        found = rewind_changes(vault, get_checkpoint(vault, intent.payload["checkpoint"]), force=intent.payload["force"])
        return "".join(unified_diff(c.path, _opt(c.before, c.path), _opt(c.after, c.path)) for c in found)
    if intent.kind == "learn":
        note = render_note({"title": intent.payload["title"], "status": PENDING, "sources": intent.payload["sources"]},
                           f"# {intent.payload['title']}\n\n{intent.payload['body'].strip()}")
        return unified_diff(intent.path, None, note)
    return changes(vault, intent)[1]


def perform(vault: Path, intent: WriteIntent, *, actor: str, proposal: str | None = None) -> tuple[Checkpoint, str]:
    """Apply the write now, with a checkpoint; returns it and the path written."""
    if intent.kind == "rewind":
        done = rewind(vault, intent.payload["checkpoint"], actor=actor, force=intent.payload["force"], proposal=proposal)
        return done, intent.path
    if intent.kind == "learn":
        result = learn(vault, intent.payload["title"], intent.payload["body"], intent.payload["sources"])
        assert result.path is not None
        return record_created(vault, result.path, actor=actor, why=intent.why, proposal=proposal), result.path
    change, _ = changes(vault, intent)
    return apply_changes(vault, [change], actor=actor, why=intent.why, proposal=proposal), intent.path
