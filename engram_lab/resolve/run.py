"""The analysis pass after indexing: resolution candidates and automatic judgments, the review queue,
the overlay graph, and supersession candidates in ``#analysis`` graphs.

It reads the Parquet tables (never the notes) and the ledger, so it can be rerun
at any time; with ``changed_docs`` it scores only pairs touching entities whose
evidence inputs moved (``focus.py``). Automatic judgments follow the evidence
(made, or withdrawn when it goes) whatever a person decided on the pair, and the
queue keeps every pair up for review: precedence and the queue's reader decide
what shows. The overlay is a function of the ledger and the entities present.
Writes, in order: ledger decisions and queue (one transaction), then the graphs,
which are projections and rebuilt whole when they move.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Set
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
from pyoxigraph import NamedNode

from engram_lab.graph import vocabulary as v
from engram_lab.graph.store import STORE_DIR, GraphStore
from engram_lab.index.derived import index_dir
from engram_lab.index.publish import current_index_dir
from engram_lab.index.retrieval_index import RETRIEVAL_INDEX, layout_is_current, synonym_pairs_and_entities
from engram_lab.index.note_links import stem_and_base
from engram_lab.index.tables import SCHEMAS, TABLES_DIR, TableStore
from engram_lab.last_few import LastFew, kept_for_last
from engram_lab.resolve.candidates import Pair, candidate_pairs
from engram_lab.resolve.entities import EntityView, table_entity_view
from engram_lab.resolve.evidence import Expansions, PairEvidence, score_pair
from engram_lab.resolve.focus import (entity_digests, keep_recorded, keep_stored_digests, moved_entities, record_digests,
                                      stored_digests)
from engram_lab.resolve.graphs import analysis_quads, held_judgments, judgment_quads, overlay_quads, retired_quads
from engram_lab.resolve.held_record import judgments_digest, record_held, recorded_held
from engram_lab.resolve.name_keys import MEMO_FILE
from engram_lab.resolve.overlay import RESOLUTION, ResolutionState, pair_key, resolve_state, state_among
from engram_lab.resolve.overlay import Pair as IriPair
from engram_lab.resolve import names as nm
from engram_lab.resolve.supersession import Candidate, DatedDecision, dated_decisions, find_candidates, linked_titles
from engram_lab.state.db import OVERLAY_GENERATION, bump_counter, engram_dir, ledger_connection, open_ledger, read_meta, set_meta, transaction
from engram_lab.state.decisions import Decision, DecisionLedger, machine_decision_id
from engram_lab.state.lock import vault_write_lock
from engram_lab.state.review import ReviewQueue, StoredCandidate

if TYPE_CHECKING:  # the judge's module imports the openai client: only a run with a judge needs it
    from engram_lab.resolve.llm_judge import LLMJudge

ANALYSIS_DIR = "analysis"  # under .engram: what the analysis remembers between passes (derived, rebuildable)
OVERLAY_DIGEST = "overlay_digest"  # meta key: the judgments the overlay graph was last written with
FULL_PASS_SHARE = 0.5  # a focus holding more of the entities than this runs as the full pass


@dataclass
class AnalysisReport:
    entities: int = 0
    candidate_pairs: int = 0
    auto_same: list[tuple[str, str]] = field(default_factory=list)
    auto_retracted: int = 0
    queued: int = 0
    llm_judged: int = 0
    supersessions: int = 0
    embedding_leg: bool = False
    seconds: float = 0.0


@dataclass
class TableData:
    """What the analysis reads from the Parquet tables."""

    view: EntityView
    statements: pl.DataFrame
    documents: pl.DataFrame

    def decisions(self, state: ResolutionState) -> list[DatedDecision]:
        names = dict(zip(self.view.iris, self.view.names))
        return dated_decisions(self.statements, state, names, notes_titled(self.documents, linked_titles(self.statements)))


def notes_titled(documents: pl.DataFrame, forms: Set[str]) -> dict[str, str]:
    """Each of ``forms`` that a note's folded title, file stem or path equals -> the first such note (table order).

    Folding every note's three names took 2 s the first time a process recomputed the candidates at 100,000 notes,
    for the few names decisions link to. Folding keeps an ASCII text's letters and digits, lower-cased, so a note
    whose title and path are ASCII can fold to a form only if one of them, lower-cased, contains the form's first
    word: only those notes, and those with other characters, are folded."""
    if not forms:
        return {}
    candidates = documents.select("doc_id", "title", "path")
    if "" not in forms:  # an empty form has no first word to look for
        words = sorted({form.split(" ", 1)[0] for form in forms})
        text = pl.concat_str(pl.col("title").fill_null(""), pl.lit("\n"), pl.col("path"))
        candidates = candidates.filter(text.str.contains(r"[^\x00-\x7F]") | text.str.to_lowercase().str.contains_any(words))
    found: dict[str, str] = {}
    for doc_id, title, path in candidates.iter_rows():
        for form in _title_forms(title or "", path):
            if form in forms:
                found.setdefault(form, doc_id)
    return found


@lru_cache(maxsize=1 << 18)  # a process recomputing the candidates (a delete, say) folded every note's names again: 9 s
# of a delete at 100,000 notes
def _title_forms(title: str, path: str) -> tuple[str, str, str]:
    """A note's title, file stem and path without suffix, folded as names are (how a decision names its note)."""
    stem, without_suffix = stem_and_base(path)
    return nm.loose(title), nm.loose(stem), nm.loose(without_suffix)


