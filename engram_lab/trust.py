"""Which vaults the user trusts to name LLM endpoints and API-key variables: recorded outside every vault.

A vault's ``engram.toml`` is written by whoever wrote the vault. Its endpoint settings
decide where note text is sent and which environment variable's value goes with it as
the API key, so a vault from someone else could send both anywhere. Those settings take
effect only for a vault the user has trusted (``engram trust VAULT``), and only while
they are the ones the user saw: the record pins them, so an edit to the file (a pull, a
copied vault) needs trusting again. The record lives in the user's configuration folder,
never in a vault, where the vault's author could write it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engram_lab.errors import EngramError

CONFIG_DIR_ENV = "ENGRAM_CONFIG_DIR"  # overrides the folder below (tests use a temporary one)
TRUST_FILE = "trusted-vaults.json"
Endpoints = dict[str, dict[str, str]]  # role ("extractor", "resolution", "retrieval") -> base_url, api_key_env


def config_dir() -> Path:
    """``$ENGRAM_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/engram``, else ``~/.config/engram``."""
    if os.environ.get(CONFIG_DIR_ENV):
        return Path(os.environ[CONFIG_DIR_ENV]).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "engram"


def _key(vault: Path) -> str:
    return str(vault.resolve())


def _read() -> dict[str, Any]:
    path = config_dir() / TRUST_FILE
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EngramError(f"{path}: cannot read the trusted vaults: {exc}") from None
    vaults = payload.get("vaults") if isinstance(payload, dict) else None
    return vaults if isinstance(vaults, dict) else {}


def _write(vaults: dict[str, Any]) -> None:
    folder = config_dir()
    path = folder / TRUST_FILE
    tmp = folder / f".{TRUST_FILE}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"vaults": vaults}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise EngramError(f"{path}: cannot record trust: {exc.strerror or exc}") from None


def trusted_endpoints(vault: Path) -> Endpoints | None:
    """The endpoints the user trusted for this vault, or None when it was never trusted."""
    entry = _read().get(_key(vault))
    return entry.get("endpoints") if isinstance(entry, dict) else None


def record_trust(vault: Path, endpoints: Endpoints) -> None:
    vaults = _read()
    vaults[_key(vault)] = {"endpoints": endpoints}
    _write(vaults)


def revoke_trust(vault: Path) -> bool:
    """Forget the vault; False when it was not trusted."""
    vaults = _read()
    if vaults.pop(_key(vault), None) is None:
        return False
    _write(vaults)
    return True


HARD_LINKS = "hard_links"  # not an endpoint, but as much the user's call: a hard-linked note may be any file on the disk
AGENT_EDITS = "agent_edits"  # [agent] permission = "accept-edits": a model's writes land without a person's approval
_SETTINGS = {HARD_LINKS: "read hard-linked notes (a hard link may be a file outside the vault)",
             AGENT_EDITS: "apply an agent's edits without asking (accept-edits)"}


def describe(endpoints: Endpoints) -> str:
    """'send notes to extractor -> http://… (key from $OPENAI_API_KEY); …' for messages."""
    parts = [f"send notes to {role} -> {e['base_url']} (key from ${e['api_key_env']})"
             for role, e in sorted(endpoints.items()) if role not in _SETTINGS]
    parts += [text for role, text in _SETTINGS.items() if role in endpoints]
    return "; ".join(parts)
