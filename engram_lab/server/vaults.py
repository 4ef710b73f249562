"""Which vault the sidebar shows: one current vault per server, switched by a kernel's ``%engram open`` or the
file browser's "Open as engram vault", with one engine kept per vault opened (each keeps its loaded index).

A vault must lie under the server's root folder (or be the configured one): JupyterLab opens notes by paths
relative to that root, so a vault outside it could be listed but none of its notes opened.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from engram_lab.engine import Engine
from engram_lab.errors import EngramError


class VaultRegistry:
    def __init__(self, root: Path, configured: Path | None = None) -> None:
        self.root = root.expanduser().resolve()
        self.configured = configured.resolve() if configured else None
        self.current: Path | None = None
        self.notebooks: dict[str, str] = {}  # notebook path (as the server names it) -> vault it opened
        self.jobs: dict[Path, Any] = {}  # one index job per vault (created by the handlers)
        self._engines: dict[Path, Engine] = {}
        self._lock = threading.Lock()

    def resolve(self, given: str) -> Path:
        """A folder named relative to the server root (as the file browser does) or absolutely (as a kernel does)."""
        if not given.strip():
            raise EngramError("name a folder to open as the vault")
        path = Path(given).expanduser()
        path = (path if path.is_absolute() else self.root / path).resolve()
        if path != self.root and self.root not in path.parents and path != self.configured:
            raise EngramError(f"{given}: outside JupyterLab's root folder ({self.root}); its notes could not be opened here")
        return path

    def open(self, given: str, notebook: str | None = None) -> Engine:
        """Make the vault at ``given`` current (a missing or unusable folder is one clear error)."""
        engine = self.engine_for(self.resolve(given))
        with self._lock:
            self.current = engine.vault
            if notebook:
                self.notebooks[notebook] = str(engine.vault)
        return engine

    def engine_for(self, vault: Path) -> Engine:
        with self._lock:
            engine = self._engines.get(vault)
        if engine is None:
            engine = Engine(vault)  # VaultError (an EngramError) names a missing folder or a linked state
            with self._lock:
                engine = self._engines.setdefault(engine.vault, engine)
        return engine

    @property
    def engine(self) -> Engine:
        if self.current is None:
            raise EngramError('no vault open: run %engram open PATH in a notebook, or right-click a folder in the file browser '
                              'and choose "Open as engram vault"')
        return self.engine_for(self.current)

    def root_relative(self, vault: Path) -> str | None:
        """The vault's folder as the file browser names it (None when outside the server root)."""
        return Path(os.path.relpath(vault, self.root)).as_posix() if vault == self.root or self.root in vault.parents else None

    def describe(self, vault: Path | None = None) -> dict[str, Any]:
        """What the sidebar shows of a vault, and which vaults it can switch between."""
        vault = vault or self.current
        with self._lock:
            known = sorted(str(p) for p in self._engines)
        return {"vault": str(vault) if vault else None, "name": vault.name if vault else None,
                "root_relative": self.root_relative(vault) if vault else None, "known": known,
                "notebooks": dict(self.notebooks)}


_SERVING: VaultRegistry | None = None


def publish(registry: VaultRegistry) -> None:
    """Make this server's registry reachable from code that runs in the server process without its web app
    (the tools ``jupyter-server-mcp`` imports by name from an entry point act on the sidebar's vault)."""
    global _SERVING
    _SERVING = registry


def serving() -> VaultRegistry:
    """The registry of the Jupyter server this process runs; one clear error outside one."""
    if _SERVING is None:
        raise EngramError("the engram server extension is not running in this Jupyter server "
                          "(jupyter server extension enable engram_lab.server)")
    return _SERVING
