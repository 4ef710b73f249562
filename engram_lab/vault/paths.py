"""Paths a user names (on the command line, in a request): resolved, then held to the folder they are about.

A prefix test on the text (``learned/../index.md`` starts with ``learned/``) or an
unresolved symlink lets a command act on a file it was never meant for, so the check
is made on the fully resolved path: ``..`` folded and every link followed.
"""

from __future__ import annotations

from pathlib import Path

from engram_lab.errors import EngramError


class OutsideFolderError(EngramError):
    """A given path resolves outside the folder the command works on."""


def resolve_within(folder: Path, given: str | Path, *, base: Path | None = None) -> Path:
    """``given`` (relative to ``base``, default ``folder``) resolved; raises OutsideFolderError unless it lies under ``folder``."""
    root = folder.resolve()
    path = ((base or folder) / given).resolve()
    if path != root and root not in path.parents:
        raise OutsideFolderError(f"{given}: resolves to {path}, outside {root}")
    return path
