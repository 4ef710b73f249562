"""The document model: what a parsed note contains, every element with its span.

A span is a half-open ``[start, end)`` range of character offsets into the text it
was parsed from: the whole file for a Markdown note, one cell's source for a
notebook (the cell id says which). ``text[span.start:span.end]`` is the element
exactly as written, so later layers can always point back at the source.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Span:
    start: int
    end: int

    def of(self, text: str) -> str:
        """The slice of ``text`` this span covers."""
        return text[self.start : self.end]


@dataclass(frozen=True)
class Frontmatter:
    data: dict[str, Any]
    span: Span
    key_spans: dict[str, Span]  # the ``key: value`` line of each top-level key


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    span: Span  # the whole heading line(s), markers included
    text_span: Span  # just the title text
    parent: int | None  # index of the enclosing heading in MarkdownModel.headings


@dataclass(frozen=True)
class WikiLink:
    target: str  # note name or path as written; "" for a link into the same note
    heading: str | None
    label: str | None
    embed: bool
    span: Span


@dataclass(frozen=True)
class MarkdownLink:
    href: str  # as written
    target: str | None  # vault-relative path of a local note, or None when not one
    label: str
    span: Span


@dataclass(frozen=True)
class Tag:
    name: str  # without the leading '#'
    span: Span


@dataclass(frozen=True)
class TableCell:
    text: str
    span: Span


@dataclass(frozen=True)
class Table:
    header: tuple[TableCell, ...]
    rows: tuple[tuple[TableCell, ...], ...]
    span: Span
    heading: int | None


@dataclass(frozen=True)
class ListItem:
    text: str
    span: Span  # the item's first line
    text_span: Span
    depth: int  # leading indentation in columns
    ordered: bool
    checked: bool | None  # None when the item is no task
    heading: int | None


@dataclass(frozen=True)
class DatedLine:
    date: dt.date
    text: str
    span: Span
    source: Literal["frontmatter", "heading", "list"]
    heading: int | None


@dataclass(frozen=True)
class MarkdownModel:
    """One parsed Markdown text (a note, or one notebook cell)."""

    text: str
    frontmatter: Frontmatter | None = None
    headings: tuple[Heading, ...] = ()
    wikilinks: tuple[WikiLink, ...] = ()
    links: tuple[MarkdownLink, ...] = ()
    tags: tuple[Tag, ...] = ()
    tables: tuple[Table, ...] = ()
    list_items: tuple[ListItem, ...] = ()
    dated_lines: tuple[DatedLine, ...] = ()

    def heading_path(self, index: int | None) -> tuple[str, ...]:
        """Titles from the outermost heading down to heading ``index``."""
        path: list[str] = []
        while index is not None:
            heading = self.headings[index]
            path.append(heading.text)
            index = heading.parent
        return tuple(reversed(path))


@dataclass(frozen=True)
class Part:
    """A piece of a document with its own offsets: the whole note, or one notebook cell."""

    cell_id: str | None
    model: MarkdownModel


@dataclass(frozen=True)
class DocumentModel:
    rel_path: str
    kind: Literal["markdown", "notebook"]
    title: str
    parts: tuple[Part, ...]
    meta: dict[str, Any] = field(default_factory=dict)  # frontmatter keys

    @property
    def aliases(self) -> list[str]:
        return _string_list(self.meta.get("aliases"))

    @property
    def tags(self) -> list[str]:
        """Frontmatter tags and inline ``#tags``, first occurrence order, no duplicates."""
        names = [t.lstrip("#") for t in _string_list(self.meta.get("tags"))]
        names += [tag.name for part in self.parts for tag in part.model.tags]
        return list(dict.fromkeys(names))

    @property
    def author(self) -> str | None:
        value = self.meta.get("author")
        return str(value) if value else None

    @property
    def status(self) -> str | None:
        value = self.meta.get("status")
        return str(value) if value else None


def _string_list(value: Any) -> list[str]:
    """YAML lets ``tags: a`` and ``tags: [a, b]`` mean the same; normalise both."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None and str(v).strip()]
    return [str(value)]
