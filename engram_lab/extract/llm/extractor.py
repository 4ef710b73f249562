"""LLM extraction: the heuristic reads the Markdown structure, the model reads the prose, segment by segment.

Entities found so far (from the structure and earlier segments) go into each
prompt as hints. A reply that does not fit the schema is repaired when it can
be, otherwise sent back to the model with the problem, a bounded number of
times. A segment that still fails is recorded in ``Extraction.errors``; the
document keeps everything else and is retried on the next index run, where
cached segments cost nothing.
"""

from __future__ import annotations

import time
from pathlib import Path

from engram_lab.config import ExtractorConfig
from engram_lab.extract.heuristic.extractor import HeuristicExtractor
from engram_lab.extract.kinds import CORE_KINDS, DEFAULT_KIND
from engram_lab.extract.llm.cache import ReplyCache, cache_key
from engram_lab.extract.llm.client import ChatClient, LLMError
from engram_lab.extract.llm.prompt import PROMPT_VERSION, system_prompt, user_prompt
from engram_lab.extract.llm.schema import LLMReply, ReplyError, parse_reply
from engram_lab.extract.model import EntityMention, EntityRef, Extraction, Relation, Statement
from engram_lab.extract.segment import Piece, Segment
from engram_lab.vault.model import DocumentModel, Span

VERSION = f"1+prompt{PROMPT_VERSION}"


def _locate(pieces: tuple[Piece, ...], words: str) -> tuple[Span | None, str | None, str]:
    """Where ``words`` first stand in the segment (case-insensitive) and the text found there.

    (None, None, words) when they are not there: a span is never guessed.
    """
    needle = words.casefold()
    for piece in pieces if words else ():
        index = piece.text.casefold().find(needle)
        if index >= 0:
            found = piece.text[index : index + len(words)]
            return Span(piece.span.start + index, piece.span.start + index + len(words)), piece.cell_id, found
    return None, None, words


class LLMExtractor:
    name = "llm"
    version = VERSION

    def __init__(self, config: ExtractorConfig, cache_dir: Path, custom_kinds: tuple[str, ...] = ()) -> None:
        self.config = config
        self.model = config.model
        self.kinds = (*CORE_KINDS, *custom_kinds)
        self.custom_kinds = custom_kinds
        self.client = ChatClient(config)
        self.cache = ReplyCache(cache_dir / "llm")
        self.structure = HeuristicExtractor(custom_kinds)

    def extract(self, doc: DocumentModel, segments: list[Segment]) -> Extraction:
        extraction, hints = self.structure.extract_structure(doc)
        extraction.extractor, extraction.extractor_version, extraction.model = self.name, self.version, self.model
        usage = {"calls": 0.0, "cached": 0.0, "prompt_tokens": 0.0, "completion_tokens": 0.0, "seconds": 0.0}
        for segment in segments:
            try:
                reply = self._reply(doc.title, segment, hints, usage)
            except (LLMError, ReplyError) as exc:
                extraction.errors.append(f"segment {segment.ordinal}: {exc}")
                continue
            self._add(extraction, segment, reply)
            hints = list(dict.fromkeys([*hints, *((e.name, e.kind) for e in reply.entities)]))
        extraction.usage = usage
        return extraction

    def _reply(self, title: str, segment: Segment, hints: list[tuple[str, str]], usage: dict[str, float]) -> LLMReply:
        messages = [
            {"role": "system", "content": system_prompt(self.custom_kinds)},
            {"role": "user", "content": user_prompt(title, segment.text, hints[:50])},
        ]
        key = cache_key(PROMPT_VERSION, self.model or "", messages)
        cached = self.cache.get(key)
        if cached is not None and isinstance(cached.get("text"), str):
            usage["cached"] += 1
            return parse_reply(str(cached["text"]), self.kinds, DEFAULT_KIND)
        problem = None
        for attempt in range(self.config.max_retries + 1):
            completion = self.client.complete(messages)
            usage["calls"] += 1
            usage["prompt_tokens"] += completion.prompt_tokens
            usage["completion_tokens"] += completion.completion_tokens
            usage["seconds"] += completion.seconds
            try:
                reply = parse_reply(completion.text, self.kinds, DEFAULT_KIND)
            except ReplyError as exc:
                problem = exc
                messages = [*messages, {"role": "assistant", "content": completion.text},
                            {"role": "user", "content": f"That reply was not usable: {exc}. Reply with the JSON object only."}]
                if attempt < self.config.max_retries:
                    time.sleep(self.config.backoff_s * (2**attempt))
                continue
            self.cache.put(key, {"text": completion.text, "model": self.model, "prompt_version": PROMPT_VERSION})
            return reply
        raise ReplyError(f"{problem} (after {self.config.max_retries + 1} attempts)")

    def _add(self, out: Extraction, segment: Segment, reply: LLMReply) -> None:
        kinds = {e.name.casefold(): e.kind for e in reply.entities}
        for entity in reply.entities:
            span, cell, found = _locate(segment.pieces, entity.name)
            surface = found if found != entity.name else None
            out.entities.append(EntityMention(entity.name, entity.kind, span, cell, entity.aliases, surface))

        def ref(name: str) -> EntityRef:
            return EntityRef(name, kinds.get(name.casefold(), DEFAULT_KIND))

        for relation in reply.relations:
            span, cell, found = _locate(segment.pieces, relation.evidence)
            label = found or f"{relation.subject} | {relation.predicate} | {relation.object}"
            out.relations.append(Relation(ref(relation.subject), relation.predicate, ref(relation.object), span, cell, label, relation.date))
        for statement in reply.statements:
            span, cell, found = _locate(segment.pieces, statement.text)
            out.statements.append(Statement(statement.kind, found, span, cell, statement.date))
