"""The offline default extractor: deterministic, fast, no model.

It reads the structure the parser found (frontmatter, wikilinks, tables, dated
decision lines) and the prose, sentence by sentence (names, copulas and
appositions as hierarchy edges, verbs between names as triples). Segments are
read in order and the entities found so far resolve surnames, pronouns and
"the company" in later ones.
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from dataclasses import dataclass, field

from engram_lab.extract.heuristic.lexicon import (
    CLASS_NOUN_KINDS,
    DECISION_CUES,
    DEFINITE_REFERENCES,
    KEY_KINDS,
    META_KEYS,
    PRONOUNS,
)
from engram_lab.extract.heuristic.names import WordUsage, find_names
from engram_lab.extract.heuristic.prose import Located, sentence_triples
from engram_lab.extract.heuristic.registry import EntityRegistry
from engram_lab.extract.heuristic.text import blocks, is_heading, prose_view, sentences
from engram_lab.extract.kinds import canonical_kind
from engram_lab.extract.model import EntityMention, Extraction, Relation, Statement
from engram_lab.extract.segment import Piece, Segment
from engram_lab.vault.markdown import link_object
from engram_lab.vault.model import DocumentModel, MarkdownModel, Span

NAME = "heuristic"
VERSION = "6"  # 2: initials ("M. Hall") stay one name; 3: ordinary words opening a sentence or heading are no names;
# 4: discourse markers ("Additionally,") are no names; 5: Markdown links to notes (inline or reference) are links too;
# 6: field labels ("Start Date:"), instruction openers ("Consider", "Given") and Title-Cased heading words the
# prose never capitalises inside a sentence ("Future Possibilities") are no names
LINKS_TO = "links to"
IS_A = "is a"
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_FILE_EMBED = re.compile(r"\.(png|jpe?g|gif|svg|pdf|webp|mp4|mp3)$", re.I)
_LEADING_REFERENCE = re.compile(r"^(?:(?P<pronoun>he|she|it|they|his|her|its|their)\b|(?P<definite>the [a-z]+)\b)", re.I)


def _without_headings(masked: str, model: MarkdownModel) -> str:
    chars = list(masked)
    for heading in model.headings:
        chars[heading.span.start : heading.span.end] = [c if c == "\n" else " " for c in masked[heading.span.start : heading.span.end]]
    return "".join(chars)


def _first_date(text: str) -> dt.date | None:
    for m in _ISO.finditer(text):
        try:
            return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            continue
    return None


@dataclass
class _Draft:
    """Mentions and relations by registry key; turned into EntityRefs once every kind is settled."""

    mentions: list[tuple[str, Span | None, str | None, str | None]] = field(default_factory=list)
    relations: list[tuple[str, str, str | None, str | None, Span | None, str | None, str, dt.date | None]] = field(default_factory=list)
    statements: list[tuple[str, str, Span | None, str | None, dt.date | None, tuple[str, ...]]] = field(default_factory=list)


class HeuristicExtractor:
    name = NAME
    version = VERSION
    model: str | None = None

    def __init__(self, custom_kinds: tuple[str, ...] = ()) -> None:
        self.custom_kinds = custom_kinds

    def extract(self, doc: DocumentModel, segments: list[Segment]) -> Extraction:
        run = _DocumentRun(doc, self.custom_kinds)
        run.structure()
        for segment in segments:
            for piece in segment.pieces:
                run.prose(piece)
        return run.finish(Extraction(NAME, VERSION))

    def extract_structure(self, doc: DocumentModel) -> tuple[Extraction, list[tuple[str, str]]]:
        """Only what the Markdown structure states (frontmatter, links, tables, dated lines), and the names it found."""
        run = _DocumentRun(doc, self.custom_kinds)
        run.structure()
        extraction = run.finish(Extraction(NAME, VERSION))
        names = list(dict.fromkeys((e.name, e.kind) for e in extraction.entities))
        return extraction, names


class _DocumentRun:
    def __init__(self, doc: DocumentModel, custom_kinds: tuple[str, ...]) -> None:
        self.doc = doc
        self.registry = EntityRegistry()
        self.draft = _Draft()
        self.custom_kinds = custom_kinds
        self.models = {part.cell_id: part.model for part in doc.parts}
        self.masked = {part.cell_id: prose_view(part.model.text, part.model.frontmatter.span.end if part.model.frontmatter else 0) for part in doc.parts}
        # Headings are Title-Cased by convention: evidence of how the note writes a word comes from its prose only.
        self.usage = WordUsage.of([_without_headings(self.masked[part.cell_id], part.model) for part in doc.parts])
        kind = canonical_kind(doc.meta.get("kind"), custom_kinds)
        self.subject = self.registry.add(doc.title, kind, tuple(doc.aliases))
        self.doc_date = _first_date(str(doc.meta.get("date", "")))
        self.recent: list[str] = [self.subject]

    # -- structure ---------------------------------------------------------
    def structure(self) -> None:
        for part in self.doc.parts:
            model = part.model
            self._title_mention(model, part.cell_id)
            if model.frontmatter is not None:
                self._frontmatter(model, part.cell_id)
            for link in model.wikilinks:
                if link.embed and _FILE_EMBED.search(link.target):
                    continue
                target = link.target or self.doc.title
                key = self.registry.add(target, None, (link.label,) if link.label else ())
                self.draft.mentions.append((key, link.span, part.cell_id, link.span.of(model.text)))
                if key != self.subject:
                    self.draft.relations.append((self.subject, LINKS_TO, key, None, link.span, part.cell_id, link.span.of(model.text), None))
            for markdown_link in model.links:
                target = link_object(markdown_link)
                if target is not None and target != self.doc.rel_path:
                    self.draft.relations.append((self.subject, LINKS_TO, None, target, markdown_link.span, part.cell_id,
                                                 markdown_link.span.of(model.text), None))
            for table in model.tables:
                self._table(model, table, part.cell_id)
            self._statements(model, part.cell_id)

    def _title_mention(self, model: MarkdownModel, cell: str | None) -> None:
        fm = model.frontmatter
        if fm is not None and "title" in fm.key_spans:
            self.draft.mentions.append((self.subject, fm.key_spans["title"], cell, None))
        for heading in model.headings:
            if heading.level == 1 and heading.text == self.doc.title:
                self.draft.mentions.append((self.subject, heading.text_span, cell, None))
                break

    def _frontmatter(self, model: MarkdownModel, cell: str | None) -> None:
        fm = model.frontmatter
        assert fm is not None
        for key, value in fm.data.items():
            span = fm.key_spans.get(key)
            label = span.of(model.text) if span else key
            if key == "tags":
                for tag in value if isinstance(value, list) else [value]:
                    if tag:
                        self.draft.relations.append((self.subject, "tag", None, str(tag).lstrip("#"), span, cell, label, None))
                continue
            if key in META_KEYS or value is None:
                continue
            values = value if isinstance(value, list) else [value]
            kind = KEY_KINDS.get(key.lower())
            for item in values:
                text = str(item).strip()
                link = re.fullmatch(r"\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]", text)
                if link or kind:
                    obj = self.registry.add(link.group(1) if link else text, kind)
                    self.draft.mentions.append((obj, span, cell, None))
                    self.draft.relations.append((self.subject, key, obj, None, span, cell, label, None))
                elif text and not isinstance(item, (dict, list)):
                    self.draft.relations.append((self.subject, key, None, text, span, cell, label, None))

    def _table(self, model: MarkdownModel, table, cell: str | None) -> None:  # type: ignore[no-untyped-def]
        headers = [c.text for c in table.header]
        if not headers:
            return
        row_kind = CLASS_NOUN_KINDS.get(headers[0].lower().split()[-1]) if headers[0] else None
        for row in table.rows:
            if not row or not row[0].text.strip():
                continue
            row_key = self.registry.add(_strip_link(row[0].text), row_kind)
            self.draft.mentions.append((row_key, row[0].span, cell, None))
            row_span = Span(row[0].span.start, row[-1].span.end)
            label = row_span.of(model.text)
            if row_key != self.subject:
                self.draft.relations.append((row_key, "listed in", self.subject, None, row_span, cell, label, None))
            for header, value in zip(headers[1:], row[1:]):
                text = _strip_link(value.text)
                if not header or not text or text in ("—", "-"):
                    continue
                col_kind = KEY_KINDS.get(header.lower()) or CLASS_NOUN_KINDS.get(header.lower().split()[-1])
                known = self.registry.lookup(text)
                if known is not None or (col_kind in ("Person", "Organization", "Place") and text[:1].isupper()):
                    obj = known if known is not None else self.registry.add(text, col_kind)
                    self.draft.mentions.append((obj, value.span, cell, None))
                    self.draft.relations.append((row_key, header, obj, None, value.span, cell, label, None))
                else:
                    self.draft.relations.append((row_key, header, None, text, value.span, cell, label, None))

    def _statements(self, model: MarkdownModel, cell: str | None) -> None:
        for item in model.list_items:
            lowered = item.text.lower()
            is_decision = any(cue in lowered for cue in DECISION_CUES)
            date = _first_date(item.text)
            if is_decision:
                self.draft.statements.append(("decision", item.text, item.text_span, cell, date or self.doc_date, ()))
            elif date is not None:
                self.draft.statements.append(("claim", item.text, item.text_span, cell, date, ()))

    # -- prose -------------------------------------------------------------
    def prose(self, piece: Piece) -> None:
        masked = self.masked[piece.cell_id]
        model = self.models[piece.cell_id]
        for block in blocks(model.text, masked, piece.span.start, piece.span.end):
            heading = is_heading(model.text, block)
            for sentence in sentences(masked, block):
                self._sentence(model.text, masked, sentence, piece.cell_id, heading)

    def _sentence(self, text: str, masked: str, sentence: Span, cell: str | None, heading: bool = False) -> None:
        located: list[Located] = []
        reference = _LEADING_REFERENCE.match(masked[sentence.start : sentence.end])
        if reference:
            key = self._resolve_reference(reference)
            if key is not None:
                end = sentence.start + reference.end()
                located.append(Located(key, sentence.start, end, self.registry.kind(key)))
                self.draft.mentions.append((key, Span(sentence.start, end), cell, text[sentence.start : end]))
        for candidate in find_names(masked, sentence, self.usage, heading):
            key = self.registry.lookup(candidate.name)
            surface = None
            if key is None and " " not in candidate.name and candidate.kind is None:
                key = self.registry.by_surname(candidate.name)
                surface = candidate.name if key else None
            if key is None:
                key = self.registry.add(candidate.name, candidate.kind)
            else:
                self.registry.refine(key, candidate.kind)
            located.append(Located(key, candidate.span.start, candidate.span.end, self.registry.kind(key)))
            self.draft.mentions.append((key, candidate.span, cell, surface))
        triples, classes = sentence_triples(masked, located, sentence.end)
        label = text[sentence.start : sentence.end]
        date = _first_date(label)
        for assertion in classes:
            self.registry.refine(assertion.subject, assertion.kind_hint)
            class_key = self.registry.add(assertion.class_phrase, "Concept")
            self.draft.mentions.append((class_key, None, cell, None))  # a class named, not a span to point at
            self.draft.relations.append((assertion.subject, IS_A, class_key, None, sentence, cell, label, date))
        for triple in triples:
            self.draft.relations.append((triple.subject, triple.predicate, triple.object, None, sentence, cell, label, date))
        if located:
            first = next((m.key for m in located if m.kind not in ("Time", "Quantity")), None)
            if first is not None:
                self.recent.append(first)

    def _resolve_reference(self, match: re.Match[str]) -> str | None:
        if match.group("pronoun"):
            wanted = PRONOUNS.get(match.group("pronoun").lower())
            return self.registry.latest_of_kind(wanted, self.recent) or (self.subject if wanted is None else None)
        phrase = match.group("definite").lower()
        if phrase in DEFINITE_REFERENCES:
            return self.registry.latest_of_kind(DEFINITE_REFERENCES[phrase], self.recent)
        return None

    # -- output ------------------------------------------------------------
    def finish(self, out: Extraction) -> Extraction:
        reg = self.registry
        for key, span, cell, surface in self.draft.mentions:
            ref = reg.ref(key)
            out.entities.append(EntityMention(ref.name, ref.kind, span, cell, tuple(reg.aliases.get(key, ())), surface))
        if not any(m.name == reg.ref(self.subject).name for m in out.entities):
            ref = reg.ref(self.subject)
            out.entities.append(EntityMention(ref.name, ref.kind, None, None, tuple(reg.aliases.get(self.subject, ()))))
        for s, predicate, o_key, literal, span, cell, label, date in self.draft.relations:
            obj = reg.ref(o_key) if o_key is not None else (literal or "")
            out.relations.append(Relation(reg.ref(s), predicate, obj, span, cell, label, date))
        located = self._mentions_by_cell()
        for kind, text, span, cell, date, _ in self.draft.statements:
            about = tuple(reg.ref(k) for k in dict.fromkeys(_keys_in(located.get(cell), span)))
            out.statements.append(Statement(kind, text, span, cell, date, about))
        return out

    def _mentions_by_cell(self) -> dict[str | None, tuple[list[int], list[tuple[int, str]]]]:
        """Mention starts (sorted) and keys per cell, so each statement finds its names by bisection, not a scan."""
        by_cell: dict[str | None, list[tuple[int, int, str]]] = {}
        for order, (key, span, cell, _) in enumerate(self.draft.mentions):
            if span is not None:
                by_cell.setdefault(cell, []).append((span.start, order, key))
        out = {}
        for cell, entries in by_cell.items():
            entries.sort()
            out[cell] = ([start for start, _, _ in entries], [(order, key) for _, order, key in entries])
        return out


def _keys_in(located: tuple[list[int], list[tuple[int, str]]] | None, span: Span | None) -> list[str]:
    """Keys of the mentions starting inside ``span``, in the order they were found."""
    if span is None or located is None:
        return []
    starts, keys = located
    return [key for _, key in sorted(keys[bisect.bisect_left(starts, span.start) : bisect.bisect_left(starts, span.end)])]


def _strip_link(text: str) -> str:
    match = re.fullmatch(r"\s*\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]\s*", text)
    return match.group(1).strip() if match else text.strip()
