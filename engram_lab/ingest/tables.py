"""Rows of cells to a GitHub-style Markdown pipe table."""

from __future__ import annotations

from collections.abc import Sequence


def _cell(value: str) -> str:
    return " ".join(value.replace("|", "\\|").split()) if value else ""


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Ragged rows are padded; pipes and line breaks inside cells are escaped or folded."""
    width = max([len(header), *(len(r) for r in rows)])
    head = [_cell(h) or f"column {i + 1}" for i, h in enumerate(list(header) + [""] * (width - len(header)))]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * width) + "|"]
    for row in rows:
        cells = [_cell(c) for c in list(row) + [""] * (width - len(row))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
