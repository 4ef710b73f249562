"""The vault write lock: one writer at a time across processes; re-entrant within a thread."""

from __future__ import annotations

import fcntl
import os

import pytest

from engram_lab.errors import VaultError
from engram_lab.state.lock import LOCK_FILE, vault_write_lock


def test_a_second_writer_waits_then_gives_up_with_a_message(vault):
    (vault / ".engram").mkdir()
    fd = os.open(vault / ".engram" / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another open file description: what another process would hold
    try:
        with pytest.raises(VaultError, match="another process"):
            with vault_write_lock(vault, timeout_s=0.2):
                pass
    finally:
        os.close(fd)
    with vault_write_lock(vault, timeout_s=0.2):  # free again
        pass


def test_nested_use_in_one_thread_does_not_deadlock(vault):
    with vault_write_lock(vault, timeout_s=0.2):
        with vault_write_lock(vault, timeout_s=0.2):
            pass
