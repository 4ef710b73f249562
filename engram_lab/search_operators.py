"""Obsidian-style search operators, applied as filters over ranked results (the retriever only sees the words).

``path:meetings`` (path contains), ``tag:sensors`` (frontmatter or inline tag, ``tag:a`` also matches ``a/b``),
``after:2026-05`` (dated on or after), ``before:2026-06-01`` (dated before), ``"exact phrase"`` (the passage
contains it). A note's date is ``vault.note_date``'s: frontmatter ``date``, a date in the file name, or a dated
line in the note's opening. Values may be quoted.
Kept apart from retrieval so ranking stays one concern; the same grammar is parsed in the sidebar
(labextension/src/operators.ts) to show the filters and highlight the words.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engram_lab.config import load_config
from engram_lab.errors import DocumentError, EngramError
from engram_lab.vault.document import parse_document
from engram_lab.vault.note_date import date_in_file_name, note_date
from engram_lab.vault.safe_open import read_vault_text

OPERATORS = ("path", "tag", "after", "before")
_TOKEN = re.compile(r'(?P<key>[A-Za-z]+):(?:"(?P<qvalue>[^"]*)"|(?P<value>\S*))|"(?P<phrase>[^"]*)"|(?P<word>\S+)')
_DATE = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$")
FETCH_FACTOR, FETCH_MAX = 5, 100  # filtered searches ask the retriever for more, then keep k


class OperatorError(EngramError):
    """An operator value that cannot be used (a bad date, an empty value, nothing left to search for)."""


class Hit(Protocol):
    path: str
    text: str


@dataclass(frozen=True)
class Operators:
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    after: dt.date | None = None
    before: dt.date | None = None
    phrases: tuple[str, ...] = field(default=())

    @property
    def active(self) -> bool:
        return bool(self.paths or self.tags or self.after or self.before or self.phrases)

    def fetch(self, k: int) -> int:
        """How many results to ask the retriever for, so that k may survive the filters."""
        return min(max(k * FETCH_FACTOR, k), max(FETCH_MAX, k)) if self.active else k

    def to_json(self) -> dict[str, Any]:
        return {"path": list(self.paths), "tag": list(self.tags), "after": self.after.isoformat() if self.after else None,
                "before": self.before.isoformat() if self.before else None, "phrases": list(self.phrases)}


def _date(key: str, value: str) -> dt.date:
    """``2026``, ``2026-05`` or ``2026-05-27``: the first day of that period."""
    match = _DATE.match(value)
    try:
        if match:
            return dt.date(int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1))
    except ValueError:
        pass
    raise OperatorError(f"{key}:{value} is not a date; use YYYY, YYYY-MM or YYYY-MM-DD")


def parse(query: str) -> tuple[str, Operators]:
    """Split a query into the words for the retriever and the operators (unknown ``key:value`` stays a word)."""
    words: list[str] = []
    found: dict[str, list[str]] = {"path": [], "tag": [], "after": [], "before": []}
    phrases: list[str] = []
    for m in _TOKEN.finditer(query):
        key = (m.group("key") or "").lower()
        if key in OPERATORS:
            value = m.group("qvalue") if m.group("qvalue") is not None else m.group("value")
            if not value.strip():
                raise OperatorError(f"{key}: needs a value, e.g. {key}:{'meetings' if key == 'path' else 'sensors' if key == 'tag' else '2026-05'}")
            found[key].append(value.strip())
        elif m.group("phrase") is not None:
            if m.group("phrase").strip():
                phrases.append(" ".join(m.group("phrase").split()))
                words.append(phrases[-1])
        else:
            words.append(m.group(0))
    operators = Operators(
        paths=tuple(p.lower().strip("/") for p in found["path"]), tags=tuple(t.lower().lstrip("#") for t in found["tag"]),
        after=max((_date("after", v) for v in found["after"]), default=None),
        before=min((_date("before", v) for v in found["before"]), default=None), phrases=tuple(phrases))
    text = " ".join(words).strip()
    if not text and operators.active:
        raise OperatorError("add words to search for: path:, tag:, after: and before: only narrow the results")
    return text, operators


@dataclass(frozen=True)
class NoteFacts:
    """What the filters need to know about one note."""

    tags: tuple[str, ...]
    date: dt.date | None


def note_facts(vault: Path, path: str, max_bytes: int) -> NoteFacts:
    """Tags and date of a note (``vault.note_date``); an unreadable note has none but the date in its file name."""
    try:
        text = read_vault_text(vault, path, max_bytes)
        doc = parse_document(text, path, "notebook" if path.endswith(".ipynb") else "markdown")
    except (OSError, DocumentError):
        return NoteFacts((), date_in_file_name(path))
    return NoteFacts(tuple(t.lower() for t in doc.tags), note_date(doc))


def _tag_matches(wanted: str, tags: Iterable[str]) -> bool:
    return any(t == wanted or t.startswith(wanted + "/") for t in tags)


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def keeps(operators: Operators, path: str, text: str, facts: NoteFacts) -> bool:
    """Whether one result passes every operator (all must hold, as in Obsidian)."""
    lowered = path.lower()
    if any(p not in lowered for p in operators.paths):
        return False
    if any(not _tag_matches(t, facts.tags) for t in operators.tags):
        return False
    if (operators.after or operators.before) and facts.date is None:
        return False
    if operators.after and facts.date < operators.after:  # type: ignore[operator]
        return False
    if operators.before and facts.date >= operators.before:  # type: ignore[operator]
        return False
    passage = _normal(text)
    return all(_normal(phrase) in passage for phrase in operators.phrases)


def filter_results(vault: Path, results: list[Any], operators: Operators) -> list[Any]:
    """The results that pass, renumbered from 1 (each note's facts read once)."""
    if not operators.active:
        return results
    needs_facts = bool(operators.tags or operators.after or operators.before)
    max_bytes = load_config(vault).max_note_bytes if needs_facts else 0
    facts: dict[str, NoteFacts] = {}
    kept = []
    for r in results:
        if needs_facts and r.path not in facts:
            facts[r.path] = note_facts(vault, r.path, max_bytes)
        if keeps(operators, r.path, r.text, facts.get(r.path, NoteFacts((), None))):
            kept.append(r)
    return [_renumbered(r, i) for i, r in enumerate(kept, 1)]


def _renumbered(result: Any, rank: int) -> Any:
    from dataclasses import replace

    try:
        return replace(result, rank=rank)
    except TypeError:  # not a dataclass: leave it as it is
        return result
