"""Jupyter surface: ``%load_ext engram_lab`` registers the ``%engram`` magics; panels are anywidgets."""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    from engram_lab.jupyter.magics import EngramMagics

    ipython.register_magics(EngramMagics)
