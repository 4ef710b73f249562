"""A real JupyterLab on 127.0.0.1 and Debian's chromium driven by Playwright (no browser download).

Skips, saying why, when chromium or Playwright is missing. Screenshots go to ``test-artifacts/``
(or $ENGRAM_TEST_ARTIFACTS) for a person to look at.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from engram_lab.config import trust_vault
from engram_lab.engine import Engine
from engram_lab.sample import copy_sample_vault
from tests.extract.chat_server import ChatServer, reply_json
from tests.jupyter_process import jupyter

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("ENGRAM_TEST_ARTIFACTS", ROOT / "test-artifacts"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium)")
    pytest.importorskip("playwright.sync_api")
    root = tmp_path_factory.mktemp("lab")
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(notebook, root / notebook.name)
    settings = root / ".lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Keep every cell in the DOM (Lab 4 detaches off-screen cells by default), so outputs can be found.
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    vault = copy_sample_vault(root / "demo-vault")  # what notebook 01 would create; the sidebar shows it from the start
    Engine(vault).index(progress=False)
    # The optional LLM fact filter, answered by a local stand-in that keeps the first five candidates.
    filter_server = ChatServer()
    filter_server.fallback = lambda request: reply_json({"relevant": [1, 2, 3, 4, 5]})
    (vault / "engram.toml").write_text(f'[retrieval]\nfact_filter = "llm"\nbase_url = "{filter_server.url}"\n'
                                       'model = "stand-in"\nmax_retries = 0\n')
    trust_vault(vault)  # the vault's own endpoint counts once the user trusts it
    env = {"JUPYTERLAB_SETTINGS_DIR": str(root / ".lab-settings"), "ENGRAM_DEMO_VAULT": str(vault)}
    extra = ["--ServerApp.disable_check_xsrf=True", "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             f"--EngramServer.vault={vault}"]
    with filter_server, jupyter(root, app="jupyter-lab", env=env, extra=extra) as url:
        yield {"url": url, "root": root, "filter_requests": filter_server.requests}


@pytest.fixture(scope="session")
def browser(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()
