"""Jupyter server extension: the HTTP API the JupyterLab sidebar uses, sharing the engine with the kernels.

Enabled by ``jupyter-config/jupyter_server_config.d/engram_lab.json`` (installed with the package).
The first vault comes from configuration (``--EngramServer.vault=PATH``, else $ENGRAM_VAULT, else the
server's root folder); an authenticated ``POST /engram/vault`` (a kernel's ``%engram open``, the file
browser's "Open as engram vault") switches to another folder, which must lie under the server's root.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "engram_lab.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from engram_lab.server.handlers import register

    register(serverapp)


load_jupyter_server_extension = _load_jupyter_server_extension  # older servers look for this name
