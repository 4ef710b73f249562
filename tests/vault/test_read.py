"""Reading a note's bytes: each bad input is a DocumentError naming the file and the problem."""

from __future__ import annotations

import os

import pytest

from engram_lab.errors import DocumentError
from engram_lab.vault.read import decode_note_text, read_note_bytes

MB = 1024 * 1024


def test_reads_and_hashes(vault, write):
    path = write("a.md", "héllo")
    note = read_note_bytes(vault, "a.md", MB)
    assert note.data == "héllo".encode() and len(note.content_hash) == 64
    assert decode_note_text(note.data, "a.md") == "héllo"


def test_oversized_note(vault, write):
    path = write("big.md", b"x" * (20 * MB))
    with pytest.raises(DocumentError, match=r"^big\.md: note is 20\.0 MB, over the 8 MB limit"):
        read_note_bytes(vault, "big.md", 8 * MB)


def test_vanished_file(vault):
    with pytest.raises(DocumentError, match="disappeared between scan and read"):
        read_note_bytes(vault, "gone.md", MB)


def test_symlink_swapped_in_after_scan_is_refused(vault, write, tmp_path):
    (tmp_path / "outside.md").write_text("secret")
    os.symlink(tmp_path / "outside.md", vault / "swapped.md")
    with pytest.raises(DocumentError, match="cannot open"):
        read_note_bytes(vault, "swapped.md", MB)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty file"),
        (b" \n\t\n", "empty file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary content"),
        ("café".encode("latin-1"), r"not valid UTF-8 \(byte 0xe9 at line 1\)"),
        (b"ok\nline two \xff\n", "at line 2"),
    ],
)
def test_undecodable_content(data, message):
    with pytest.raises(DocumentError, match=message):
        decode_note_text(data, "n.md")
