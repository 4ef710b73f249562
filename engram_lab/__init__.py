"""engram-lab: a Jupyter-native, document-grounded ontology memory over a Markdown vault."""

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "load_ipython_extension"]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the prebuilt JupyterLab extension lives (``jupyter labextension develop`` links it)."""
    return [{"src": "labextension", "dest": "engram-lab"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "engram_lab.server"}]


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext engram_lab``: register the ``%engram`` magics (IPython is imported only here)."""
    from engram_lab.jupyter import load_ipython_extension as load

    load(ipython)
