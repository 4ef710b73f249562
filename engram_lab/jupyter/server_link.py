"""Tell the Jupyter server that started this kernel which vault the notebook opened, so the sidebar and
every link show the same vault as the kernel.

The server is found through its runtime file (``jpserver-<pid>.json``, readable by its user only), matched
by the kernel's parent process; the call carries that file's token like any other API client. No server
(a plain IPython, a headless run) is not an error: the kernel just works on its own.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

TIMEOUT_S = 5.0


def _runtime_dir() -> Path:
    from jupyter_core.paths import jupyter_runtime_dir

    return Path(jupyter_runtime_dir())


def find_server(parent_pid: int | None = None) -> dict[str, Any] | None:
    """The runtime record of the server whose kernel this is (its pid is our parent's), else None."""
    parent_pid = os.getppid() if parent_pid is None else parent_pid
    try:
        files = sorted(_runtime_dir().glob("jpserver-*.json"))
    except OSError:
        return None
    for file in files:
        try:
            info = json.loads(file.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(info, dict) and info.get("pid") == parent_pid and isinstance(info.get("url"), str):
            return info
    return None


def announce_vault(vault: Path, server: dict[str, Any] | None = None) -> str | None:
    """POST the vault to the server's ``/engram/vault``; a one-line note on what happened, None without a server."""
    server = server if server is not None else find_server()
    if server is None:
        return None
    url = server["url"].rstrip("/") + "/engram/vault"
    body = json.dumps({"path": str(vault), "notebook": os.environ.get("JPY_SESSION_NAME")}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    if server.get("token"):
        request.add_header("Authorization", f"token {server['token']}")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S):
            return "the JupyterLab sidebar now shows this vault"
    except urllib.error.HTTPError as exc:
        try:
            reason = json.loads(exc.read()).get("error", exc.reason)
        except ValueError:
            reason = exc.reason
        return f"the sidebar keeps its vault: {reason}"
    except OSError as exc:
        return f"the sidebar keeps its vault: the server did not answer ({exc})"
