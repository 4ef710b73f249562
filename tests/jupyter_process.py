"""Start a real Jupyter server (or JupyterLab) on 127.0.0.1 for tests, and stop it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def jupyter(root: Path, *, app: str = "jupyter-server", token: str = "", env: dict[str, str] | None = None,
            extra: list[str] | None = None, bin_dir: Path | None = None, enable: bool = True) -> Iterator[str]:
    """Yield the base URL of a running server (from ``bin_dir``, default this environment); ``enable``
    turns the engram server extension on by config (off: rely on what the installed package enables)."""
    binary = (bin_dir or Path(sys.executable).parent) / app
    if not binary.exists():
        pytest.skip(f"{app} is not installed in this environment")
    config = root / ".config"
    config.mkdir(parents=True, exist_ok=True)
    # jupyter-server-mcp (a test dependency) is enabled by its install and would take port 3001 in every
    # test server: port 0 lets each pick a free one (published in the runtime folder).
    settings: dict[str, object] = {"MCPExtensionApp": {"mcp_port": 0}}
    if enable:
        settings["ServerApp"] = {"jpserver_extensions": {"engram_lab.server": True}}
    (config / "jupyter_server_config.json").write_text(json.dumps(settings))
    port = free_port()
    environment = {**os.environ, "JUPYTER_CONFIG_DIR": str(config), "JUPYTER_RUNTIME_DIR": str(root / ".runtime"), **(env or {})}
    log_path = root / f"{app}.log"
    log = open(log_path, "w")
    process = subprocess.Popen(
        [str(binary), "--no-browser", "--ip", "127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}",
         "--ServerApp.password=", "--allow-root", f"--ServerApp.root_dir={root}", *(extra or [])],
        env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail(f"{app} did not start:\n{log_path.read_text()[-2000:]}")
                time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
