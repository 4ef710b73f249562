"""Prose view of Markdown: markup blanked out (offsets kept), then blocks and sentences with spans."""

from __future__ import annotations

import re

from engram_lab.vault.markdown import LINK_DEFINITION
from engram_lab.vault.model import Span

_BLOCK_START = re.compile(r"^\s{0,3}(?:#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|>)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof st sr jr vs etc inc ltd co corp no vol fig al e.g i.e approx dept est gen gov lt col sgt mt ft jan feb mar "
    "apr jun jul aug sep sept oct nov dec u.s u.k".split()
)
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s+[\"'(\[]?[A-Z0-9])")


# "Start Date: 2015-05-21", "- RFC PR: #2203", "Attendees: Okafor, Raman": the key of a field line (one or two words, or
# up to four capitalised ones, opening a line or list item) is a label, like a frontmatter key, not a name. Only the
# key goes: the value is prose. On rust-rfcs such keys had become the vault's biggest entities ("Date", "RFC PR",
# "Rust Issue" in 432-638 of 640 notes), hubs of every note's related notes and local graph.
_FIELD_LABEL = re.compile(r"^([ \t]*)((?:[^\W\d_][\w'’()/&.-]*(?:[ \t]+[\w'’()/&.-]+)?|[A-Z][\w'’()/&.-]*(?:[ \t]+[A-Z][\w'’()/&.-]*){2,3})[ \t]*:)(?=[ \t]|$)", re.M)


def _blank_label(match: re.Match[str]) -> str:
    return match.group(1) + " " * len(match.group(2))


def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def prose_view(text: str, body_start: int = 0) -> str:
    """Same length as ``text``; frontmatter, code, tables, link targets and markup characters are spaces."""
    masked = "".join(" " if ch != "\n" else ch for ch in text[:body_start]) + text[body_start:]
    masked = re.sub(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1[^\n]*$", _blank, masked, flags=re.S | re.M)
    masked = re.sub(r"<!--.*?-->", _blank, masked, flags=re.S)
    masked = re.sub(r"`[^`\n]*`", _blank, masked)
    masked = re.sub(r"^[ \t]*\|.*$", _blank, masked, flags=re.M)  # table rows: handled as structure
    # [[Target|label]] -> label ; [[Target#H]] -> Target ; ![[embed]] -> nothing
    masked = re.sub(r"!\[\[[^\]\n]*\]\]", _blank, masked)
    masked = re.sub(r"\[\[[^\]|\n]*\|", lambda m: " " * len(m.group(0)), masked)
    masked = re.sub(r"\[\[([^\]#\n]*)#[^\]\n]*\]\]", lambda m: "  " + m.group(1) + " " * (len(m.group(0)) - 2 - len(m.group(1))), masked)
    masked = masked.replace("[[", "  ").replace("]]", "  ")
    masked = LINK_DEFINITION.sub(_blank, masked)  # "[label]: url" lines are link targets, not prose
    # [label](url) -> label
    masked = re.sub(r"\]\([^)\n]*\)", lambda m: " " * len(m.group(0)), masked)
    masked = re.sub(r"(?<!\w)[*_]{1,3}|[*_]{1,3}(?!\w)", lambda m: " " * len(m.group(0)), masked)
    masked = re.sub(r"^(\s{0,3})(#{1,6}\s|[-*+]\s+(\[[ xX]\]\s)?|\d{1,9}[.)]\s|>\s?)", lambda m: " " * len(m.group(0)), masked, flags=re.M)
    masked = _FIELD_LABEL.sub(_blank_label, masked)
    masked = re.sub(r"(?<![\w/])#[\w/-]+", _blank, masked)  # tags
    masked = masked.replace("[", " ")
    return masked


def blocks(text: str, masked: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Paragraphs, list items and headings of ``text[start:end]`` as spans (a list item is its own block)."""
    end = len(text) if end is None else end
    spans: list[Span] = []
    block_start: int | None = None
    block_end = start
    pos = start
    in_fence = False
    for line in text[start:end].splitlines(keepends=True):
        line_end = pos + len(line.rstrip("\r\n"))
        if _FENCE.match(line):
            in_fence = not in_fence
        new_block = not masked[pos:line_end].strip() or _BLOCK_START.match(line) or in_fence
        if new_block and block_start is not None:
            spans.append(Span(block_start, block_end))
            block_start = None
        if masked[pos:line_end].strip() and not in_fence:
            if block_start is None:
                block_start = pos
            block_end = line_end
            if _HEADING.match(line):  # a heading is a block of its own line
                spans.append(Span(block_start, block_end))
                block_start = None
        pos += len(line)
    if block_start is not None:
        spans.append(Span(block_start, block_end))
    return spans


def is_heading(text: str, block: Span) -> bool:
    """True when the block (as ``blocks`` returns it) is a Markdown heading line."""
    return bool(_HEADING.match(text[block.start : block.end]))


def sentences(masked: str, block: Span) -> list[Span]:
    """Sentence spans inside one block, trimmed; abbreviations and initials do not end a sentence."""
    result: list[Span] = []
    start = block.start
    for match in _BOUNDARY.finditer(masked, block.start, block.end):
        # Only the last word matters; a window keeps this linear when many boundaries are skipped in a row
        # (a word longer than the window is cut, but then it is no abbreviation either).
        words = masked[max(start, match.start() - 40) : match.start()].split()
        last = words[-1].lower().rstrip(".") if words else ""
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        result.append(Span(start, match.end()))
        start = match.end()
    result.append(Span(start, block.end))
    trimmed = []
    for span in result:
        chunk = masked[span.start : span.end]
        lead = len(chunk) - len(chunk.lstrip())
        trail = len(chunk) - len(chunk.rstrip())
        if chunk.strip():
            trimmed.append(Span(span.start + lead, span.end - trail))
    return trimmed