def load_tables(vault: Path) -> TableData:
    tables = TableStore(engram_dir(vault) / TABLES_DIR)
    view = table_entity_view(tables, memo=engram_dir(vault) / ANALYSIS_DIR / MEMO_FILE)
    return TableData(view, tables.read("statements"), tables.read("documents"))


def warm_analysis(vault: Path) -> None:
    """Read what an edit's focused pass keeps between edits in a long-lived process (every table bucket, the
    name-key memo, the recorded digests, the resolution state and its digest), so the first edit after start-up
    costs what the later ones do (at 10,000 notes these reads were ~1 s of it; the state and its digest, 0.45 s at
    100,000)."""
    tables = TableStore(engram_dir(vault) / TABLES_DIR)
    for table in SCHEMAS:  # into the process's bucket cache; the retrieval index reads them too
        tables.read_buckets(table)
    view = load_tables(vault).view
    view.name_keys
    with ledger_connection(vault) as conn:
        keep_stored_digests(conn)
        _overlay_digest(state_among(DecisionLedger(conn).verdicts(), frozenset(view.iris)))  # as the pass asks for them


def embedding_neighbours(vault: Path, view: EntityView, focus: set[int] | None = None) -> dict[Pair, float]:
    """Label-embedding neighbours (cosine >= 0.75) from the last published retrieval index, by our indices; with a
    ``focus``, only the pairs touching it (the only ones a focused pass scores: 1.3 million pairs on the
    10,000-note benchmark, a few hundred for one edited note)."""
    folder = current_index_dir(index_dir(vault), RETRIEVAL_INDEX)
    found = synonym_pairs_and_entities(folder) if folder is not None and layout_is_current(folder) else None
    if found is None:
        return {}
    return index_pairs_as_ours(*found, view.frame["entity_iri"], focus)


