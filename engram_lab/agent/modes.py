"""Permission modes: what an agent may do to the vault, decided here and never in a prompt."""

from __future__ import annotations

from enum import Enum

from engram_lab.errors import EngramError


class Permission(str, Enum):
    """``read-only``: no write tool is offered; ``ask`` (default): a write becomes a pending proposal a person
    approves or rejects; ``accept-edits``: a write is applied at once, with a checkpoint to rewind it."""

    READ_ONLY = "read-only"
    ASK = "ask"
    ACCEPT_EDITS = "accept-edits"


DEFAULT_PERMISSION = Permission.ASK
PERMISSION_NAMES = tuple(p.value for p in Permission)


class PermissionRefused(EngramError):
    """A tool was called that the session's permission mode does not offer."""


def parse_permission(text: str | Permission) -> Permission:
    """A mode from its name; a clear error naming the choices otherwise."""
    if isinstance(text, Permission):
        return text
    try:
        return Permission(text)
    except ValueError:
        raise EngramError(f"unknown permission mode {text!r}; choose one of {', '.join(PERMISSION_NAMES)}") from None
