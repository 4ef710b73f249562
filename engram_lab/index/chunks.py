"""Cut sections into passages of at most ``MAX_WORDS`` words: the units BM25 and the embeddings score.

A heading section of a real note can run to thousands of words, while the
embedding model reads only its first 256 word pieces and BM25's length
normalisation buries a matching paragraph in a long section. Chunks end at
paragraph breaks where they can, at sentence ends inside a long paragraph, and
at word boundaries only inside a sentence longer than a chunk. Pure functions:
the ledger keeps heading sections (what a person sees), the derived indexes
chunk them the same way every time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engram_lab.state.documents import StoredSection

MAX_WORDS = 200  # ~260 word pieces of English prose: within MiniLM's 256-piece window for most chunks

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Chunk:
    """A piece of one stored section; ``start``/``end`` are offsets into the note (or the cell's source)."""

    doc_id: str
    ordinal: int  # the section's ordinal
    piece: int  # the chunk's position within its section
    cell_id: str | None
    heading: str | None
    heading_path: tuple[str, ...]
    start: int
    end: int
    text: str


def _pieces(text: str, start: int, end: int, separator: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """Non-blank spans of ``text[start:end]`` between matches of ``separator``."""
    position = start
    for match in separator.finditer(text, start, end):
        if text[position : match.start()].strip():
            yield position, match.start()
        position = match.end()
    if text[position:end].strip():
        yield position, end


def _word_windows(text: str, start: int, end: int, max_words: int) -> Iterator[tuple[int, int, int]]:
    words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    for i in range(0, len(words), max_words):
        window = words[i : i + max_words]
        yield window[0][0], window[-1][1], len(window)


def _units(text: str, max_words: int) -> Iterator[tuple[int, int, int]]:
    """(start, end, words) of paragraphs, or of their sentences or word windows when a paragraph is too long."""
    for p_start, p_end in _pieces(text, 0, len(text), _PARAGRAPH_BREAK):
        words = len(text[p_start:p_end].split())
        if words <= max_words:
            yield p_start, p_end, words
            continue
        for s_start, s_end in _pieces(text, p_start, p_end, _SENTENCE_END):
            words = len(text[s_start:s_end].split())
            if words <= max_words:
                yield s_start, s_end, words
            else:
                yield from _word_windows(text, s_start, s_end, max_words)


def chunk_spans(text: str, max_words: int = MAX_WORDS) -> list[tuple[int, int]]:
    """Spans covering every word of ``text`` in order, each of at most ``max_words`` words (whole text if it fits)."""
    if max_words <= 0:
        raise ValueError("max_words must be positive")
    if len(text.split()) <= max_words:
        return [(0, len(text))] if text.strip() else []
    spans: list[tuple[int, int]] = []
    current: list[int] | None = None  # [start, end, words]
    for start, end, words in _units(text, max_words):
        if current is not None and current[2] + words <= max_words:
            current[1], current[2] = end, current[2] + words
            continue
        if current is not None:
            spans.append((current[0], current[1]))
        current = [start, end, words]
    if current is not None:
        spans.append((current[0], current[1]))
    return spans


def section_chunks(sections: Sequence[StoredSection], max_words: int = MAX_WORDS) -> list[Chunk]:
    """Every section's chunks, in order; a short section is one chunk equal to itself."""
    out: list[Chunk] = []
    for s in sections:
        for piece, (a, b) in enumerate(chunk_spans(s.text, max_words)):
            out.append(Chunk(s.doc_id, s.ordinal, piece, s.cell_id, s.heading, s.heading_path, s.start + a, s.start + b, s.text[a:b]))
    return out
