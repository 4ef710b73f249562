"""Markdown cells of a Jupyter notebook: the notebook is one document, each cell a part."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


class NotebookError(ValueError):
    """The file is not a readable notebook; the message says why."""


@dataclass(frozen=True)
class MarkdownCell:
    cell_id: str  # the nbformat >= 4.5 id, or ``idx-N`` for older notebooks without ids
    index: int
    source: str


def _source_text(source: Any, index: int) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise NotebookError(f"cell {index} has a 'source' that is neither text nor a list of lines")


def notebook_markdown_cells(text: str) -> tuple[list[MarkdownCell], dict[str, Any]]:
    """The notebook's Markdown cells in order, and its metadata."""
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"not a valid notebook: JSON error at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise NotebookError("not a valid notebook: no 'cells' list at the top level")
    cells: list[MarkdownCell] = []
    seen: set[str] = set()
    for index, cell in enumerate(notebook["cells"]):
        if not isinstance(cell, dict):
            raise NotebookError(f"not a valid notebook: cell {index} is not an object")
        if cell.get("cell_type") != "markdown":
            continue
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not cell_id or cell_id in seen:
            cell_id = f"idx-{index}"
        seen.add(cell_id)
        cells.append(MarkdownCell(cell_id, index, _source_text(cell.get("source", ""), index)))
    metadata = notebook.get("metadata")
    return cells, metadata if isinstance(metadata, dict) else {}
