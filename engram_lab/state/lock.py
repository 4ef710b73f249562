"""One writer at a time per vault, across processes (kernels, the CLI, the Jupyter server).

The Oxigraph store admits one read-write process, so every write to the derived
state (index runs, analysis passes) holds an advisory lock on
``.engram/write.lock`` for its duration. Readers (search, SPARQL) take no lock.
A second writer waits; it gives up with a clear message after ``timeout_s``.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engram_lab.errors import VaultError
from engram_lab.state.db import engram_dir

LOCK_FILE = "write.lock"
_held = threading.local()  # re-entrant within one thread: an index run may call the analysis pass


@contextmanager
def vault_write_lock(vault: Path, timeout_s: float = 120.0) -> Iterator[None]:
    key = str(engram_dir(vault).resolve())
    depth = getattr(_held, key, 0)
    if depth:
        setattr(_held, key, depth + 1)
        try:
            yield
        finally:
            setattr(_held, key, depth)
        return
    if engram_dir(vault).is_symlink():
        raise VaultError(f"{engram_dir(vault)}: is a symlink; not followed (replace it with a folder, or remove it to rebuild)")
    engram_dir(vault).mkdir(exist_ok=True)
    fd = os.open(engram_dir(vault) / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise VaultError(f"{vault}: another process has been writing the index for over {timeout_s:.0f} s; "
                                     "try again when it has finished") from None
                time.sleep(0.05)
        setattr(_held, key, 1)
        try:
            yield
        finally:
            setattr(_held, key, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
