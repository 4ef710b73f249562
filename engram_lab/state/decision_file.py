"""Reading a decisions export: a trust boundary, so every field is checked before anything is stored.

A decision file may come from another machine or another person. A value the ledger
would store but the rest of engram cannot use (a relative IRI, a list as an id) would
break every later index run, and a forged date would outrank real decisions (the latest
judgment of the strongest actor wins). So the whole file is checked first, all or
nothing, and a problem is one line naming the file, the decision and the field.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

from pyoxigraph import NamedNode

from engram_lab.bounded_json import JSONLimitError, loads_bounded
from engram_lab.errors import DecisionFileError
from engram_lab.graph.vocabulary import ENTITY_PREFIX, judgment_iri
from engram_lab.state.decisions import EXPORT_FORMAT, EXPORT_VERSION, VERDICTS, Decision

MAX_FILE_BYTES = 256 * 1024 * 1024
CLOCK_SKEW = dt.timedelta(minutes=10)  # another machine's clock may run this far ahead of ours
_ID = re.compile(r"[!-~]{1,300}")  # printable ASCII: ids embed the actor (``d-llm:<model>-<digest>``)
_ACTOR = re.compile(r"auto|user|llm:[!-~]{1,200}")  # printable ASCII, no spaces
# What each kind of decision is about: resolution judges two entities, supersession two dated decisions.
_SUBJECT_PREFIX = {"resolution": ENTITY_PREFIX, "supersession": "urn:engram:"}


class _Bad(Exception):
    """One field's problem; turned into a DecisionFileError naming the file and the decision."""


def read_export(path: Path, now: dt.datetime | None = None) -> list[Decision]:
    """Every decision in the export at ``path``, each field checked; raises DecisionFileError on the first problem."""
    payload = _load(path)
    if not isinstance(payload, dict) or payload.get("format") != EXPORT_FORMAT:
        raise DecisionFileError(f"{path}: not an engram decisions export (missing \"format\": \"{EXPORT_FORMAT}\")")
    if payload.get("version") != EXPORT_VERSION:
        raise DecisionFileError(f"{path}: decisions format version {payload.get('version')!r}; this engram-lab reads {EXPORT_VERSION}")
    items = payload.get("decisions", [])
    if not isinstance(items, list):
        raise DecisionFileError(f"{path}: \"decisions\" must be a list")
    now = now or dt.datetime.now(dt.timezone.utc)
    decisions, seen = [], set()
    for i, item in enumerate(items):
        try:
            decision = _decision(item, now)
            if decision.decision_id in seen:
                raise _Bad(f"decision_id {decision.decision_id!r} appears twice")
        except _Bad as exc:
            raise DecisionFileError(f"{path}: decision #{i + 1} is malformed: {exc}") from None
        seen.add(decision.decision_id)
        decisions.append(decision)
    return decisions


def _load(path: Path) -> Any:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DecisionFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DecisionFileError(f"{path}: is a folder, not a decisions file") from None
    except OSError as exc:
        raise DecisionFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return loads_bounded(data, max_bytes=MAX_FILE_BYTES)
    except JSONLimitError as exc:
        raise DecisionFileError(f"{path}: not a JSON decisions file: {exc}") from None


def _decision(item: Any, now: dt.datetime) -> Decision:
    if not isinstance(item, dict):
        raise _Bad("expected an object")
    known = {f.name for f in fields(Decision)}
    required = known - {"retracted_at"}
    if missing := sorted(required - set(item)):
        raise _Bad(f"missing {', '.join(missing)}")
    if unknown := sorted(set(item) - known):
        raise _Bad(f"unknown field(s) {', '.join(map(str, unknown))}")
    decision_id = _text(item, "decision_id")
    if not _ID.fullmatch(decision_id) or not _valid_iri(judgment_iri(decision_id)):  # the overlay names it in an IRI
        raise _Bad(f"decision_id {decision_id[:80]!r} is not an id (printable, no spaces, valid inside an IRI)")
    kind = _text(item, "kind")
    if kind not in VERDICTS:
        raise _Bad(f"unknown kind {kind!r}; known: {', '.join(sorted(VERDICTS))}")
    verdict = _text(item, "verdict")
    if verdict not in VERDICTS[kind]:
        raise _Bad(f"{verdict!r} is no {kind} verdict; use one of: {', '.join(sorted(VERDICTS[kind]))}")
    actor = _text(item, "actor")
    if not _ACTOR.fullmatch(actor):
        raise _Bad(f"actor must be 'auto', 'user' or 'llm:<model>', got {actor!r}")
    subject, obj = _iri(item, "subject", _SUBJECT_PREFIX[kind]), _iri(item, "object", _SUBJECT_PREFIX[kind])
    if subject == obj:
        raise _Bad(f"subject and object are the same ({subject})")
    made_at = _moment(item, "made_at", now)
    retracted_at = None if item.get("retracted_at") is None else _moment(item, "retracted_at", now)
    if retracted_at is not None and retracted_at < made_at:
        raise _Bad("retracted_at is before made_at")
    evidence = item["evidence"]
    if not isinstance(evidence, dict):
        raise _Bad("evidence must be an object")
    return Decision(decision_id, kind, subject, obj, verdict, actor, made_at, evidence, retracted_at)


def _text(item: dict[str, Any], key: str) -> str:
    value = item[key]
    if not isinstance(value, str):
        raise _Bad(f"{key} must be a string, got {type(value).__name__}")
    return value


def _iri(item: dict[str, Any], key: str, prefix: str) -> str:
    value = _text(item, key)
    if not value.startswith(prefix) or len(value) > 2048:
        raise _Bad(f"{key} must be an IRI starting {prefix}, got {value[:80]!r}")
    if not _valid_iri(value):
        raise _Bad(f"{key} is not a valid IRI: {value[:80]!r}")
    return value


def _valid_iri(value: str) -> bool:
    try:
        NamedNode(value)
    except ValueError:
        return False
    return True


def _moment(item: dict[str, Any], key: str, now: dt.datetime) -> str:
    """An ISO time with a zone, not in the future; written back in the ledger's own form, so times sort as text."""
    value = _text(item, key)
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise _Bad(f"{key} is not an ISO date and time: {value[:40]!r}") from None
    if moment.tzinfo is None:
        raise _Bad(f"{key} has no time zone: {value!r}")
    if moment > now + CLOCK_SKEW:
        raise _Bad(f"{key} {value!r} is in the future")
    return moment.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds")
