"""Decode external text files, which unlike notes arrive in whatever encoding their tool used."""

from __future__ import annotations

import codecs

from engram_lab.errors import IngestError


def decode_external_text(data: bytes, name: str) -> str:
    """UTF-8 (with or without BOM), UTF-16 with BOM, else Windows-1252; binary is refused."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="strict")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise IngestError(f"{name}: broken UTF-16 text: {exc.reason}") from None
    if b"\x00" in data[:8192]:
        raise IngestError(f"{name}: binary content (NUL bytes), not a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise IngestError(f"{name}: text in an unknown encoding (neither UTF-8 nor Windows-1252); re-save it as UTF-8") from None
