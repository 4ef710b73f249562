"""Open a file by its vault-relative path without following a link at any component.

The scan refuses links, but a folder or a note can be swapped for a symlink
after it; ``O_NOFOLLOW`` on the full path guards only the last component. So
every folder on the way is opened relative to its parent (``openat`` through
``dir_fd``) with ``O_NOFOLLOW | O_DIRECTORY``, and the file itself with
``O_NOFOLLOW``: nothing outside the vault's directory can be reached.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path, PurePosixPath

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
LINK_ERRNOS = frozenset({errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)})


class LinkRefused(OSError):
    """A component of the path is a symlink (or not a folder): the vault's boundary would be crossed."""


def _parts(rel_path: str) -> tuple[str, ...]:
    parts = PurePosixPath(rel_path).parts
    if not parts or PurePosixPath(rel_path).is_absolute() or any(p in ("..", ".", "") for p in parts):
        raise LinkRefused(errno.EINVAL, f"not a path inside the vault: {rel_path!r}")
    return parts


def open_in_vault(root: Path, rel_path: str, flags: int = os.O_RDONLY) -> int:
    """A file descriptor for ``root/rel_path``, refusing a symlink at any component (LinkRefused)."""
    parts = _parts(rel_path)
    dir_fd = os.open(root, os.O_RDONLY | _DIRECTORY)  # the vault folder itself is the user's choice, link or not
    try:
        for part in parts[:-1]:
            try:
                next_fd = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno in LINK_ERRNOS:
                    raise LinkRefused(exc.errno, f"{part}/ in {rel_path} is a link or not a folder; links are not followed") from None
                raise
            os.close(dir_fd)
            dir_fd = next_fd
        try:
            return os.open(parts[-1], flags | _NOFOLLOW, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in LINK_ERRNOS:
                raise LinkRefused(exc.errno, f"{rel_path} is a link; links are not followed") from None
            raise
    finally:
        os.close(dir_fd)


def hard_link_problem(info: os.stat_result) -> str | None:
    """Why a file with other names must not be read: one of them may be outside the vault."""
    if info.st_nlink > 1:
        return (f"has {info.st_nlink} hard links, so its content may live outside the vault; not read "
                "(set [vault] allow_hard_links = true in engram.toml to index it)")
    return None


def read_vault_text(root: Path, rel_path: str, max_bytes: int, *, allow_hard_links: bool = False) -> str:
    """The text of a small vault file (UTF-8, errors replaced), read as :func:`open_in_vault` allows; OSError otherwise."""
    fd = open_in_vault(root, rel_path)
    try:
        info = os.fstat(fd)
        problem = None if allow_hard_links else hard_link_problem(info)
        if problem:
            raise LinkRefused(errno.EMLINK, f"{rel_path} {problem}")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(min(max_bytes, info.st_size + 1)).decode("utf-8", errors="replace")  # no huge buffer
    finally:
        os.close(fd)
