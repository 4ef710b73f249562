"""The bundled sample vault, copied out for demos, notebooks and Binder."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from engram_lab.errors import EngramError


def sample_vault_source() -> Path:
    return Path(str(resources.files("engram_lab") / "sample_vault"))


def copy_sample_vault(dest: Path) -> Path:
    """Copy the sample vault to ``dest``, which must not exist or be empty."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise EngramError(f"{dest}: already exists and is not an empty folder; choose another place")
    shutil.copytree(sample_vault_source(), dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".engram", "__pycache__"))
    return dest
