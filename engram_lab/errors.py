"""Errors a user can cause and fix. The CLI prints them as one line, never a traceback."""

from __future__ import annotations


class EngramError(Exception):
    """Base of every error that is the user's to fix (bad input, bad path, bad option)."""


class VaultError(EngramError):
    """The vault folder itself is unusable (missing, not a folder, not writable)."""


class DocumentError(EngramError):
    """One document cannot be read or parsed; the run goes on without it.

    The message always names the file, so a list of these is a readable report.
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class IngestError(EngramError):
    """An external file cannot be ingested; nothing was written."""


class DecisionFileError(EngramError):
    """An exported decisions file is malformed."""
