"""The scan: what counts as a note, what is skipped, and links that must not be followed."""

from __future__ import annotations

import os

import pytest

from engram_lab.vault import scan_vault


def paths(result):
    return [f.rel_path for f in result.files]


def problems(result):
    return {p.rel_path: p for p in result.problems}


def test_notes_and_notebooks_are_found_and_the_rest_skipped(vault, write):
    write("a.md", "a")
    write("sub/b.MD", "b")
    write("nb/x.ipynb", "{}")
    write("readme.txt", "no")
    write(".hidden/c.md", "hidden")
    write(".engram/d.md", "derived")
    write("nb/.ipynb_checkpoints/x-checkpoint.ipynb", "{}")
    write(".dot.md", "hidden file")
    result = scan_vault(vault)
    assert paths(result) == ["a.md", "nb/x.ipynb", "sub/b.MD"]
    assert {f.kind for f in result.files} == {"markdown", "notebook"}
    assert result.problems == []


def test_engramignore_uses_gitignore_syntax(vault, write):
    write(".engramignore", "drafts/\n*.tmp.md\n!keep.tmp.md\n")
    write("drafts/x.md", "x")
    write("a.tmp.md", "x")
    write("keep.tmp.md", "x")
    write("b.md", "x")
    assert paths(scan_vault(vault)) == ["b.md", "keep.tmp.md"]


def test_symlink_loop_is_reported_not_followed(vault, write):
    write("real/a.md", "a")
    os.symlink(vault / "real", vault / "real" / "loop")
    os.symlink("self.md", vault / "self.md")
    result = scan_vault(vault)
    assert paths(result) == ["real/a.md"]
    found = problems(result)
    assert "symlink loop" in found["real/loop"].problem and not found["real/loop"].is_document
    assert "symlink loop" in found["self.md"].problem and found["self.md"].is_document


def test_symlink_outside_the_vault_is_never_read(vault, write, tmp_path):
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "secret.md").write_text("do not read")
    os.symlink(outside / "secret.md", vault / "leak.md")
    os.symlink(outside, vault / "leakdir")
    write("ok.md", "fine")
    result = scan_vault(vault)
    assert paths(result) == ["ok.md"]
    found = problems(result)
    assert "outside the vault" in found["leak.md"].problem and found["leak.md"].is_document
    assert "outside the vault" in found["leakdir"].problem and not found["leakdir"].is_document


def test_symlink_inside_the_vault_is_an_alias_not_a_second_document(vault, write):
    write("a.md", "a")
    os.symlink("a.md", vault / "alias.md")
    result = scan_vault(vault)
    assert paths(result) == ["a.md"] and result.problems == []


def test_two_notes_differing_only_in_case(vault, write):
    write("Note.md", "one")
    write("note.md", "two")
    if len(list(vault.iterdir())) < 2:
        pytest.skip("case-insensitive file system")
    result = scan_vault(vault)
    assert paths(result) == ["Note.md"]
    problem = problems(result)["note.md"]
    assert problem.is_document and "differs only in case from 'Note.md'" in problem.problem


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_unreadable_folder_is_reported(vault, write):
    write("locked/a.md", "a")
    os.chmod(vault / "locked", 0)
    try:
        result = scan_vault(vault)
    finally:
        os.chmod(vault / "locked", 0o755)
    assert "cannot list folder" in problems(result)["locked"].problem


def test_note_kind_reads_the_suffix_as_splitext_does():
    """The suffix is taken without ``os.path.splitext`` (0.2 s of a 100,000-note scan); it must read file names (the
    scan passes ``DirEntry.name``, never a path) alike: leading dots are part of the stem, a trailing dot is an empty
    suffix, case does not matter."""
    import random

    from engram_lab.vault.scan import NOTE_SUFFIXES, note_kind

    rng = random.Random(7)
    names = [".md", "..md", "a..md", "a.md.", "A.MD", "x.IpYnB", "a.b.md", ". .md", "a.mdx", "é.md"]
    names += ["".join(rng.choice(".mdipynbMDx_ ") for _ in range(rng.randint(1, 8))) for _ in range(20000)]
    for name in names:
        assert note_kind(name) == NOTE_SUFFIXES.get(os.path.splitext(name)[1].lower()), name
