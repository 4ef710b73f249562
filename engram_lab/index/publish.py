"""Swap a freshly written index folder in atomically, so a reader never sees half of one.

Each build goes to a new ``<name>-<token>/`` folder; a one-line ``<name>.current``
pointer file is then replaced with ``os.replace`` (atomic on POSIX), and older
folders are removed. A crash mid-build leaves the previous index in service.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path


def _pointer(base: Path, name: str) -> Path:
    return base / f"{name}.current"


def current_index_dir(base: Path, name: str) -> Path | None:
    """The folder the pointer names, or None when nothing was published yet."""
    try:
        target = _pointer(base, name).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    path = base / target
    return path if target and path.is_dir() else None


def publish_index(base: Path, name: str, write: Callable[[Path], None]) -> Path:
    """Call ``write(folder)`` on a new folder, then point ``name`` at it."""
    base.mkdir(parents=True, exist_ok=True)
    folder = base / f"{name}-{uuid.uuid4().hex[:12]}"
    folder.mkdir()
    try:
        write(folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    tmp = base / f"{name}.current.{os.getpid()}.tmp"
    tmp.write_text(folder.name + "\n", encoding="utf-8")
    os.replace(tmp, _pointer(base, name))
    for old in base.glob(f"{name}-*"):
        if old != folder and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
    return folder
