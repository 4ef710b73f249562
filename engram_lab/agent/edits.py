"""An agent's edit as text: find the quoted passage exactly once, replace it, show the unified diff."""

from __future__ import annotations

import difflib

from engram_lab.agent.checkpoints import StaleEditError
from engram_lab.errors import EngramError
from engram_lab.indexer import LEARNED_DIR
from engram_lab.learn import PENDING, review_status


def replace_once(text: str, old_text: str, new_text: str, path: str) -> str:
    """``text`` with the one occurrence of ``old_text`` replaced; StaleEditError when it is not there
    (the note changed since the agent read it), EngramError when it is ambiguous."""
    if not old_text:
        raise EngramError("old_text is empty: quote the exact passage to replace (create_note makes new notes)")
    count = text.count(old_text)
    if count == 0:
        raise StaleEditError(f"{path}: old_text no longer matches the note (edited meanwhile, or not quoted exactly); "
                             "read the note again and quote the passage as it is now")
    if count > 1:
        raise EngramError(f"{path}: old_text occurs {count} times; quote more of the surrounding text so it names one place")
    return text.replace(old_text, new_text, 1)


def unified_diff(path: str, before: str | None, after: str | None) -> str:
    """The change as a unified diff (``/dev/null`` for a note created or deleted)."""
    lines = difflib.unified_diff((before or "").splitlines(keepends=True), (after or "").splitlines(keepends=True),
                                 fromfile=f"a/{path}" if before is not None else "/dev/null",
                                 tofile=f"b/{path}" if after is not None else "/dev/null")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def check_review_gate(path: str, after: str) -> None:
    """Machine knowledge enters ``learned/`` pending review; an agent never accepts a learned note itself."""
    if path.startswith(LEARNED_DIR) and review_status(after) != PENDING:
        raise EngramError(f"{path}: a note under {LEARNED_DIR} written by an agent must keep status: {PENDING} "
                          "(a person accepts it with engram accept-learned); use the learn tool for new knowledge")
