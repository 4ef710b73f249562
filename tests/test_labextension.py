"""The JupyterLab extension ships prebuilt in the package, installs with the server extension, and its
TypeScript logic passes its unit tests (run through Node when the extension's dev tools are installed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "engram_lab" / "labextension"


def test_the_prebuilt_extension_is_in_the_package():
    meta = json.loads((BUILT / "package.json").read_text())
    assert meta["name"] == "engram-lab"
    assert list((BUILT / "static").glob("remoteEntry.*.js"))


@pytest.mark.slow
def test_a_wheel_carries_the_lab_and_server_extensions(tmp_path):
    pytest.importorskip("hatch_jupyter_builder")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-w", str(tmp_path), "-q"],
                   check=True, capture_output=True)
    [wheel] = tmp_path.glob("engram_lab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith("data/share/jupyter/labextensions/engram-lab/package.json") for n in names)
    assert any(n.endswith("data/etc/jupyter/jupyter_server_config.d/engram_lab.json") for n in names)
    assert "engram_lab/jupyter/static/activation.js" in names


def test_typescript_unit_tests():
    if shutil.which("node") is None or not (ROOT / "labextension" / "node_modules").is_dir():
        pytest.skip("the extension's Node dev tools are not installed (make labextension installs them)")
    jlpm = Path(sys.executable).with_name("jlpm")
    result = subprocess.run([str(jlpm), "test"], cwd=ROOT / "labextension", capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
