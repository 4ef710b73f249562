"""Import HippoRAG-style OpenIE output (``docs[{passage, extracted_entities, extracted_triples}]``).

Each passage is matched to the note that contains it; its triples become that
note's extraction, recorded as ``import:<model>``. Spans are found by searching
the note's text; when the words are not there, the span stays empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engram_lab.errors import EngramError
from engram_lab.eval.musique import read_json_tolerant
from engram_lab.extract.kinds import DEFAULT_KIND
from engram_lab.extract.model import EntityMention, EntityRef, Extraction, Relation
from engram_lab.extract.segment import Segment
from engram_lab.vault.model import DocumentModel, Span

IMPORT_VERSION = "1"
IMPORT_PREFIX = "import:"  # extractor name of imported triples: import:<model>
_NEAR = 400  # a triple's span covers subject and object only when they stand this close


@dataclass(frozen=True)
class OpenIERecord:
    passage: str
    entities: tuple[str, ...]
    triples: tuple[tuple[str, str, str], ...]


def _strings(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [str(v).strip() for v in value if isinstance(v, (str, int, float)) and str(v).strip()]


def read_openie(path: Path) -> tuple[list[OpenIERecord], int]:
    """Records from the file and how many triples were dropped for not being three items."""
    data = read_json_tolerant(path)
    docs = data.get("docs") if isinstance(data, dict) else None
    if not isinstance(docs, list):
        raise EngramError(f"{path}: expected an object with a 'docs' list (HippoRAG OpenIE format)")
    records: list[OpenIERecord] = []
    dropped = 0
    for number, doc in enumerate(docs, start=1):
        if not isinstance(doc, dict) or not isinstance(doc.get("passage"), str):
            raise EngramError(f"{path}: docs[{number - 1}] has no 'passage' text")
        triples = []
        for triple in doc.get("extracted_triples") or []:
            items = _strings(triple)
            if len(items) == 3 and isinstance(triple, list) and len(triple) == 3:
                triples.append((items[0], items[1], items[2]))
            else:
                dropped += 1
        records.append(OpenIERecord(doc["passage"], tuple(_strings(doc.get("extracted_entities"))), tuple(triples)))
    return records, dropped


def model_from_filename(path: Path) -> str:
    match = re.match(r"openie[-_](.+)$", path.stem)
    return match.group(1) if match else path.stem


def normalise_passage(text: str) -> str:
    """Whitespace and Markdown heading marks do not matter when matching a passage to a note."""
    return " ".join(re.sub(r"(?m)^\s{0,3}#{1,6}\s+", "", text).split()).casefold()


def match_passages(records: list[OpenIERecord], notes: dict[str, str]) -> tuple[dict[str, OpenIERecord], list[OpenIERecord]]:
    """Map note path -> record: exact match of the normalised texts first, then containment.

    A passage contained in several notes goes to the shortest of them not yet taken: "A was born in B."
    lies inside a longer note that repeats it, and belongs to the note that says only that.
    """
    by_text = {normalise_passage(text): path for path, text in notes.items()}
    matched: dict[str, OpenIERecord] = {}
    unmatched: list[OpenIERecord] = []
    normalised_notes = None
    for record in records:
        wanted = normalise_passage(record.passage)
        path = by_text.get(wanted)
        if path is None:
            normalised_notes = normalised_notes or {p: normalise_passage(t) for p, t in notes.items()}
            holders = [(len(t), p) for p, t in normalised_notes.items() if wanted and wanted in t and p not in matched]
            path = min(holders)[1] if holders else None
        if path is None or path in matched:
            unmatched.append(record)
        else:
            matched[path] = record
    return matched, unmatched


def _find(text: str, words: str, start: int = 0) -> Span | None:
    index = text.casefold().find(words.casefold(), start)
    return Span(index, index + len(words)) if index >= 0 and words else None


class ImportedExtractor:
    """Serves precomputed extractions through the ordinary extractor interface."""

    version = IMPORT_VERSION

    def __init__(self, model: str, records: dict[str, OpenIERecord]) -> None:
        self.model = model
        self.name = f"{IMPORT_PREFIX}{model}"
        self.records = records

    def extract(self, doc: DocumentModel, segments: list[Segment]) -> Extraction:
        record = self.records[doc.rel_path]
        part = doc.parts[0]
        text = part.model.text
        out = Extraction(self.name, self.version, self.model)
        names = list(dict.fromkeys([*record.entities, *(t[0] for t in record.triples), *(t[2] for t in record.triples)]))
        for name in names:
            out.entities.append(EntityMention(name, DEFAULT_KIND, _find(text, name), part.cell_id))
        for subject, predicate, obj in record.triples:
            s_span, o_span = _find(text, subject), _find(text, obj)
            span = None
            if s_span and o_span and abs(s_span.start - o_span.start) <= _NEAR:
                span = Span(min(s_span.start, o_span.start), max(s_span.end, o_span.end))
            out.relations.append(
                Relation(EntityRef(subject, DEFAULT_KIND), predicate, EntityRef(obj, DEFAULT_KIND), span, part.cell_id,
                         label=f"{subject} | {predicate} | {obj}")
            )
        return out
