"""Check that a path names a usable vault folder before anything touches it."""

from __future__ import annotations

from pathlib import Path

from engram_lab.errors import VaultError

# What a vault's own files may not be: a link would send derived state outside the vault or read settings from there.
_STATE_DIR = ".engram"
_CONFIG_FILE = "engram.toml"


def require_vault(vault: Path) -> Path:
    """The vault's resolved path; a clear VaultError when it is missing, not a folder, or its state is a link."""
    if not vault.exists():
        raise VaultError(f"{vault}: no such folder")
    if not vault.is_dir():
        raise VaultError(f"{vault}: not a folder")
    root = vault.resolve()
    refuse_linked_state(root)
    return root


def refuse_linked_state(root: Path) -> None:
    """``.engram`` and ``engram.toml`` must be plain entries of the vault: not symlinks, and the file not hard-linked."""
    state = root / _STATE_DIR
    if state.is_symlink():
        raise VaultError(f"{state}: is a symlink; the ledger and store must stay inside the vault, so it is not followed "
                         "(replace it with a folder, or remove it to rebuild)")
    config = root / _CONFIG_FILE
    if config.is_symlink():
        raise VaultError(f"{config}: is a symlink; a vault's settings are read only from a plain file inside it")
    if config.exists() and config.stat().st_nlink > 1:
        raise VaultError(f"{config}: has {config.stat().st_nlink} hard links, so it may be a file outside the vault; "
                         "not read (copy it instead)")