def index_pairs_as_ours(pairs: pl.DataFrame, index_iris: pl.Series, our_iris: pl.Series,
                        focus: set[int] | None = None) -> dict[Pair, float]:
    """The index's entity pairs (``a``, ``b``: rows of ``index_iris``; ``cosine``) between two of our entities (rows
    of ``our_iris``), as (low, high) -> cosine; with a ``focus`` (our rows), only those touching it. A focused call
    finds the focus's index rows first and maps only their pairs: mapping every index row to ours by a join of
    580,000 IRIs took 0.2 s of each edit at 100,000 notes."""
    a, b, cosine = pairs["a"].to_numpy(), pairs["b"].to_numpy(), pairs["cosine"].to_numpy()
    rows = our_iris.to_frame("entity_iri").with_row_index("ours")
    if focus is not None:
        near = index_iris.is_in(our_iris.gather(sorted(focus)).implode()).to_numpy()
        touching = np.flatnonzero(near[a] | near[b])
        ends = np.union1d(a[touching], b[touching])  # the index rows met: their IRIs alone are mapped to ours
        a, b, cosine = np.searchsorted(ends, a[touching]), np.searchsorted(ends, b[touching]), cosine[touching]
        index_iris = index_iris.gather(ends)
        rows = rows.filter(pl.col("entity_iri").is_in(index_iris.implode()))
    ours = (index_iris.to_frame("entity_iri")  # index row -> our entity, or -1
            .join(rows, on="entity_iri", how="left", maintain_order="left")["ours"].cast(pl.Int64).fill_null(-1).to_numpy())
    x, y = ours[a], ours[b]
    keep = (x >= 0) & (y >= 0) & (x != y)
    if focus is not None:
        chosen = np.zeros(max(len(our_iris), 1), dtype=bool)
        chosen[list(focus)] = True
        keep &= chosen[np.maximum(x, 0)] | chosen[np.maximum(y, 0)]
    x, y, cosine = x[keep], y[keep], cosine[keep]
    low, high = np.minimum(x, y), np.maximum(x, y)
    return {(int(p), int(q)): float(c) for p, q, c in zip(low, high, cosine)}


def focus_rows(view: EntityView, moved: Set[str], changed_docs: Set[str]) -> set[int]:
    """The view's rows an edit's pass scores: entities whose digest moved, and every entity of a changed note."""
    rows = view.frame.select("entity_iri", "doc_ids").with_row_index("row")
    in_changed = rows.select("row", "doc_ids").explode("doc_ids").filter(pl.col("doc_ids").is_in(sorted(changed_docs)))
    return set(rows.filter(pl.col("entity_iri").is_in(sorted(moved)))["row"].to_list()) | set(in_changed["row"].to_list())


def score_candidates(view: EntityView, focus: set[int] | None, embedding: dict[Pair, float],
                     expansions: Expansions | None = None) -> list[PairEvidence]:
    expansions = expansions or Expansions(view)
    pairs = candidate_pairs(view, focus, embedding)
    names = view.names
    expansions.know_writing(nm.loose(names[i]) for i in {i for pair in pairs for i in pair})  # what the typo rule may ask
    return [score_pair(view, a, b, sources, expansions, embedding.get((a, b))) for (a, b), sources in sorted(pairs.items())]


def _titles(conn) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {r["doc_id"]: r["title"] or r["path"] for r in conn.execute("SELECT doc_id, title, path FROM documents")}


@dataclass(frozen=True)
class AnalysisInputs:
    """What a pass derives from the tables alone, before it reads the ledger or the retrieval index: an index run
    reads it beside the search indexes' build (1.2 s of an edit at 100,000 notes)."""

    data: TableData
    expansions: Expansions
    digests: pl.DataFrame  # ``entity_digests``


def read_inputs(vault: Path) -> AnalysisInputs:
    """The analysis's reads of the tables (``analyse_vault`` takes them); call once the index run wrote the tables."""
    data = load_tables(vault)
    expansions = Expansions(data.view)
    digests = entity_digests(data.view, expansions)
    data.view.iris  # listed by the pass too
    return AnalysisInputs(data, expansions, digests)


