"""Which vault a kernel works on: ``%engram open PATH``, else $ENGRAM_VAULT, else the notebook's folder."""

from __future__ import annotations

import os
from pathlib import Path

from engram_lab.engine import Engine
from engram_lab.errors import EngramError


class Session:
    def __init__(self) -> None:
        self._engine: Engine | None = None

    def open(self, path: str | Path) -> Engine:
        self._engine = Engine(Path(path).expanduser())
        return self._engine

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            default = os.environ.get("ENGRAM_VAULT") or Path.cwd()
            try:
                self._engine = Engine(Path(default))
            except EngramError as exc:
                raise EngramError(f"no vault selected ({exc}); use %engram open PATH") from None
        return self._engine
