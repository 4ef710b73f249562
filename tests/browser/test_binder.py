"""The Binder steps, locally: a fresh venv with binder/requirements.txt, binder/postBuild, binder/start;
JupyterLab starts with both extensions from the install alone, and notebook 01 runs in the browser."""

from __future__ import annotations

import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT
from tests.browser.test_lab_notebook import _run_all, _shot
from tests.jupyter_process import jupyter

pytestmark = pytest.mark.slow
SKIP = shutil.ignore_patterns(".venv", ".git", "node_modules", "lib", "lib-test", ".bench", ".engram", "demo-vault",
                              "test-artifacts", "__pycache__", "*.egg-info", ".pytest_cache")


def test_binder_steps_in_a_fresh_venv(tmp_path, artifacts):
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed (apt-get install -y chromium)")
    pytest.importorskip("playwright.sync_api")
    repo = tmp_path / "repo"
    shutil.copytree(ROOT, repo, ignore=SKIP)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    path_env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(env_dir)}
    path_env.pop("SKIP_JUPYTER_BUILDER", None)  # a real install: the prebuilt extension must be enough
    install = subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
                             cwd=repo, env=path_env, capture_output=True, text=True, timeout=1500)
    assert install.returncode == 0, install.stderr[-3000:]
    listed = subprocess.run([str(bin_dir / "jupyter"), "labextension", "list"], env=path_env, capture_output=True, text=True)
    assert "engram-lab" in listed.stdout + listed.stderr and "enabled" in listed.stdout + listed.stderr
    build = subprocess.run(["bash", "binder/postBuild"], cwd=repo, env=path_env, capture_output=True, text=True, timeout=1200)
    assert build.returncode == 0, build.stderr[-3000:]
    vault = repo / "notebooks" / "demo-vault"
    assert (vault / ".engram" / "ledger.sqlite").exists()

    start_env = {"ENGRAM_VAULT": str(vault), "PATH": path_env["PATH"]}  # what binder/start exports
    settings = repo / ".lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    start_env["JUPYTERLAB_SETTINGS_DIR"] = str(repo / ".lab-settings")
    with jupyter(repo, app="jupyter-lab", env=start_env, bin_dir=bin_dir, enable=False,
                 extra=["--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]) as url:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/lab/tree/notebooks/01-quickstart.ipynb")
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            _run_all(page, artifacts)
            results = page.locator(".engram-view table").first
            results.wait_for(state="attached", timeout=240_000)
            _shot(results, artifacts / "binder-01-search-results.png")
            page.locator(".lm-TabBar-tab", has=page.locator(".jp-engram-icon")).first.click()
            # The sidebar, from the install alone: the vault's notes, as a folder tree whose folders start closed.
            sidebar = page.locator("#engram-sidebar")
            sidebar.locator(".jp-engram-note").first.wait_for(state="attached", timeout=60_000)
            sidebar.locator(".jp-engram-folder-name").first.wait_for(timeout=10_000)
            sidebar.locator(".jp-engram-note:visible").first.wait_for(timeout=10_000)  # index.md, at the vault's root
            page.screenshot(path=str(artifacts / "binder-01-notebook.png"))
            browser.close()
