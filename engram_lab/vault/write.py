"""Write notes into the vault: atomically, never over an existing file, never outside the vault."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import Any

import yaml

from engram_lab.errors import EngramError


def slugify(text: str, fallback: str = "note") -> str:
    """A file-name-safe lower-case slug: 'Sensor Vendor (2026)' -> 'sensor-vendor-2026'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:80].rstrip("-") or fallback


def free_path(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem.suffix``, or ``stem-2.suffix`` and so on when taken (case-insensitively)."""
    taken = {p.name.casefold() for p in folder.iterdir()} if folder.is_dir() else set()
    candidate, n = f"{stem}{suffix}", 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"{stem}-{n}{suffix}"
    return folder / candidate


def inside_vault(vault: Path, path: Path) -> Path:
    """Resolve ``path`` and refuse anything that would land outside ``vault``."""
    resolved = path.resolve()
    root = vault.resolve()
    if resolved != root and root not in resolved.parents:
        raise EngramError(f"{path}: refusing to write outside the vault {root}")
    return resolved


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary file and a rename, so a crash leaves the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def render_note(frontmatter: dict[str, Any], body: str) -> str:
    head = yaml.safe_dump(frontmatter, sort_keys=False, allow_unicode=True, default_flow_style=False).strip()
    return f"---\n{head}\n---\n\n{body.strip()}\n"
