"""What people do with resolution and supersession: look up entities, judge, retract, give verdicts.

Every change goes to the ledger first (the authority), then the overlay and
analysis graphs are rebuilt from it. The review queue is not touched: it hides a
pair while a judgment on it is in force, so a retraction brings the pair back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engram_lab.config import load_config
from engram_lab.errors import EngramError
from engram_lab.extract.kinds import compatible
from engram_lab.graph.vocabulary import ENTITY_PREFIX, normalise_label
from engram_lab.resolve.entities import EntityView
from engram_lab.resolve.overlay import RESOLUTION, ResolutionState, resolve_state
from engram_lab.resolve.run import AnalysisInputs, AnalysisReport, analyse_vault, changing_decisions, load_tables
from engram_lab.resolve.supersession import SUPERSESSION, surface_words
from engram_lab.state.db import ledger_connection
from engram_lab.state.decisions import Decision, DecisionLedger
from engram_lab.state.review import QueuedPair, ReviewQueue, StoredCandidate

RESOLUTION_VERDICTS = ("same", "distinct", "broader", "narrower", "related")


def find_entity(view: EntityView, text: str) -> int:
    """An entity by IRI, or by name or alias (any case); an unknown or ambiguous name is a clear error."""
    if text.startswith(ENTITY_PREFIX):
        if text in view.index:
            return view.index[text]
        raise EngramError(f"no entity {text} in the index (was its note re-indexed or deleted?)")
    wanted = normalise_label(text)
    hits = [i for i, labels in enumerate(view.labels) if wanted in {normalise_label(x) for x in labels}]
    if not hits:
        raise EngramError(f"no entity named {text!r}; `engram sparql` or `engram resolve` show the names known")
    by_name = [i for i in hits if normalise_label(view.names[i]) == wanted]
    if len(by_name) == 1:
        return by_name[0]  # a name beats another entity's alias
    if len(hits) > 1:
        options = ", ".join(f"{view.iris[i]} ({view.kinds[i]})" for i in hits)
        raise EngramError(f"{text!r} names {len(hits)} entities; give one IRI: {options}")
    return hits[0]


def judge_pair(vault: Path, a: str, b: str, verdict: str, *, actor: str = "user", force: bool = False) -> Decision:
    """Record a judgment 'A VERDICT B' ('broader': A is broader than B) and refresh the overlay."""
    if verdict not in RESOLUTION_VERDICTS:
        raise EngramError(f"unknown verdict {verdict!r}; use one of: {', '.join(RESOLUTION_VERDICTS)}")
    view = load_tables(vault).view
    i, j = find_entity(view, a), find_entity(view, b)
    if i == j:
        raise EngramError(f"{a!r} and {b!r} are the same entity already")
    if verdict == "same" and not compatible(view.kinds[i], view.kinds[j]) and not force:
        raise EngramError(f"a {view.kinds[i]} ({view.names[i]}) is never a {view.kinds[j]} ({view.names[j]}): "
                          "kinds veto the merge; pass --force if the extractor got a kind wrong")
    with changing_decisions(vault) as ledger:
        return ledger.record(
            RESOLUTION, view.iris[i], view.iris[j], verdict, actor,
            {"names": [view.names[i], view.names[j]], "kinds": [view.kinds[i], view.kinds[j]], "forced": force})


def retract_decision(vault: Path, decision_id: str) -> Decision:
    """Undo a judgment or verdict: what it outranked holds again, and a pair it took off the queue returns."""
    with changing_decisions(vault) as ledger:
        return ledger.retract(decision_id)


def pending_pairs(vault: Path, limit: int | None = None, *, sort: str = "score") -> list[QueuedPair]:
    with ledger_connection(vault) as conn:
        return ReviewQueue(conn).pairs(limit, sort=sort)


def pending_rules(vault: Path) -> dict[str, int]:
    """Waiting pairs per rule that proposed them (what a bulk dismissal of each would take)."""
    with ledger_connection(vault) as conn:
        return ReviewQueue(conn).rule_counts()


def supersession_candidates(vault: Path) -> list[StoredCandidate]:
    with ledger_connection(vault) as conn:
        return ReviewQueue(conn).candidates()


def candidate_id(candidate: StoredCandidate) -> str:
    """A short handle for the CLI and panels: the last 12 characters of the candidate's IRI."""
    return str(candidate.evidence.get("iri", ""))[-12:]


def supersession_item(c: StoredCandidate) -> dict[str, Any]:
    """A candidate as people and tools see it: its handle, its evidence, and the shared words as the two
    decisions wrote them (the stored ones are stems, such as "sampl")."""
    ev = c.evidence
    texts = (ev.get("earlier", {}).get("text", ""), ev.get("later", {}).get("text", ""))
    return {"id": candidate_id(c), **ev, "shared_words": surface_words(list(ev.get("shared_words") or []), *texts)}


def supersession_verdict(vault: Path, handle: str, verdict: str, *, actor: str = "user") -> Decision:
    """Accept or reject a supersession candidate named by its handle (``engram supersessions`` lists them)."""
    if verdict not in ("accept", "reject"):
        raise EngramError(f"a supersession verdict is accept or reject, got {verdict!r}")
    matches = [c for c in supersession_candidates(vault) if candidate_id(c) == handle or c.evidence.get("iri") == handle]
    if not matches:
        raise EngramError(f"no supersession candidate {handle!r}; `engram supersessions VAULT` lists them")
    c = matches[0]
    with changing_decisions(vault) as ledger:
        return ledger.record(SUPERSESSION, c.earlier, c.later, verdict, actor,
                             {"earlier": c.evidence["earlier"], "later": c.evidence["later"]})


def resolution_state(vault: Path) -> ResolutionState:
    """The judgments in force among the entities the notes hold now."""
    present = set(load_tables(vault).view.iris)
    with ledger_connection(vault) as conn:
        return resolve_state(DecisionLedger(conn).all(), present)


def import_decisions(vault: Path, path: Path) -> dict[str, int]:
    """Merge an export into the ledger, then rebuild the overlay and candidates, so what it decided shows now."""
    with changing_decisions(vault) as ledger:
        return ledger.import_json(path)


def run_analysis(vault: Path, changed_docs: set[str] | None = None, inputs: AnalysisInputs | None = None) -> AnalysisReport:
    """The analysis pass with the judge the vault's config asks for (``inputs``: as ``analyse_vault``'s)."""
    config = load_config(vault)
    judge = None
    if config.resolution.judge == "llm":
        from engram_lab.resolve.llm_judge import LLMJudge  # imports the openai client

        judge = LLMJudge(config.resolution.endpoint)
    return analyse_vault(vault, changed_docs=changed_docs, judge=judge, inputs=inputs)
