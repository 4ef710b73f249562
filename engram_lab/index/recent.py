"""What this process last published or read, by folder, so a folder it wrote or loaded is not read again.

After an edit the same process patches an index, publishes it, then searches it (and
patches it again on the next edit); the object it built is exactly what loading the
folder would give. A folder it loaded (a search, a warm start) is kept too: the first
edit after start-up read the whole index back to patch it (at 100,000 notes, one edit
in each run took seconds more than the others). Published folders are never written
again, so the folder's path identifies the contents.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from engram_lab.last_few import LastFew

T = TypeVar("T")

_KEPT = 4  # a keyword and a retrieval index per vault, for a couple of vaults
_RECENT: LastFew[Path, object] = LastFew(_KEPT)


def remember(folder: Path, value: object) -> None:
    _RECENT[folder] = value


def recall(folder: Path, kind: type[T]) -> T | None:
    """The object published to ``folder`` by this process, if it is still kept and of ``kind``."""
    value = _RECENT.get(folder)
    return value if isinstance(value, kind) else None


def forget() -> None:
    """Drop everything kept (tests that must read what was written to disk)."""
    _RECENT.clear()
