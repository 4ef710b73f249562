"""Read a model's reply as the extraction schema: repair what can be repaired, reject the rest."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass


class ReplyError(ValueError):
    """The reply is not usable; the message goes back to the model on retry."""


@dataclass(frozen=True)
class LLMEntity:
    name: str
    kind: str
    aliases: tuple[str, ...]


@dataclass(frozen=True)
class LLMRelation:
    subject: str
    predicate: str
    object: str
    evidence: str
    date: dt.date | None


@dataclass(frozen=True)
class LLMStatement:
    kind: str
    text: str
    date: dt.date | None


@dataclass(frozen=True)
class LLMReply:
    entities: tuple[LLMEntity, ...]
    relations: tuple[LLMRelation, ...]
    statements: tuple[LLMStatement, ...]


def parse_json_object(text: str) -> dict[str, object]:
    """Parse the reply; repairs code fences, prose around the object and trailing commas."""
    candidate = re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", text.strip())
    for attempt in (candidate, _outermost_object(candidate)):
        if attempt is None:
            continue
        for variant in (attempt, re.sub(r",\s*([}\]])", r"\1", attempt)):
            try:
                value = json.loads(variant)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
            raise ReplyError("the reply is JSON but not an object")
    raise ReplyError("the reply is not valid JSON")


def _outermost_object(text: str) -> str | None:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def _date(value: object) -> dt.date | None:
    if isinstance(value, str):
        match = re.search(r"\d{4}-\d{2}-\d{2}", value)
        if match:
            try:
                return dt.date.fromisoformat(match.group(0))
            except ValueError:
                return None
    return None


def _text(item: dict[str, object], key: str) -> str:
    value = item.get(key)
    return value.strip() if isinstance(value, str) else ""


def parse_reply(text: str, kinds: tuple[str, ...], default_kind: str) -> LLMReply:
    """Validate against the schema. Malformed items are dropped; a reply with no usable shape is an error."""
    data = parse_json_object(text)
    lists = {key: data.get(key, []) for key in ("entities", "relations", "statements")}
    if not all(isinstance(v, list) for v in lists.values()):
        raise ReplyError("entities, relations and statements must be lists")
    by_fold = {k.casefold(): k for k in kinds}
    entities = []
    for item in lists["entities"]:
        if isinstance(item, dict) and _text(item, "name"):
            aliases = tuple(a.strip() for a in item.get("aliases") or [] if isinstance(a, str) and a.strip())
            entities.append(LLMEntity(_text(item, "name"), by_fold.get(_text(item, "kind").casefold(), default_kind), aliases))
    relations = []
    for item in lists["relations"]:
        if isinstance(item, dict) and all(_text(item, k) for k in ("subject", "predicate", "object")):
            relations.append(LLMRelation(_text(item, "subject"), _text(item, "predicate"), _text(item, "object"),
                                         _text(item, "evidence"), _date(item.get("date"))))
    statements = []
    for item in lists["statements"]:
        if isinstance(item, dict) and _text(item, "text"):
            kind = "decision" if _text(item, "kind").casefold() == "decision" else "claim"
            statements.append(LLMStatement(kind, _text(item, "text"), _date(item.get("date"))))
    return LLMReply(tuple(entities), tuple(relations), tuple(statements))
