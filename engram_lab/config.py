"""Per-vault settings read from an optional ``engram.toml`` at the vault root.

Only a handful of knobs exist; unknown keys are an error so a typo does not
silently fall back to a default.
"""

from __future__ import annotations

import getpass
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from engram_lab.errors import VaultError

CONFIG_FILE = "engram.toml"
DEFAULT_MAX_NOTE_MB = 8.0


@dataclass(frozen=True)
class VaultConfig:
    """Settings of one vault. ``owner`` is the author of notes without an ``author:`` key."""

    owner: str
    max_note_mb: float = DEFAULT_MAX_NOTE_MB

    @property
    def max_note_bytes(self) -> int:
        return int(self.max_note_mb * 1024 * 1024)


def _default_owner() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry in some containers
        return "vault-owner"


def load_config(vault: Path) -> VaultConfig:
    """Read ``engram.toml`` (section ``[vault]``) or return defaults when absent."""
    path = vault / CONFIG_FILE
    if not path.is_file():
        return VaultConfig(owner=_default_owner())
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise VaultError(f"{path}: not valid TOML: {exc}") from None
    section = raw.get("vault", {})
    allowed = {f.name for f in fields(VaultConfig)}
    unknown = sorted(set(section) - allowed)
    if unknown:
        raise VaultError(f"{path}: unknown key(s) in [vault]: {', '.join(unknown)}; known: {', '.join(sorted(allowed))}")
    owner = str(section.get("owner") or _default_owner())
    max_mb = section.get("max_note_mb", DEFAULT_MAX_NOTE_MB)
    if not isinstance(max_mb, (int, float)) or max_mb <= 0:
        raise VaultError(f"{path}: max_note_mb must be a positive number, got {max_mb!r}")
    return VaultConfig(owner=owner, max_note_mb=float(max_mb))