def analyse_vault(vault: Path, *, changed_docs: set[str] | None = None, judge: LLMJudge | None = None,
                  inputs: AnalysisInputs | None = None) -> AnalysisReport:
    """Run resolution and supersession analysis; ``changed_docs`` None means every entity is in focus. ``inputs``:
    ``read_inputs(vault)`` for the tables as they are now, when the caller read them already."""
    started = time.perf_counter()
    report = AnalysisReport()
    inputs = read_inputs(vault) if inputs is None else inputs
    data, expansions, digests = inputs.data, inputs.expansions, inputs.digests
    view = data.view
    report.entities = view.size

    conn = open_ledger(vault)
    try:
        ledger, queue = DecisionLedger(conn), ReviewQueue(conn)
        stored = stored_digests(conn)
        moved, gone = moved_entities(stored, digests)
        focus = None if changed_docs is None else focus_rows(view, moved, changed_docs)
        if focus is not None and len(focus) > FULL_PASS_SHARE * view.size:
            focus = None  # most of the vault moved (a first run, say): the full pass does the same work in bulk
        embedding = embedding_neighbours(vault, view, focus)
        report.embedding_leg = bool(embedding)
        scored = score_candidates(view, focus, embedding, expansions) if focus is None or focus else []
        report.candidate_pairs = len(scored)
        present = frozenset(view.iris)
        rescored = present if focus is None else {view.iris[i] for i in focus}
        with transaction(conn):
            if focus is None:
                queued_before = {pair_key(a, b) for a, b in queue.keys()}
                queue.keep_only(present)
                decisions = ledger.all(with_evidence=False)  # ids and pairs only
            else:  # only rows touching the focus: every pair this pass scores touches it (and the queue may hold 400,000)
                queued_before = {pair_key(a, b) for a, b in queue.keys_touching(rescored)}
                queue.remove_touching(gone)  # the focused form of keep_only: every queued entity had its digest recorded
                decisions = ledger.touching(RESOLUTION, rescored)
            queue.remove_touching(rescored)
            new_in_queue = _apply_evidence(scored, decisions, ledger, queue, queued_before, report)
            _withdraw_unsupported(ledger, decisions, scored, rescored, present, report)
            recorded = record_digests(conn, stored, digests, None if focus is None else moved, gone)
        keep_recorded(conn, recorded)
        if judge is not None and new_in_queue:
            report.llm_judged = _ask_judge(judge, view, new_in_queue, ledger, _titles(conn))
        state = state_among(ledger.verdicts(), present)  # evidence only for what is written below
        overlay_moved = _overlay_digest(state) != read_meta(conn, OVERLAY_DIGEST)
        if changed_docs is not None and not overlay_moved and not _candidates_affected(data, changed_docs, queue):
            report.supersessions = queue.candidate_count()
            report.seconds = time.perf_counter() - started
            return report  # no judgment in force moved and no dated decision was touched: graphs and candidates stand
        candidates, changed = _recompute_candidates(ledger, queue, data, state)
        report.supersessions = len(candidates)
    finally:
        conn.close()
    write_projections(vault, state, candidates, changed)
    report.seconds = time.perf_counter() - started
    return report


def _apply_evidence(scored: list[PairEvidence], decisions: list[Decision], ledger: DecisionLedger, queue: ReviewQueue,
                    queued_before: set[IriPair], report: AnalysisReport) -> list[PairEvidence]:
    """Make automatic judgments and queue pairs as the evidence says; returns the pairs new in the queue
    that nobody judged (for the LLM judge). A person's retraction of an automatic judgment keeps its row
    (retracted), and its id is derived from the pair, so the same evidence does not make it again.
    ``decisions``: the ledger's, or at least every one touching a scored pair."""
    known = {d.decision_id for d in decisions}
    judged = {pair_key(d.subject, d.object) for d in decisions if d.kind == RESOLUTION and d.active and d.actor != "auto"}
    new_in_queue: list[PairEvidence] = []
    for ev in scored:
        key = pair_key(ev.a, ev.b)
        if ev.verdict == "auto-same":
            auto_id = machine_decision_id(RESOLUTION, key[0], key[1], "same", "auto")
            if auto_id not in known:
                ledger.record_within(RESOLUTION, key[0], key[1], "same", "auto", ev.to_json(), decision_id=auto_id)
                report.auto_same.append((ev.name_a, ev.name_b))
        elif ev.verdict == "review":
            queue.put(key[0], key[1], ev.score, ev.rule, ev.to_json() | {"a": ev.a, "b": ev.b})
            report.queued += 1
            if key not in queued_before and key not in judged:
                new_in_queue.append(ev)
    return new_in_queue


