"""Check that a path names a usable vault folder before anything touches it."""

from __future__ import annotations

from pathlib import Path

from engram_lab.errors import VaultError


def require_vault(vault: Path) -> Path:
    """The vault's resolved path; a clear VaultError when it is missing or not a folder."""
    if not vault.exists():
        raise VaultError(f"{vault}: no such folder")
    if not vault.is_dir():
        raise VaultError(f"{vault}: not a folder")
    return vault.resolve()
