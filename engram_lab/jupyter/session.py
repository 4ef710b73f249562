"""Which vault a kernel works on: ``%engram open PATH``, else $ENGRAM_VAULT, else the notebook's folder."""

from __future__ import annotations

import os
import re
from pathlib import Path

from engram_lab.engine import Engine
from engram_lab.errors import EngramError

_CLI_HINT = re.compile(r"`engram (\w[\w-]*)[^`]*`")


class Session:
    def __init__(self) -> None:
        self._engine: Engine | None = None
        self.opened = False  # True once %engram open chose the vault (not a default)

    def open(self, path: str | Path) -> Engine:
        self._engine = Engine(Path(path).expanduser())
        self.opened = True
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

    def in_notebook_words(self, message: str) -> str:
        """An engine message as a notebook user needs it: the magic to run, not the CLI command, and,
        before any ``%engram open``, which folder was used by default."""
        message = _CLI_HINT.sub(lambda m: f"%engram {m.group(1)}", message)
        if not self.opened and "%engram index" in message:
            message += " (or %engram open PATH to choose another vault than this default)"
        return message