def _withdraw_unsupported(ledger: DecisionLedger, decisions: list[Decision], scored: list[PairEvidence], rescored: set[str],
                          present: Set[str], report: AnalysisReport) -> None:
    """Withdraw automatic merges between present entities that this pass re-scored and no longer finds:
    the evidence now says review or nothing, or blocking stopped proposing the pair (an alias went).
    One made before ids were derived from the pair gives way to its derived twin."""
    supported = {pair_key(ev.a, ev.b) for ev in scored if ev.verdict == "auto-same"}
    for d in decisions:
        if d.kind != RESOLUTION or d.actor != "auto" or d.verdict != "same" or not d.active:
            continue
        key = pair_key(d.subject, d.object)
        touched = d.subject in rescored or d.object in rescored
        legacy = d.decision_id != machine_decision_id(RESOLUTION, key[0], key[1], "same", "auto")
        if touched and d.subject in present and d.object in present and (key not in supported or legacy):
            ledger.withdraw_within(d.decision_id)
            report.auto_retracted += 1


@kept_for_last  # the state of the last edit, usually (0.05 s at 10,000 notes)
def _overlay_digest(state: ResolutionState) -> str:
    """What the overlay graph is written from: the judgments in force and the merges kept apart."""
    return judgments_digest(_overlay_judgments(state))


def _candidates_affected(data: TableData, changed_docs: set[str], queue: ReviewQueue) -> bool:
    """Whether the notes this focused pass read can change any supersession candidate."""
    decisions = data.statements.filter((pl.col("kind") == "decision") & pl.col("date").is_not_null())
    if decisions.filter(pl.col("doc_id").is_in(list(changed_docs))).height:
        return True
    referenced = queue.candidate_docs()
    present = set(data.documents["doc_id"].to_list())
    return bool(referenced & changed_docs) or bool(referenced - present)  # edited, or deleted, notes in candidates


_FLIPPED = {"broader": "narrower", "narrower": "broader"}


def judgment_id(subject: str, obj: str, verdict: str, actor: str) -> str:
    """A machine judgment's id, the same whichever way round the pair was asked (a broader one way is a
    narrower the other): a rebuilt vault's judge then makes the decision an export knows, retraction included."""
    if (subject, obj) == pair_key(subject, obj):
        return machine_decision_id(RESOLUTION, subject, obj, verdict, actor)
    return machine_decision_id(RESOLUTION, obj, subject, _FLIPPED.get(verdict, verdict), actor)


def _ask_judge(judge: LLMJudge, view: EntityView, pairs: list[PairEvidence], ledger: DecisionLedger,
               titles: dict[str, str]) -> int:
    """Ask the judge about each pair; a verdict it gave before (in force or retracted by a person) is not recorded
    again, so a retraction holds however often the pair comes back to the queue."""
    known = {d.decision_id for d in ledger.all(with_evidence=False)}
    judged = 0
    for ev in pairs:
        a, b = view.index[ev.a], view.index[ev.b]
        reply = judge.judge(ev, sorted(titles.get(d, d) for d in view.doc_sets[a]), sorted(titles.get(d, d) for d in view.doc_sets[b]))
        if reply.verdict is None:
            continue
        decision_id = judgment_id(ev.a, ev.b, reply.verdict, judge.actor)
        if decision_id in known:
            continue
        with transaction(ledger.conn):
            ledger.record_within(RESOLUTION, ev.a, ev.b, reply.verdict, judge.actor,
                                 ev.to_json() | {"llm_reason": reply.reason}, decision_id=decision_id)
        known.add(decision_id)
        judged += 1
    return judged


def _stored(c: Candidate) -> StoredCandidate:
    evidence = c.evidence() | {"status": c.status, "verdict_id": c.verdict_id, "iri": c.iri}
    return StoredCandidate(c.earlier.key, c.later.key, c.earlier.doc_id, c.later.doc_id, c.later.date.isoformat(), evidence)


