"""Find the notes of a vault: every ``*.md`` and ``*.ipynb`` below its root.

The scan only stats files; reading is :mod:`engram_lab.vault.read`'s job. It never
follows a link out of the vault, skips hidden folders, ``.engram/``,
``.ipynb_checkpoints/`` and whatever ``.engramignore`` lists (gitignore syntax),
and reports what it could not take as :class:`ScanProblem` rather than raising.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pathspec

from engram_lab.vault.safe_open import hard_link_problem

IGNORE_FILE = ".engramignore"
NOTE_SUFFIXES: dict[str, Literal["markdown", "notebook"]] = {".md": "markdown", ".ipynb": "notebook"}
ALWAYS_SKIPPED_DIRS = frozenset({".engram", ".ipynb_checkpoints", "__pycache__", "node_modules"})


@dataclass(frozen=True)
class VaultFile:
    """A note found by the scan, identified by its vault-relative POSIX path."""

    rel_path: str
    abs_str: str  # kept as text: building 10,000 Path objects costs more than the scan itself
    kind: Literal["markdown", "notebook"]
    size: int
    mtime_ns: int

    @property
    def abs_path(self) -> Path:
        return Path(self.abs_str)


@dataclass(frozen=True)
class ScanProblem:
    """Something the scan skipped. ``is_document`` marks note-named files, which get a failed state row."""

    rel_path: str
    problem: str
    is_document: bool


@dataclass
class ScanResult:
    files: list[VaultFile] = field(default_factory=list)
    problems: list[ScanProblem] = field(default_factory=list)


def note_kind(name: str) -> Literal["markdown", "notebook"] | None:
    """The kind of note a file name (no folder: a ``DirEntry.name``) denotes, or None for files that are not notes
    (``os.path.splitext``'s suffix, taken without it: 0.2 s of every scan at 100,000 notes)."""
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem.strip("."):
        return None  # no suffix, or only leading dots (".md" is a hidden file named "md", as splitext reads it)
    return NOTE_SUFFIXES.get(f".{suffix.lower()}")


def load_ignore_spec(root: Path) -> pathspec.PathSpec | None:
    path = root / IGNORE_FILE
    if not path.is_file() or path.is_symlink():
        return None
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _is_inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root + os.sep)


class _Walker:
    """Depth-first walk with the vault's skip rules; one instance per scan."""

    def __init__(self, root: Path, allow_hard_links: bool) -> None:
        self.root = root
        self.allow_hard_links = allow_hard_links
        self.real_root = os.path.realpath(root)
        self.ignore = load_ignore_spec(root)
        self.result = ScanResult()

    def _ignored(self, rel: str, is_dir: bool) -> bool:
        if self.ignore is None:
            return False
        return self.ignore.match_file(rel + "/" if is_dir else rel)

    def walk(self, directory: str, rel_dir: str) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            self.result.problems.append(ScanProblem(rel_dir or ".", f"cannot list folder: {exc.strerror}", False))
            return
        for entry in entries:
            name = entry.name
            if name[0] == "." or name in ALWAYS_SKIPPED_DIRS:
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            try:
                if entry.is_symlink():
                    self._symlink(entry, rel)
                elif entry.is_dir(follow_symlinks=False):
                    if not self._ignored(rel, True):
                        self.walk(entry.path, rel)
                elif (kind := note_kind(name)) is not None and not self._ignored(rel, False):
                    info = entry.stat(follow_symlinks=False)  # only notes cost a stat call
                    if stat.S_ISREG(info.st_mode):
                        self._file(entry.path, rel, kind, info)
            except FileNotFoundError:
                continue  # vanished while listing: not there, nothing to report
            except OSError as exc:
                self.result.problems.append(ScanProblem(rel, f"cannot stat: {exc.strerror}", note_kind(name) is not None))

    def _file(self, path: str, rel: str, kind: Literal["markdown", "notebook"], info: os.stat_result) -> None:
        problem = None if self.allow_hard_links else hard_link_problem(info)
        if problem:
            self.result.problems.append(ScanProblem(rel, problem, True))
        else:
            self.result.files.append(VaultFile(rel, path, kind, info.st_size, info.st_mtime_ns))

    def _symlink(self, entry: os.DirEntry[str], rel: str) -> None:
        """Links are never followed: one inside the vault is an alias of a note already scanned."""
        is_note = note_kind(entry.name) is not None
        if self._ignored(rel, False):
            return
        try:
            os.stat(entry.path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self.result.problems.append(ScanProblem(rel, "symlink loop: the link resolves back to itself", is_note))
            elif is_note:
                self.result.problems.append(ScanProblem(rel, "broken symlink: its target does not exist", True))
            return
        target = os.path.realpath(entry.path)
        if not _is_inside(target, self.real_root):
            self.result.problems.append(
                ScanProblem(rel, f"symlink points outside the vault ({target}); not read", is_note)
            )
        elif os.path.isdir(target) and _is_inside(os.path.realpath(os.path.dirname(entry.path)), target):
            self.result.problems.append(ScanProblem(rel, "symlink loop: the link points back to an enclosing folder", False))


def _split_case_collisions(result: ScanResult) -> None:
    """Two notes whose paths differ only in case cannot both be linked to; keep the first."""
    first_by_folded: dict[str, str] = {}
    kept: list[VaultFile] = []
    for vf in result.files:
        folded = vf.rel_path.casefold()
        if folded in first_by_folded:
            other = first_by_folded[folded]
            result.problems.append(
                ScanProblem(
                    vf.rel_path,
                    f"path differs only in case from '{other}'; links cannot tell them apart "
                    "and the vault breaks on case-insensitive file systems: rename one",
                    True,
                )
            )
        else:
            first_by_folded[folded] = vf.rel_path
            kept.append(vf)
    result.files = kept


def scan_vault(root: Path, *, allow_hard_links: bool = False) -> ScanResult:
    """List the notes under ``root`` in path order, with the problems met on the way.

    A note with more than one hard link is a problem unless ``allow_hard_links``: its other name may be outside.
    """
    walker = _Walker(root, allow_hard_links)
    walker.walk(str(root), "")
    walker.result.files.sort(key=lambda f: f.rel_path)
    _split_case_collisions(walker.result)
    return walker.result
