"""What an extractor returns: entities, relations and statements, each located in the note.

A location is a part (``cell_id``: None for a Markdown note, the cell id in a
notebook) and a span of character offsets into that part's text. A span is None
only when the words could not be found in the text; it is never guessed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from engram_lab.vault.model import Span


@dataclass(frozen=True)
class EntityMention:
    name: str
    kind: str
    span: Span | None
    cell_id: str | None = None
    aliases: tuple[str, ...] = ()
    surface: str | None = None  # the words in the text when they differ from ``name`` ("Hall" for "Marta Hall")


@dataclass(frozen=True)
class EntityRef:
    name: str
    kind: str


@dataclass(frozen=True)
class Relation:
    subject: EntityRef
    predicate: str  # a short verb phrase or key: "founded", "capital of", "vendor"
    object: EntityRef | str  # an entity, or a literal value
    span: Span | None
    cell_id: str | None = None
    label: str = ""  # the sentence or line it came from, as written
    date: dt.date | None = None


@dataclass(frozen=True)
class Statement:
    kind: str  # "decision" or "claim"
    text: str
    span: Span | None
    cell_id: str | None = None
    date: dt.date | None = None
    about: tuple[EntityRef, ...] = ()


@dataclass
class Extraction:
    """Everything extracted from one document, plus who produced it."""

    extractor: str
    extractor_version: str
    model: str | None = None
    entities: list[EntityMention] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # segments that failed (LLM path); the rest stands
    usage: dict[str, float] = field(default_factory=dict)  # LLM path: calls, cached, prompt/completion tokens, seconds
    warnings: list[str] = field(default_factory=list)  # what the per-note caps cut (extract.limits); not retried

    def extend(self, other: Extraction) -> None:
        self.entities += other.entities
        self.relations += other.relations
        self.statements += other.statements
        self.errors += other.errors
        self.warnings += other.warnings