# Per store, the judgments its overlay graph holds as this process last wrote them, and the digest written beside
# them: while the ledger still carries that digest no other writer has changed the graph, and reading the judgments
# back from it (1.2 s after a delete at 100,000 notes) is not needed. A new process reads ``held_record``'s table.
_HELD: LastFew[Path, tuple[str, dict[str, str | None]]] = LastFew(4)


def write_projections(vault: Path, state: ResolutionState, candidates: list[Candidate], docs: set[str] | None = None) -> None:
    """Rebuild the overlay graph and the ``#analysis`` graphs of ``docs`` (None: every one) from the state;
    then note what the overlay was written from, so a pass where it did not move can skip the graphs. The note is
    cleared while the graphs are written: a run killed half-way leaves nothing that says they are current."""
    store_dir = engram_dir(vault) / STORE_DIR
    with vault_write_lock(vault):
        written = _swap_overlay_digest(vault, "")
        kept = _HELD.get(store_dir)
        held = kept[1] if kept is not None and written and kept[0] == written else None
        if held is None and written:  # a process that has not written the graph yet: the record, if it is current
            held = recorded_held(engram_dir(vault) / ANALYSIS_DIR, written)
        wanted = _overlay_judgments(state)
        _write_projections(vault, state, candidates, docs, held, wanted)
        if held != wanted:  # a ``held`` known before writing is the record's, or what this process last recorded
            try:
                record_held(engram_dir(vault) / ANALYSIS_DIR, wanted)
            except OSError:  # only a shortcut: an older record's digest is not the one set below, so it is never trusted
                pass
        digest = _overlay_digest(state)
        _swap_overlay_digest(vault, digest)
    _HELD[store_dir] = (digest, wanted)


def _overlay_judgments(state: ResolutionState) -> dict[str, str | None]:
    """What the overlay graph holds for ``state``: each judgment in force, and why it is kept apart (or None)."""
    return {d.decision_id: state.blocked.get(d.decision_id) for d in state.judgments.values()}


def _swap_overlay_digest(vault: Path, digest: str) -> str | None:
    """Set the overlay digest the ledger carries; returns the one it carried."""
    conn = open_ledger(vault)
    try:
        with transaction(conn):
            before = read_meta(conn, OVERLAY_DIGEST)
            set_meta(conn, OVERLAY_DIGEST, digest)
        return before
    finally:
        conn.close()


def _write_projections(vault: Path, state: ResolutionState, candidates: list[Candidate], docs: set[str] | None,
                       held: dict[str, str | None] | None = None, wanted: dict[str, str | None] | None = None) -> None:
    """``held``: the judgments the overlay graph holds, when known without reading it; ``wanted``:
    ``_overlay_judgments(state)``, when the caller has it."""
    wanted = _overlay_judgments(state) if wanted is None else wanted
    store = GraphStore(engram_dir(vault) / STORE_DIR)
    try:
        has_overlay = store.has_graph(v.OVERLAY_GRAPH)
        if not has_overlay:
            docs, held = None, None  # a rebuilt store: write every projection again
        _write_overlay(vault, store, state, wanted, has_overlay, held)
        by_doc: dict[str, list[Candidate]] = {}
        for c in candidates:
            by_doc.setdefault(c.later.doc_id, []).append(c)
        analyses = {v.analysis_graph_iri(doc): doc for doc in by_doc}
        # Which analysis graphs may be stale: any (the store's graphs listed: 0.4 s at 100,000 notes), or in a focused
        # pass those of the notes whose candidates changed, the only ones that can have.
        maybe = ({g for g in store.graphs() if g.endswith("#analysis")} if docs is None
                 else {v.analysis_graph_iri(doc) for doc in docs})
        for graph in sorted(maybe - analyses.keys()):
            store.drop_graph(graph)
        for graph, doc in analyses.items():
            if docs is None or doc in docs:
                store.replace_graph(graph, analysis_quads(doc, by_doc[doc]))
        store.settle_if_large()
    finally:
        store.close()


