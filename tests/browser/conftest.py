"""A real JupyterLab on 127.0.0.1 and Debian's chromium driven by Playwright (no browser download).

Skips, saying why, when chromium or Playwright is missing. Screenshots go to ``test-artifacts/``
(or $ENGRAM_TEST_ARTIFACTS) for a person to look at.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("ENGRAM_TEST_ARTIFACTS", ROOT / "test-artifacts"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium)")
    pytest.importorskip("playwright.sync_api")
    jupyter_lab = Path(sys.executable).with_name("jupyter-lab")
    if not jupyter_lab.exists():
        pytest.skip("jupyterlab is not installed in this environment")
    root = tmp_path_factory.mktemp("lab")
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(notebook, root / notebook.name)
    port = _free_port()
    settings = root / ".lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Keep every cell in the DOM (Lab 4 detaches off-screen cells by default), so outputs can be found.
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(root / ".config"), "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(root / ".lab-settings"), "ENGRAM_DEMO_VAULT": str(root / "demo-vault")}
    log = open(root / "lab.log", "w")
    process = subprocess.Popen(
        [str(jupyter_lab), "--no-browser", "--ip", "127.0.0.1", f"--port={port}", "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root",
         f"--ServerApp.root_dir={root}", "--ServerApp.disable_check_xsrf=True", "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                pytest.fail(f"JupyterLab did not start; see {root / 'lab.log'}:\n{(root / 'lab.log').read_text()[-2000:]}")
            time.sleep(0.5)
    yield {"url": url, "root": root}
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


@pytest.fixture(scope="session")
def browser(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()
