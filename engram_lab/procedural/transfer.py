"""Export and import of procedural memory with the decisions people made: like the decision ledger, it is
not derivable from notes, so deleting ``.engram/`` loses it unless it was exported.

Import checks every entry first and writes all of them in one transaction, or none. An entry already here
keeps whichever version was changed last (``updated``).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from engram_lab.errors import EngramError
from engram_lab.procedural.store import KINDS, MAX_SOURCE_CHARS, MAX_TEXT_CHARS, STATUSES, MemoryEntry, MemoryStore

FORMAT = "engram-procedural-memory/1"
MAX_FILE_BYTES = 64 * 1024 * 1024
_FIELDS = {"id": 64, "kind": 16, "text": MAX_TEXT_CHARS, "author": 200, "source": MAX_SOURCE_CHARS, "created": 64,
           "status": 16, "tainted": 2000, "decided_by": 200, "updated": 64}
_OPTIONAL = {"tainted", "decided_by"}


def export_memory(vault: Path, path: Path) -> int:
    entries = MemoryStore(vault).entries()
    data = {"format": FORMAT, "entries": [e.to_json() for e in entries]}
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise EngramError(f"{path}: cannot write: {exc.strerror}") from None
    return len(entries)


def _time(value: str, where: str) -> None:
    try:
        stamp = dt.datetime.fromisoformat(value)
    except ValueError:
        raise EngramError(f"{where}: not an ISO time: {value!r}") from None
    if stamp.tzinfo is None:
        raise EngramError(f"{where}: a time needs a zone (e.g. +00:00): {value!r}")


def _entry(item: Any, where: str) -> MemoryEntry:
    if not isinstance(item, dict):
        raise EngramError(f"{where}: an entry must be an object")
    unknown = sorted(set(item) - set(_FIELDS))
    if unknown:
        raise EngramError(f"{where}: unknown field(s) {', '.join(unknown)}")
    for name, limit in _FIELDS.items():
        value = item.get(name)
        if value is None and name in _OPTIONAL:
            continue
        if not isinstance(value, str) or not value.strip() or len(value) > limit:
            raise EngramError(f"{where}: {name} must be a non-empty string of at most {limit} characters")
    if item["kind"] not in KINDS or item["status"] not in STATUSES:
        raise EngramError(f"{where}: kind must be one of {', '.join(KINDS)} and status one of {', '.join(STATUSES)}")
    if item["author"] != "user" and not item["author"].startswith("agent:"):
        raise EngramError(f"{where}: author must be 'user' or 'agent:<model>'")
    _time(item["created"], f"{where}.created")
    _time(item["updated"], f"{where}.updated")
    return MemoryEntry(**{name: item.get(name) for name in _FIELDS})


def read_export(path: Path) -> list[MemoryEntry]:
    """The entries of an export file, every field checked; the first problem is one line naming file and entry."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise EngramError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB")
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EngramError(f"{path}: cannot read: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EngramError(f"{path}: not a JSON export of procedural memory ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), list):
        raise EngramError(f'{path}: expected {{"format": "{FORMAT}", "entries": [...]}}')
    entries = [_entry(item, f"{path}: entry {n}") for n, item in enumerate(data["entries"], start=1)]
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise EngramError(f"{path}: an entry id occurs twice")
    return entries


def _at(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


def import_memory(vault: Path, path: Path) -> dict[str, int]:
    """Merge an export into ``vault``'s memory; counts of entries added, updated and kept."""
    store = MemoryStore(vault)
    incoming = read_export(path)
    here = {e.id: e for e in store.entries()}
    newer = [e for e in incoming if e.id not in here or _at(e.updated) > _at(here[e.id].updated)]
    store.put(newer)
    added = sum(e.id not in here for e in newer)
    return {"added": added, "updated": len(newer) - added, "kept": len(incoming) - len(newer)}
