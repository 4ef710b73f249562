"""Turn a note's text into a :class:`DocumentModel`, whatever its kind."""

from __future__ import annotations

import posixpath
from typing import Literal

from engram_lab.errors import DocumentError
from engram_lab.vault.markdown import FrontmatterError, parse_markdown
from engram_lab.vault.model import DocumentModel, MarkdownModel, Part
from engram_lab.vault.notebook import NotebookError, notebook_markdown_cells


def _title(meta: dict[str, object], models: list[MarkdownModel], rel_path: str) -> str:
    """Frontmatter title, else the first H1, else the file name without its suffix."""
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    for model in models:
        for heading in model.headings:
            if heading.level == 1 and heading.text:
                return heading.text
    return posixpath.splitext(posixpath.basename(rel_path))[0]


def parse_document(text: str, rel_path: str, kind: Literal["markdown", "notebook"]) -> DocumentModel:
    """Parse a note or notebook. Raises DocumentError naming ``rel_path`` on bad input."""
    try:
        if kind == "markdown":
            model = parse_markdown(text, rel_path)
            parts = [Part(None, model)]
            meta = dict(model.frontmatter.data) if model.frontmatter else {}
        else:
            cells, nb_meta = notebook_markdown_cells(text)
            parts = []
            for position, cell in enumerate(cells):
                # Only the first Markdown cell may carry frontmatter; elsewhere '---' is a rule.
                parts.append(Part(cell.cell_id, parse_markdown(cell.source, rel_path, allow_frontmatter=position == 0)))
            first = parts[0].model.frontmatter if parts else None
            meta = dict(first.data) if first else {}
            if "title" not in meta and isinstance(nb_meta.get("title"), str):
                meta["title"] = nb_meta["title"]
    except (FrontmatterError, NotebookError) as exc:
        raise DocumentError(rel_path, str(exc)) from None
    return DocumentModel(rel_path, kind, _title(meta, [p.model for p in parts], rel_path), tuple(parts), meta)