def _write_overlay(vault: Path, store: GraphStore, state: ResolutionState, wanted: dict[str, str | None],
                   has_overlay: bool, held: dict[str, str | None] | None = None) -> None:
    """The overlay graph changed by the judgments that entered or left it (or were kept apart, or let go): rewriting
    it whole meant 212,000 quads for the 10,000-note benchmark's 23,500 automatic merges, 5 s after deleting a note.
    A decision never changes once made (only its retraction, which takes it out of force), so a judgment held with
    the same id and the same reason to keep it apart is already written as it should be. ``wanted``:
    ``_overlay_judgments(state)``."""
    if not has_overlay or not wanted:
        store.replace_graph(v.OVERLAY_GRAPH, overlay_quads(_with_evidence(vault, state)))  # written whole, or dropped
        return
    if held is None:
        held = held_judgments(lambda predicate: store.quads_with(v.OVERLAY_GRAPH, predicate=predicate))
    settled = {i for i, why in held.items() if i in wanted and wanted[i] == why}  # held already as it should be
    retired = sorted(set(held) - settled)
    entering = {key: d for key, d in state.judgments.items() if d.decision_id not in settled}
    remove = [q for i in retired for q in retired_quads(i, store.quads_with(v.OVERLAY_GRAPH, subject=NamedNode(v.judgment_iri(i))))]
    add = [q for _key, d in sorted(_with_evidence(vault, ResolutionState(entering)).judgments.items())
           for q in judgment_quads(d, wanted[d.decision_id])]
    store.change_graph(v.OVERLAY_GRAPH, remove, add)


def _with_evidence(vault: Path, state: ResolutionState) -> ResolutionState:
    """``state``'s judgments with their evidence, read for these alone (the graph carries each judgment's evidence)."""
    conn = open_ledger(vault)
    try:
        return ResolutionState(DecisionLedger(conn).with_evidence(state.judgments), blocked=state.blocked)
    finally:
        conn.close()


def _recompute_candidates(ledger: DecisionLedger, queue: ReviewQueue, data: TableData,
                          state: ResolutionState) -> tuple[list[Candidate], set[str]]:
    """Supersession candidates over resolved subjects (stored in the ledger); also the notes whose
    ``#analysis`` graph must be rewritten because their candidates changed."""
    candidates = find_candidates(data.decisions(state), ledger.all(kind="supersession"))
    stored = [_stored(c) for c in candidates]
    with transaction(ledger.conn):
        before = queue.candidates()
        changed = _changed_docs(before, stored)
        if queue.replace_candidates(stored, before):
            bump_counter(ledger.conn, OVERLAY_GENERATION)
    return candidates, changed


def _changed_docs(before: list[StoredCandidate], after: list[StoredCandidate]) -> set[str]:
    def grouped(rows: list[StoredCandidate]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for c in rows:
            out.setdefault(c.later_doc, set()).add(json.dumps(c.evidence, sort_keys=True))
        return out

    old, new = grouped(before), grouped(after)
    return {doc for doc in old.keys() | new.keys() if old.get(doc) != new.get(doc)}


def refresh_projections(vault: Path) -> ResolutionState:
    """After a judgment, a verdict, a retraction or an import: recompute state and candidates from the ledger
    and the entities present, rewrite the graphs."""
    data = load_tables(vault)
    with ledger_connection(vault) as conn:
        ledger = DecisionLedger(conn)
        state = resolve_state(ledger.all(), set(data.view.iris))
        candidates, changed = _recompute_candidates(ledger, ReviewQueue(conn), data, state)
    write_projections(vault, state, candidates, changed)
    return state


@contextmanager
def changing_decisions(vault: Path) -> Iterator[DecisionLedger]:
    """The decision ledger for one change a person (or the judge) makes; when the change went through, the
    overlay, the review queue and the analysis graphs are rebuilt from the ledger (``refresh_projections``)."""
    with ledger_connection(vault) as conn:
        yield DecisionLedger(conn)
    refresh_projections(vault)
