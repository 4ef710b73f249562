"""The read tools: search, turn context, notes, links, entities and the graph, each result wrapped as data.

Every function calls the engine's own read paths (``Engine.query``, ``read_note_bytes``, ``entity_summary``,
``Engine.sparql``) and only shapes their output for a model: path, span and heading on every passage, the
passage itself inside ``<external_content>`` (:mod:`engram_lab.agent.wrap`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from engram_lab.agent.graph_query import check_query_form, frame_rows
from engram_lab.agent.note_paths import check_note_path
from engram_lab.agent.session import AgentSession
from engram_lab.agent.wrap import wrap
from engram_lab.config import read_config
from engram_lab.errors import DocumentError, EngramError
from engram_lab.explain import entity_summary
from engram_lab.graph import vocabulary as v
from engram_lab.index.note_links import NoteLinkResolver
from engram_lab.index.tables import TABLES_DIR, TableStore
from engram_lab.retrieve.results import SearchResult
from engram_lab.retrieve.searcher import SearchOutcome
from engram_lab.state.db import engram_dir, open_ledger
from engram_lab.state.documents import DocumentRow, DocumentTable
from engram_lab.vault import decode_note_text, parse_document, read_note_bytes
from engram_lab.vault.markdown import link_object

MAX_K = 50
MAX_READ_CHARS = 60_000
MAX_LIST = 500


def _int(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EngramError(f"{name} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _query_text(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise EngramError("query must be a non-empty string")
    return query[:2000]


def result_json(result: SearchResult) -> dict[str, Any]:
    """One search hit for a model: where it is (path, cell, span, heading) and the passage, wrapped."""
    start, end = result.span or (None, None)
    return result.to_json() | {"path": result.path, "cell_id": result.cell_id, "status": result.status,
                               "heading": wrap(result.heading, result.doc) if result.heading else None,
                               "heading_path": [wrap(h, result.doc) for h in result.heading_path],
                               "text": wrap(result.text, result.doc, start, end)}


def agent_context(outcome: SearchOutcome) -> str:
    """The turn context with each passage wrapped as data; relation evidence (from the graph) wrapped as one block."""
    blocks = []
    relations = outcome.context.split("\n\n", 1)[0] if outcome.context.startswith("Relations:\n") else ""
    if relations:
        blocks.append(wrap(relations, "graph"))
    for result in outcome.results:
        if f"[{result.rank}] {result.provenance()}" not in outcome.context:
            continue  # cut by the context budget
        start, end = result.span or (None, None)
        blocks.append(f"[{result.rank}] {result.provenance()}\n{wrap(result.text.strip(), result.doc, start, end)}")
    return "\n\n".join(blocks)


def search(session: AgentSession, query: object, k: object = 5, mode: object = "full") -> dict[str, Any]:
    if not isinstance(mode, str):
        raise EngramError("mode must be a string")
    outcome = session.engine.query(_query_text(query), k=_int(k, "k", 1, MAX_K), mode=mode)
    payload: dict[str, Any] = {"query": outcome.query, "mode": outcome.mode, "results": [result_json(r) for r in outcome.results]}
    confidence = getattr(outcome, "confidence", None)
    if confidence is not None:
        payload["confidence"] = round(float(confidence), 4)
    if outcome.notes:
        payload["notes"] = list(outcome.notes)
    return payload


def context(session: AgentSession, query: object) -> dict[str, Any]:
    """The ``auto`` context: quick, no model loaded, partial and possibly stale."""
    outcome = session.engine.query(_query_text(query), k=8, mode="auto")
    return {"query": outcome.query, "mode": "auto", "context": agent_context(outcome)}


def _note_text(vault: Path, path: str) -> str:
    try:
        return decode_note_text(read_note_bytes(vault, path, read_config(vault).max_note_bytes).data, path)
    except DocumentError as exc:
        raise EngramError(str(exc)) from None


def read_note(session: AgentSession, path: object, start: object = None, end: object = None) -> dict[str, Any]:
    rel = check_note_path(path)
    text = _note_text(session.vault, rel)
    first = 0 if start is None else _int(start, "start", 0, len(text))
    last = len(text) if end is None else _int(end, "end", first, len(text))
    cut = last - first > MAX_READ_CHARS
    last = first + MAX_READ_CHARS if cut else last
    model = parse_document(text, rel, "markdown").parts[0].model
    # A heading is note text like any other: wrapped as data, so one cannot speak to the model as an instruction.
    headings = [{"text": wrap(h.text, rel, h.span.start, h.span.end), "level": h.level, "start": h.span.start}
                for h in model.headings][:200]
    inside = [h for h in headings if h["start"] <= first]
    out = {"path": rel, "span": [first, last], "total_chars": len(text), "heading": inside[-1]["text"] if inside else None,
           "headings": headings, "text": wrap(text[first:last], rel, first, last)}
    return out | ({"truncated": True, "next_start": last} if cut else {})


def _rows(vault: Path) -> list[DocumentRow]:
    conn = open_ledger(vault)
    try:
        return DocumentTable(conn).all()
    finally:
        conn.close()


def _relations(vault: Path, predicate: str) -> pl.DataFrame:
    return TableStore(engram_dir(vault) / TABLES_DIR).read("relations").filter(pl.col("predicate_iri") == predicate)


def list_notes(session: AgentSession, folder: object = None, tag: object = None) -> dict[str, Any]:
    rows = _rows(session.vault)
    if folder is not None:
        if not isinstance(folder, str):
            raise EngramError("folder must be a string")
        prefix = folder.strip().strip("/")
        rows = [r for r in rows if not prefix or r.path.startswith(prefix + "/")]
    if tag is not None:
        if not isinstance(tag, str) or not tag.strip():
            raise EngramError("tag must be a non-empty string")
        tags = _relations(session.vault, v.HAS_TAG.value)
        wanted = v.normalise_label(tag.strip().lstrip("#"))
        ids = {d for d, o in zip(tags["doc_id"].to_list(), tags["object"].to_list()) if v.normalise_label(o or "") == wanted}
        rows = [r for r in rows if r.doc_id in ids]
    notes = [{"path": r.path, "status": r.status, "title": wrap(r.title or r.path, r.path)} for r in rows[:MAX_LIST]]
    return {"notes": notes, "count": len(rows)} | ({"truncated": True} if len(rows) > MAX_LIST else {})


def note_links(session: AgentSession, path: object) -> dict[str, Any]:
    rel = check_note_path(path)
    text = _note_text(session.vault, rel)
    model = parse_document(text, rel, "markdown").parts[0].model
    rows = _rows(session.vault)
    resolve = NoteLinkResolver([r.title for r in rows], [r.path for r in rows])

    def target(name: str) -> str | None:
        found = resolve(name)
        return rows[found].path if found is not None else None

    out = [{"target": target(w.target), "span": [w.span.start, w.span.end],
            "text": wrap(w.span.of(text), rel, w.span.start, w.span.end)} for w in model.wikilinks if w.target]
    out += [{"target": target(found) or m.target, "span": [m.span.start, m.span.end], "text": wrap(m.span.of(text), rel, m.span.start, m.span.end)}
            for m in model.links if (found := link_object(m)) is not None and (m.target or target(found))]
    out.sort(key=lambda link: link["span"][0])
    me = next((r for r in rows if r.path == rel), None)
    back = []
    if me is not None:
        paths = {r.doc_id: r.path for r in rows}
        for row in _relations(session.vault, v.LINKS_TO.value).iter_rows(named=True):
            if row["doc_id"] != me.doc_id and target(row["object"] or "") == rel:
                source = paths.get(row["doc_id"], "?")
                back.append({"source": source, "span": [row["start"], row["end"]],
                             "text": wrap(row["label"] or row["object"], source, row["start"], row["end"])})
    return {"path": rel, "out_links": out[:MAX_LIST], "back_links": back[:MAX_LIST]}


def entity(session: AgentSession, name: object) -> dict[str, Any]:
    if not isinstance(name, str) or not name.strip():
        raise EngramError("name must be a non-empty string")
    summary = entity_summary(session.vault, name.strip()[:500], limit=30)
    mentions = [{"path": m["path"], "cell_id": m["cell_id"], "span": [m["start"], m["end"]],
                 "text": wrap(m["surface"] or "", m["path"], m["start"], m["end"])} for m in summary.mentions]
    relations = [{"path": r["path"], "cell_id": r["cell_id"], "span": [r["start"], r["end"]],
                  "text": wrap(f"{r['subject']} — {r['predicate']} — {r['object']}", r["path"], r["start"], r["end"])}
                 for r in summary.relations]
    return {"iri": summary.iri, "kind": summary.kind, "name": wrap(summary.name, "graph"),
            "labels": wrap(", ".join(summary.labels), "graph"), "same_as": summary.same_as,
            "mentions": mentions, "relations": relations}


def query_graph(session: AgentSession, sparql: object) -> dict[str, Any]:
    form = check_query_form(sparql)
    assert isinstance(sparql, str)
    rows, more = frame_rows(session.engine.sparql(sparql))
    return {"form": form, "rows": wrap(json.dumps(rows, ensure_ascii=False), "graph"), "row_count": len(rows)} | (
        {"truncated": True} if more else {})
