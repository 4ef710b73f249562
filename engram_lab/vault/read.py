"""Read one note's bytes safely and turn them into text, or say exactly why not."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from engram_lab.errors import DocumentError
from engram_lab.vault.safe_open import hard_link_problem, open_in_vault

_BINARY_SNIFF = 8192


@dataclass(frozen=True)
class NoteBytes:
    """The raw content of a note as read, with its hash (the identity of its content)."""

    data: bytes
    content_hash: str


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_note_bytes(root: Path, rel_path: str, max_bytes: int, *, allow_hard_links: bool = False) -> NoteBytes:
    """Read the note at ``root/rel_path`` without following a link at any component (:mod:`.safe_open`), so a note
    or folder swapped for a link after the scan is refused; a file with several hard links is refused too.

    Raises DocumentError naming ``rel_path`` when the file vanished, is a link, too large or unreadable.
    """
    try:
        fd = open_in_vault(root, rel_path)
    except FileNotFoundError:
        raise DocumentError(rel_path, "file disappeared between scan and read") from None
    except OSError as exc:  # LinkRefused too: its strerror says which component is a link
        raise DocumentError(rel_path, f"cannot open: {exc.strerror}") from None
    problem = None if allow_hard_links else hard_link_problem(os.fstat(fd))
    if problem:
        os.close(fd)
        raise DocumentError(rel_path, problem)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise DocumentError(
                rel_path,
                f"note is {size / 1048576:.1f} MB, over the {max_bytes / 1048576:.0f} MB limit "
                "(raise max_note_mb in engram.toml to index it)",
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise DocumentError(rel_path, f"cannot read: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew while we read it
        raise DocumentError(rel_path, f"note grew past the {max_bytes / 1048576:.0f} MB limit while being read")
    return NoteBytes(data, content_hash(data))


def decode_note_text(data: bytes, rel_path: str) -> str:
    """Strict UTF-8 decode; character offsets of every later span index into this string."""
    if not data.strip():
        raise DocumentError(rel_path, "empty file: nothing to index")
    if b"\x00" in data[:_BINARY_SNIFF]:
        raise DocumentError(rel_path, "binary content (NUL bytes) behind a note name; not a text note")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DocumentError(
            rel_path, f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at line {line}); re-save the file as UTF-8"
        ) from None
