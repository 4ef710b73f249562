"""Search results with provenance, and the JSON shape other tools rely on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SearchResult:
    rank: int
    path: str  # vault-relative path of the note
    cell_id: str | None
    doc_id: str
    score: float
    span: tuple[int, int] | None  # offsets into the note (or the cell's source)
    heading: str | None
    heading_path: tuple[str, ...]
    text: str
    status: str
    superseded: str | None = None  # "superseded by <note> (<date>)" when a later decision replaces one in here
    date: str | None = None  # the note's date (``vault.note_date``), ISO, when it has one

    @property
    def doc(self) -> str:
        """The result's document reference: the path, plus ``#cell=<id>`` inside a notebook."""
        return f"{self.path}#cell={self.cell_id}" if self.cell_id else self.path

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "doc": self.doc,
            "score": round(self.score, 6),
            "span": list(self.span) if self.span else None,
            "heading": self.heading,
        } | ({"date": self.date} if self.date else {}) | ({"superseded": self.superseded} if self.superseded else {})

    def provenance(self) -> str:
        where = " > ".join(self.heading_path) or "(before the first heading)"
        span = f"chars {self.span[0]}-{self.span[1]}" if self.span else "span unknown"
        review = " [pending review]" if self.status == "pending-review" else ""
        replaced = f" [{self.superseded}]" if self.superseded else ""
        dated = f" | {self.date}" if self.date else ""
        return f"{self.doc}{dated} | {where} | {span}{review}{replaced}"


def snippet(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def assemble_context(results: list[SearchResult], budget_chars: int = 4000) -> str:
    """The passages, each headed by where it came from, cut at ``budget_chars``."""
    blocks: list[str] = []
    used = 0
    for result in results:
        block = f"[{result.rank}] {result.provenance()}\n{result.text.strip()}"
        if used + len(block) > budget_chars and blocks:
            break
        blocks.append(block[:budget_chars])
        used += len(block)
    return "\n\n".join(blocks)


def search_payload(query: str, mode: str, results: list[SearchResult]) -> dict[str, Any]:
    return {"query": query, "mode": mode, "results": [r.to_json() for r in results], "context": assemble_context(results)}
