"""An indexed little vault per test, copied from one indexed once per session (indexing is the slow part)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from engram_lab.agent import AgentSession, Permission
from engram_lab.engine import Engine

NOTES = {
    "sensors.md": "---\ntitle: Sensors\ntags: [field]\n---\n\n# Sensors\n\nThe AquaSense AS-5 replaced the Halden CT-200 "
                  "at every station after drift was found in March.\n\n## Calibration\n\nKofi calibrates every Monday. "
                  "See [[People]].\n",
    "people.md": "# People\n\nPriya Raman leads the data work. #team\n\nHer kit is in [the sensor list](sensors.md).\n",
    "projects/estuary.md": "# Estuary project\n\nThe estuary project uses the [[Sensors]] listed there.\n",
    "sources/original.md": "# Original\n\nAn ingested original, kept byte for byte.\n",
}


@pytest.fixture(scope="session")
def indexed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agent-template") / "vault"
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    Engine(root).index(progress=False)
    return root


@pytest.fixture
def agent_vault(indexed_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "vault"
    shutil.copytree(indexed_template, target, symlinks=True)
    return target


@pytest.fixture
def session_for(agent_vault: Path) -> Callable[[Permission | str], AgentSession]:
    def make(mode: Permission | str) -> AgentSession:
        return AgentSession(agent_vault, mode, actor="test-agent")

    return make
