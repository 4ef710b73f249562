"""``engram ingest``: the original goes to ``sources/`` byte-for-byte, a Markdown note beside the notes.

Conversion happens fully in memory first, so a file that cannot be converted
writes nothing at all.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path

from engram_lab.errors import IngestError
from engram_lab.ingest.convert import convert_file
from engram_lab.vault.root import require_vault
from engram_lab.vault.write import free_path, inside_vault, render_note, slugify, write_bytes_atomic

SOURCES_DIR = "sources"
INGESTED_DIR = "ingested"


@dataclass(frozen=True)
class IngestedFile:
    source: str  # vault-relative path of the kept original
    note: str  # vault-relative path of the Markdown conversion
    format: str


def _read_source(path: Path) -> bytes:
    if not path.exists():
        raise IngestError(f"{path}: no such file")
    if not path.is_file():
        raise IngestError(f"{path}: not a regular file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read: {exc.strerror}") from None


def _keep_original(vault: Path, name: str, data: bytes) -> tuple[Path, bool]:
    """Store the original under sources/; an identical earlier copy is reused. Returns (path, created)."""
    folder = vault / SOURCES_DIR
    existing = folder / name
    if existing.is_file() and existing.read_bytes() == data:
        return existing, False
    stem, dot, suffix = name.rpartition(".")
    target = free_path(folder, stem if dot else name, f".{suffix}" if dot else "")
    inside_vault(vault, target)
    write_bytes_atomic(target, data)
    return target, True


def ingest_file(vault: Path, source: Path) -> IngestedFile:
    """Ingest one external file into ``vault``; raises IngestError and writes nothing on failure."""
    vault = require_vault(vault)
    data = _read_source(source)
    conversion = convert_file(data, source.name)
    title = conversion.title or source.stem
    original, created = _keep_original(vault, source.name, data)
    rel_source = original.relative_to(vault).as_posix()
    frontmatter = {
        "title": title,
        "source": rel_source,
        "source_format": conversion.format,
        "source_sha256": hashlib.sha256(data).hexdigest(),
        "ingested_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "kind": "source",
    }
    body = conversion.markdown if conversion.markdown.lstrip().startswith("# ") else f"# {title}\n\n{conversion.markdown}"
    note = free_path(vault / INGESTED_DIR, slugify(title, fallback=slugify(source.stem)), ".md")
    try:
        inside_vault(vault, note)
        write_bytes_atomic(note, render_note(frontmatter, body).encode("utf-8"))
    except BaseException:
        if created:
            original.unlink(missing_ok=True)
        raise
    return IngestedFile(rel_source, note.relative_to(vault).as_posix(), conversion.format)
