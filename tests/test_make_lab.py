"""`make demo` leaves a venv that also runs the lab, and `make lab` opens notebook 01 on the demo vault.

Checked through `make -n` (what the targets would run, nothing run) and the venv's own `jupyter` (the lab and
server extensions this install registered), so a Makefile edit that drops the lab from the demo fails here.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _dry_run(*args: str) -> str:
    result = subprocess.run(["make", "-n", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.replace("\\\n", " ")  # one line per command, continuations joined


def test_make_lab_opens_notebook_01_on_the_demo_vault():
    # -W: as if pyproject.toml had just changed, so the install step is printed too.
    commands = _dry_run("-W", "pyproject.toml", "lab", "DEMO_VAULT=some-vault")
    vault = str(ROOT / "some-vault")
    [lab] = [line for line in commands.splitlines() if "jupyter lab" in line]
    assert '--LabApp.default_url="/lab/tree/notebooks/01-quickstart.ipynb"' in lab
    assert f'--ServerApp.root_dir="{ROOT}"' in lab, "the vault must lie under the root for the sidebar to open notes"
    assert f'--EngramServer.vault="{vault}"' in lab, "the sidebar must start on the demo vault"
    assert f'ENGRAM_DEMO_VAULT="{vault}"' in lab, "the notebook's kernel must open the same vault"
    assert commands.index('engram index "some-vault"') < commands.index("jupyter lab"), "index before the lab starts"


def test_the_demo_install_includes_jupyterlab():
    commands = _dry_run("-W", "pyproject.toml", "demo")
    assert re.search(r'pip install .*-e "\.\[lab\]"', commands), commands
    extras = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^lab = \["jupyterlab', extras, re.MULTILINE)


def test_this_venvs_jupyter_lists_both_extensions():
    jupyter = Path(sys.executable).with_name("jupyter")
    if not jupyter.exists():
        pytest.skip("JupyterLab is not installed in this venv")
    run = lambda *a: subprocess.run([str(jupyter), *a], capture_output=True, text=True, timeout=120)  # noqa: E731
    labextensions = run("labextension", "list")
    listed = re.sub(r"\x1b\[[0-9;]*m", "", labextensions.stdout + labextensions.stderr)
    assert re.search(r"engram-lab v[\d.]+ enabled OK", listed), listed
    servers = run("server", "extension", "list")
    listed = re.sub(r"\x1b\[[0-9;]*m", "", servers.stdout + servers.stderr)
    assert re.search(r"engram_lab\.server enabled", listed), listed


def test_the_readme_pictures_exist_and_stay_small():
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (ROOT / "README.md").read_text())
    assert "docs/images/lab-sidebar-and-related.png" in pictures and "docs/images/notebook-search-results.png" in pictures
    for picture in [p for p in pictures if "://" not in p]:  # the Binder badge is remote
        path = ROOT / picture
        assert path.is_file(), f"README shows {picture}, which is missing"
        assert path.stat().st_size < 400_000, f"{picture} is {path.stat().st_size} bytes: keep the repository light"
