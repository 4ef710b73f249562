"""Cut a document into heading-delimited sections: the passages search returns.

Each section runs from a heading to the next heading of any level (the text
before the first heading is a section of its own), so a hit can name the
heading and the exact span it came from. Notebook cells never share a section.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram_lab.vault.model import DocumentModel, MarkdownModel, Span


@dataclass(frozen=True)
class Section:
    ordinal: int
    cell_id: str | None
    heading: str | None  # the innermost heading, None for text before any heading
    heading_path: tuple[str, ...]
    span: Span  # offsets into the part's text (the file, or the cell's source)
    text: str


def _part_sections(model: MarkdownModel) -> list[tuple[int | None, Span]]:
    body_start = model.frontmatter.span.end if model.frontmatter else 0
    cuts: list[tuple[int | None, int]] = [(None, body_start)]
    cuts += [(i, h.span.start) for i, h in enumerate(model.headings)]
    ends = [start for _, start in cuts[1:]] + [len(model.text)]
    return [(heading, Span(start, end)) for (heading, start), end in zip(cuts, ends)]


def document_sections(doc: DocumentModel) -> list[Section]:
    """Non-empty sections of every part, in document order."""
    sections: list[Section] = []
    for part in doc.parts:
        model = part.model
        for heading_index, span in _part_sections(model):
            raw = span.of(model.text)
            if not raw.strip():
                continue
            lead = len(raw) - len(raw.lstrip())
            trail = len(raw) - len(raw.rstrip())
            tight = Span(span.start + lead, span.end - trail)
            sections.append(
                Section(
                    ordinal=len(sections),
                    cell_id=part.cell_id,
                    heading=model.headings[heading_index].text if heading_index is not None else None,
                    heading_path=model.heading_path(heading_index),
                    span=tight,
                    text=tight.of(model.text),
                )
            )
    return sections
