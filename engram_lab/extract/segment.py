"""Cut a document into at most 16 segments: headings first, then paragraphs; never across notebook cells.

A segment is the unit an extractor sees at once (and the unit an LLM call and its
cache entry cover). Sections longer than ``max_chars`` are split on blank lines;
when there are more than ``max_segments`` pieces, neighbours are merged, evenly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram_lab.vault.model import DocumentModel, Span
from engram_lab.vault.sections import Section, document_sections

MAX_SEGMENTS = 16
MAX_CHARS = 4000


@dataclass(frozen=True)
class Piece:
    """A contiguous run of one part's text."""

    cell_id: str | None
    span: Span
    text: str
    heading_path: tuple[str, ...]


@dataclass(frozen=True)
class Segment:
    ordinal: int
    pieces: tuple[Piece, ...]

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.pieces)


def _paragraph_pieces(section: Section, max_chars: int) -> list[Piece]:
    """The section itself, or runs of whole paragraphs of at most ``max_chars`` (a longer paragraph stands alone)."""
    if len(section.text) <= max_chars:
        return [Piece(section.cell_id, section.span, section.text, section.heading_path)]
    pieces: list[Piece] = []
    run: tuple[int, int] | None = None
    for match in re.finditer(r"\S(?:.*?\S)?(?=[ \t]*(?:\n[ \t]*\n|\Z))", section.text, re.S):
        if run is not None and match.end() - run[0] > max_chars:
            pieces.append(_piece(section, *run))
            run = None
        run = (run[0] if run else match.start(), match.end())
    if run is not None:
        pieces.append(_piece(section, *run))
    return pieces


def _piece(section: Section, start: int, end: int) -> Piece:
    span = Span(section.span.start + start, section.span.start + end)
    return Piece(section.cell_id, span, section.text[start:end], section.heading_path)


def _merge(pieces: list[Piece], max_segments: int) -> list[tuple[Piece, ...]]:
    """Group consecutive pieces into at most ``max_segments`` groups of similar total length."""
    if len(pieces) <= max_segments:
        return [(p,) for p in pieces]
    cumulative: list[int] = []
    total = 0
    for piece in pieces:
        total += len(piece.text) + 1
        cumulative.append(total)
    cuts = [0]
    for k in range(1, max_segments):
        wanted = total * k / max_segments
        cut = next(i + 1 for i, c in enumerate(cumulative) if c >= wanted)
        # every group keeps at least one piece, and enough pieces stay for the groups still to come
        cut = min(max(cut, cuts[-1] + 1), len(pieces) - (max_segments - k))
        cuts.append(cut)
    cuts.append(len(pieces))
    return [tuple(pieces[a:b]) for a, b in zip(cuts, cuts[1:]) if b > a]


def segment_document(doc: DocumentModel, max_segments: int = MAX_SEGMENTS, max_chars: int = MAX_CHARS) -> list[Segment]:
    sections = document_sections(doc)
    pieces = [piece for section in sections for piece in _paragraph_pieces(section, max_chars)]
    return [Segment(i, group) for i, group in enumerate(_merge(pieces, max_segments))]
