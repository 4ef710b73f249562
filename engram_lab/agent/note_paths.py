"""Which files an agent may touch: only ``.md`` notes inside the vault, never derived state, originals,
hidden paths, or anything reached through a link.

Reads go through :func:`engram_lab.vault.read.read_note_bytes` (no link at any component). A write target
must resolve (:func:`engram_lab.vault.paths.resolve_within`, every link followed) to exactly the path as
written, so a link anywhere on the way, even one that stays inside the vault, is refused.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from engram_lab.errors import EngramError
from engram_lab.vault.paths import OutsideFolderError, resolve_within

MAX_PATH_CHARS = 512
_FORBIDDEN_TOP = ("sources",)  # ingested originals, kept byte for byte


class NotePathError(EngramError):
    """A path an agent named is not a note it may read or write."""


def check_note_path(rel_path: object) -> str:
    """The vault-relative POSIX path of a Markdown note an agent may name; NotePathError otherwise."""
    if not isinstance(rel_path, str) or not rel_path.strip():
        raise NotePathError("a note path is required (vault-relative, e.g. 'projects/sensors.md')")
    text = rel_path.strip().replace("\\", "/")
    if len(text) > MAX_PATH_CHARS:
        raise NotePathError(f"path longer than {MAX_PATH_CHARS} characters")
    if "\x00" in text:
        raise NotePathError("path holds a NUL character")
    path = PurePosixPath(text)
    if path.is_absolute():
        raise NotePathError(f"{text}: give a path relative to the vault, not an absolute one")
    parts = path.parts
    if any(p in ("..", ".") for p in parts) or "//" in text:
        raise NotePathError(f"{text}: '..' and '.' are not allowed; name the note by its vault-relative path")
    if any(p.startswith(".") for p in parts):
        raise NotePathError(f"{text}: hidden files and folders (such as .engram/) are not notes")
    if parts[0] in _FORBIDDEN_TOP:
        raise NotePathError(f"{text}: sources/ keeps ingested originals byte for byte; edit the note under ingested/ instead")
    if path.suffix != ".md":
        raise NotePathError(f"{text}: only Markdown notes (.md) can be read or written by an agent")
    return path.as_posix()


def write_target(vault: Path, rel_path: str) -> Path:
    """The absolute path to write ``rel_path`` at, refusing any link on the way (inside the vault or out)."""
    literal = vault.resolve() / rel_path
    try:
        resolved = resolve_within(vault, rel_path)
    except OutsideFolderError:
        raise NotePathError(f"{rel_path}: reached through a link out of the vault; links are not followed") from None
    if resolved != literal:
        raise NotePathError(f"{rel_path}: reached through a link ({resolved.relative_to(vault.resolve())}); links are not followed")
    if literal.exists() and not literal.is_file():
        raise NotePathError(f"{rel_path}: not a file")
    return literal
