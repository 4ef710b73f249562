"""MuSiQue data: read the corpus tolerantly, and turn it into a vault of one note per passage."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from engram_lab.errors import EngramError
from engram_lab.vault.write import slugify


@dataclass(frozen=True)
class Passage:
    title: str
    text: str


def read_json_tolerant(path: Path) -> object:
    """JSON that may hold bare ``NaN`` tokens (as HippoRAG's OpenIE files do); NaN becomes None."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EngramError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = json.loads(raw, parse_constant=lambda name: None if name == "NaN" else math.inf)
    except json.JSONDecodeError as exc:
        raise EngramError(f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    return data


def read_corpus(path: Path) -> list[Passage]:
    data = read_json_tolerant(path)
    if not isinstance(data, list) or not all(isinstance(p, dict) and "title" in p and "text" in p for p in data):
        raise EngramError(f"{path}: expected a list of {{\"title\", \"text\"}} passages")
    return [Passage(str(p["title"]), str(p["text"])) for p in data]


def passage_note(passage: Passage) -> str:
    return f"# {passage.title}\n\n{passage.text.strip()}\n"


def note_path(index: int, passage: Passage) -> str:
    return f"passages/{index:05d}-{slugify(passage.title)[:60]}.md"


def write_passage_vault(passages: list[Passage], dest: Path) -> dict[str, int]:
    """One note per passage (title as H1); returns vault path -> passage index."""
    (dest / "passages").mkdir(parents=True, exist_ok=True)
    paths: dict[str, int] = {}
    for index, passage in enumerate(passages):
        rel = note_path(index, passage)
        (dest / rel).write_text(passage_note(passage), encoding="utf-8")
        paths[rel] = index
    return paths
