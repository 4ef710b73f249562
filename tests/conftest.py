"""Shared fixtures: small vaults written file by file, so each test shows its own input."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

# Trust records (engram_lab.trust) of this test run go to a fresh folder, never the user's configuration;
# set at import so session fixtures and the servers they start see it too.
os.environ["ENGRAM_CONFIG_DIR"] = tempfile.mkdtemp(prefix="engram-test-config-")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return root


WriteNote = Callable[..., Path]


@pytest.fixture
def write(vault: Path) -> WriteNote:
    """``write("a/b.md", "text")`` or ``write("x.md", b"bytes")``: creates folders as needed."""

    def _write(rel: str, content: str | bytes) -> Path:
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write


def notebook_json(cells: list[dict[str, object]]) -> str:
    """A minimal nbformat 4.5 notebook with the given cells (``source`` may be str or list)."""
    full = []
    for i, cell in enumerate(cells):
        full.append({"metadata": {}, "id": f"c{i}", **cell} if "id" not in cell else {"metadata": {}, **cell})
        if cell.get("cell_type") == "code":
            full[-1].setdefault("outputs", [])
            full[-1].setdefault("execution_count", None)
    return json.dumps({"cells": full, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def ledger_rows(vault: Path) -> dict[str, object]:
    """The ledger's document rows by path (opened and closed here)."""
    from engram_lab.state import DocumentTable, open_ledger

    conn = open_ledger(vault)
    try:
        return {row.path: row for row in DocumentTable(conn).all()}
    finally:
        conn.close()
