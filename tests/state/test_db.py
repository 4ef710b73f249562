"""The ledger file: created on first use, migrated, shared by two connections at once."""

from __future__ import annotations

import sqlite3

import pytest

from engram_lab.errors import VaultError
from engram_lab.state.db import LEDGER_FILE, open_ledger, transaction


def test_two_connections_write_without_lock_errors(vault):
    first, second = open_ledger(vault), open_ledger(vault)
    with transaction(first):
        first.execute("INSERT INTO meta VALUES ('a', '1')")
    with transaction(second):
        second.execute("INSERT INTO meta VALUES ('b', '2')")
    assert sorted(r[0] for r in first.execute("SELECT key FROM meta WHERE key != 'ledger_id'")) == ["a", "b"]
    first.close()
    second.close()


def test_failed_transaction_rolls_back(vault):
    conn = open_ledger(vault)
    with pytest.raises(sqlite3.IntegrityError):
        with transaction(conn):
            conn.execute("INSERT INTO meta VALUES ('a', '1')")
            conn.execute("INSERT INTO meta VALUES ('a', '2')")
    assert conn.execute("SELECT COUNT(*) FROM meta WHERE key = 'a'").fetchone()[0] == 0
    conn.close()


def test_newer_schema_is_refused(vault):
    open_ledger(vault).close()
    raw = sqlite3.connect(vault / ".engram" / LEDGER_FILE)
    raw.execute("PRAGMA user_version = 999")
    raw.close()
    with pytest.raises(VaultError, match="newer than this engram-lab"):
        open_ledger(vault)


def test_corrupt_ledger_is_a_clear_error(vault):
    (vault / ".engram").mkdir()
    (vault / ".engram" / LEDGER_FILE).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(VaultError, match="cannot open the ledger"):
        open_ledger(vault)
