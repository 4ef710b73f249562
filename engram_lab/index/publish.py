"""Swap a freshly written index folder in atomically, so a reader never sees half of one.

Each build goes to a new ``<name>-<token>/`` folder; a one-line ``<name>.current``
pointer file is then replaced with ``os.replace`` (atomic on POSIX). A crash
mid-build leaves the previous index in service.

Readers take no lock: one reads the pointer, then opens files in the folder it
names, and a publish may happen in between. So a superseded folder is not
removed at once. Publishing touches the folder it replaces (its retirement
time) and removes only folders untouched for ``GRACE_SECONDS``, far longer than
any load takes; removal first renames the folder to a hidden name (atomic), so
a reader never finds a half-deleted folder under an index name. A build still
being written by a concurrent publisher is recent too, so it is never removed
under its writer.

Past the ``KEEP_RETIRED`` most recently retired folders, a finished one (it holds the ``COMPLETE`` marker, written
before its pointer flipped) goes after ``SHORT_GRACE_SECONDS``, still many times a load: at 100,000 notes every
retired retrieval folder holds ~450 MB of its own (frames, lists, pairs), and twenty edits in ten minutes kept
9 GB. A folder without the marker (a build in progress, or one written before the marker existed) keeps the long
grace.

The removal itself (unlinking ~450 MB of files per retired retrieval folder at 100,000 notes, ~0.1 s each) runs on a
thread of its own, off the edit's path; ``settle_removals`` waits for it.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

GRACE_SECONDS = 600.0
SHORT_GRACE_SECONDS = 120.0  # for finished folders retired before the newest KEEP_RETIRED
KEEP_RETIRED = 2
COMPLETE = ".complete"  # in a folder whose write finished
_REMOVING: set[Path] = set()  # trash folders a removal thread of this process is deleting
_REMOVALS: list[threading.Thread] = []
_LOCK = threading.Lock()


def _pointer(base: Path, name: str) -> Path:
    return base / f"{name}.current"


def _target(base: Path, name: str) -> str | None:
    try:
        return _pointer(base, name).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def current_index_dir(base: Path, name: str) -> Path | None:
    """The folder the pointer names, or None when nothing was published yet."""
    target = _target(base, name)
    if target is None:
        return None
    path = base / target
    return path if path.is_dir() else None


def publish_index(base: Path, name: str, write: Callable[[Path], None]) -> Path:
    """Call ``write(folder)`` on a new folder, then point ``name`` at it."""
    base.mkdir(parents=True, exist_ok=True)
    folder = base / f"{name}-{uuid.uuid4().hex[:12]}"
    folder.mkdir()
    try:
        write(folder)
        (folder / COMPLETE).touch()
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    previous = _target(base, name)
    tmp = base / f"{name}.current.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    tmp.write_text(folder.name + "\n", encoding="utf-8")
    os.replace(tmp, _pointer(base, name))
    if previous and previous != folder.name:
        _touch(base / previous)  # its grace period starts now: a reader may have just resolved it
    remove_expired(base, name, keep={folder.name})
    return folder


def remove_expired(base: Path, name: str, keep: set[str], now: float | None = None) -> list[str]:
    """Remove ``name`` folders (and stray pointer temporaries) untouched for ``GRACE_SECONDS``, or finished ones
    untouched for ``SHORT_GRACE_SECONDS`` beyond the ``KEEP_RETIRED`` most recently touched; never the current one."""
    now = time.time() if now is None else now
    current = _target(base, name)
    removed, trash = [], []
    for old in _expired(base, name, keep | ({current} if current else set()), now):
        try:
            renamed = base / f".trash-{old.name}-{uuid.uuid4().hex[:8]}"
            os.rename(old, renamed)  # gone from its name at once, then deleted at leisure
        except FileNotFoundError:
            continue  # a concurrent publisher removed it
        trash.append(renamed)
        removed.append(old.name)
    trash += base.glob(f".trash-{name}-*")  # left by a process killed while removing; no reader uses these names
    _remove_later(trash)
    for tmp in base.glob(f"{name}.current.*.tmp"):  # a pointer being written now is seconds old, not minutes
        try:
            if now - tmp.stat().st_mtime >= GRACE_SECONDS:
                tmp.unlink()
        except FileNotFoundError:
            continue
    return removed


def _remove_later(folders: list[Path]) -> None:
    """Delete these folders on a thread (not a daemon: a process that exits waits for it, so no trash is left)."""
    with _LOCK:
        folders = [folder for folder in dict.fromkeys(folders) if folder not in _REMOVING]
        if not folders:
            return
        _REMOVING.update(folders)
        _REMOVALS[:] = [thread for thread in _REMOVALS if thread.is_alive()]

    def remove() -> None:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
            with _LOCK:
                _REMOVING.discard(folder)

    thread = threading.Thread(target=remove, name="engram-remove-retired")
    thread.start()
    with _LOCK:
        _REMOVALS.append(thread)


def settle_removals() -> None:
    """Wait until the folders this process is removing are gone."""
    with _LOCK:
        pending = list(_REMOVALS)
    for thread in pending:
        thread.join()


def _expired(base: Path, name: str, keep: set[str], now: float) -> list[Path]:
    """The folders of ``name`` (outside ``keep``) due for removal."""
    aged = []
    for folder in base.glob(f"{name}-*"):
        try:
            if folder.name not in keep and folder.is_dir():
                aged.append((folder, now - folder.stat().st_mtime, (folder / COMPLETE).exists()))
        except FileNotFoundError:
            continue  # a concurrent publisher removed it
    aged.sort(key=lambda item: item[1])  # most recently touched first
    newest = [folder for folder, _, complete in aged if complete][:KEEP_RETIRED]  # retired last: the long grace
    return [folder for folder, age, complete in aged
            if age >= GRACE_SECONDS or (complete and folder not in newest and age >= SHORT_GRACE_SECONDS)]


def _touch(folder: Path) -> None:
    try:
        os.utime(folder)
    except FileNotFoundError:
        pass
