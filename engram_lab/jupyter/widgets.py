"""anywidget panels: provenance, the graph view (local graph, PPR activation), and the review queues. JS and CSS are files in this
package (``static/``), loaded without any network. Each panel talks to the kernel by messages; every
write goes through the engine (ledger first), then the panel's state is refreshed from it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from engram_lab.agent.checkpoints import list_checkpoints, rewind
from engram_lab.agent.proposals import approve, list_proposals, reject
from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.procedural.store import MemoryStore
from engram_lab.jupyter.review_items import pair_item, supersession_item
from engram_lab.retrieve.local_graph import describe
from engram_lab.state.review import SORTS
from engram_lab.state.review_page import DEFAULT_PAGE_SIZE, clamp_page, page_of

STATIC = Path(__file__).parent / "static"


class _Panel(anywidget.AnyWidget):
    _css = STATIC / "panels.css"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._on_message)

    def _on_message(self, _widget: object, content: dict[str, Any], _buffers: object) -> None:
        raise NotImplementedError


class ProvenancePanel(_Panel):
    """One result: note text with the span marked, named graph, triples, authorship, overlays."""

    _esm = STATIC / "provenance.js"
    data = traitlets.Dict().tag(sync=True)
    opened = traitlets.List().tag(sync=True)  # paths the reader opened from here

    def _on_message(self, _widget: object, content: dict[str, Any], _buffers: object) -> None:
        if content.get("type") == "opened":
            self.opened = [*self.opened, str(content.get("path"))]


class GraphPanel(_Panel):
    """The graph view (static/activation.js): zoom, pan, filters by edge type and node kind. A click on a note
    opens it in the editor (in the browser); a click on an entity lists its mentions here."""

    _esm = STATIC / "activation.js"
    title = traitlets.Unicode().tag(sync=True)
    summary = traitlets.Unicode().tag(sync=True)
    vault = traitlets.Unicode().tag(sync=True)  # where the notes opened from the view live
    graph = traitlets.Dict().tag(sync=True)
    selected = traitlets.Unicode().tag(sync=True)
    mentions = traitlets.List().tag(sync=True)

    def __init__(self, graph: dict[str, Any], mentions_of: Callable[[int], list[dict[str, Any]]], **kwargs: Any) -> None:
        super().__init__(graph=graph, **kwargs)
        self._mentions_of = mentions_of

    def _on_message(self, _widget: object, content: dict[str, Any], _buffers: object) -> None:
        if content.get("type") != "node":
            return
        node = next((n for n in self.graph.get("nodes", []) if n["id"] == content.get("id")), None)
        if node is None:
            return
        with self.hold_sync():  # the name and its mentions reach the page together
            self.selected = node["label"]
            self.mentions = [{"path": node["path"], "start": None, "end": None, "surface": "(the note itself)"}] \
                if node["type"] == "passage" else self._mentions_of(int(node["id"]))


class ActivationPanel(GraphPanel):
    """Seeds, activated nodes and typed edges of one query; a click on a node lists its mentions."""

    query = traitlets.Unicode().tag(sync=True)

    def __init__(self, query: str, graph: dict[str, Any], mentions_of: Callable[[int], list[dict[str, Any]]], **kwargs: Any) -> None:
        summary = f"{graph.get('shown', 0)} of {graph.get('total', 0)} active nodes shown" + \
            (" (capped: only the most activated are drawn)" if graph.get("capped") else "")
        super().__init__(graph, mentions_of, query=query, title=f'activation for "{query}"', summary=summary, **kwargs)

    def to_pyvis(self, path: str | Path) -> Path:
        from engram_lab.jupyter.pyvis_export import to_pyvis

        return to_pyvis(self.graph, path, title=f"activation: {self.query}")


class LocalGraphPanel(GraphPanel):
    """The notes and entities around one note or entity, to depth 1 or 2 (``retrieve.local_graph``)."""

    def __init__(self, graph: dict[str, Any], mentions_of: Callable[[int], list[dict[str, Any]]], **kwargs: Any) -> None:
        title, summary = describe(graph)
        super().__init__(graph, mentions_of, title=title, summary=summary, **kwargs)


class _Queue(_Panel):
    """A review queue: items, the actions a person can take on each, and undo."""

    _esm = STATIC / "review.js"
    kind = traitlets.Unicode().tag(sync=True)
    title = traitlets.Unicode().tag(sync=True)
    items = traitlets.List().tag(sync=True)
    actions = traitlets.List().tag(sync=True)
    status = traitlets.Unicode().tag(sync=True)
    can_undo = traitlets.Bool(False).tag(sync=True)

    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.engine = engine
        self._undo: list[Callable[[], str]] = []
        self._skipped: set[str] = set()
        self.refresh()

    def refresh(self) -> None:
        self.items = [item for item in self.load() if self.key(item) not in self._skipped]
        self.can_undo = bool(self._undo)

    def _on_message(self, _widget: object, content: dict[str, Any], _buffers: object) -> None:
        with self.hold_sync():  # the status and the refreshed queue reach the page together, never a half-updated view
            try:
                if content.get("type") == "undo" and self._undo:
                    self.status = self._undo.pop()()
                elif content.get("type") == "act":
                    item = self.items[int(content["index"])]
                    if content.get("action") == "skip":
                        self._skipped.add(self.key(item))
                        self.status = "skipped for this session"
                    else:
                        self.status = self.act(str(content["action"]), item)
            except (EngramError, IndexError, KeyError, ValueError) as exc:
                self.status = f"error: {exc}"
            self.refresh()

    def load(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def key(self, item: dict[str, Any]) -> str:
        raise NotImplementedError

    def act(self, action: str, item: dict[str, Any]) -> str:
        raise NotImplementedError


class ResolutionReview(_Queue):
    """Entity pairs, a page at a time, sorted by score or by rule; a rule's pairs can be dismissed as one
    (a person's ``distinct`` on each, one batch) and undo retracts the batch, so every pair returns."""

    page = traitlets.Int(1).tag(sync=True)
    pages = traitlets.Int(1).tag(sync=True)
    page_size = traitlets.Int(DEFAULT_PAGE_SIZE).tag(sync=True)
    page_sizes = traitlets.List([10, 20, 50, 100]).tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    first = traitlets.Int(0).tag(sync=True)
    sort = traitlets.Unicode("score").tag(sync=True)
    sorts = traitlets.List(list(SORTS)).tag(sync=True)
    rules = traitlets.List().tag(sync=True)  # [{"rule", "count"}]: the pairs waiting per rule

    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        super().__init__(engine, kind="resolution", title="Entity pairs to review",
                         actions=["same", "distinct", "broader", "narrower", "related", "skip"], **kwargs)

    def refresh(self) -> None:
        waiting = [p for p in self.engine.pending_pairs(sort=self.sort) if f"{p.a}|{p.b}" not in self._skipped]
        shown = page_of(waiting, clamp_page(self.page, len(waiting), self.page_size), self.page_size)
        self.page, self.pages, self.total, self.first = shown.page, shown.pages, shown.total, shown.first
        self.rules = [{"rule": rule, "count": n} for rule, n in self.engine.pending_rules().items()]
        self.items = [pair_item(p) for p in shown.items]
        self.can_undo = bool(self._undo)

    def _on_message(self, widget: object, content: dict[str, Any], buffers: object) -> None:
        kind = content.get("type")
        if kind not in ("page", "page_size", "sort", "dismiss"):
            super()._on_message(widget, content, buffers)
            return
        with self.hold_sync():
            self._on_page_message(kind, content)

    def _on_page_message(self, kind: str, content: dict[str, Any]) -> None:
        try:
            if kind == "page":
                wanted = int(content["page"])
                page_of(range(self.total), wanted, self.page_size)  # a page past the end is an error, not a jump
                self.page, self.status = wanted, ""
            elif kind == "page_size":
                size = int(content["size"])
                first = self.first or 1
                page_of([], 1, size)  # a size below one is an error
                self.page_size, self.page, self.status = size, (first - 1) // size + 1, ""  # keep the first pair in view
            elif kind == "sort":
                if content.get("by") not in SORTS:
                    raise ValueError(f"cannot sort by {content.get('by')!r}; use one of: {', '.join(SORTS)}")
                self.sort, self.page, self.status = str(content["by"]), 1, ""
            else:
                self.status = self._dismiss(str(content["rule"]))
        except (EngramError, KeyError, TypeError, ValueError) as exc:
            self.status = f"error: {exc}"
        self.refresh()

    def _dismiss(self, rule: str) -> str:
        done = self.engine.dismiss_rule(rule)
        n = len(done.decisions)
        self._undo.append(lambda: f"retracted batch {done.batch_id}: {len(self.engine.retract_batch(done.batch_id))} "
                                  f"pairs from rule {rule!r} are back for review")
        return f"dismissed {n} pairs from rule {rule!r} as distinct (batch {done.batch_id}); undo puts them back"

    def load(self) -> list[dict[str, Any]]:
        return list(self.items)

    def key(self, item: dict[str, Any]) -> str:
        return f"{item['a']}|{item['b']}"

    def act(self, action: str, item: dict[str, Any]) -> str:
        decision = self.engine.judge(item["a"], item["b"], action)
        names = f"{item['evidence'].get('name_a')} {action} {item['evidence'].get('name_b')}"
        self._undo.append(lambda: f"retracted {self.engine.retract(decision.decision_id).decision_id} ({names}): "
                                  "the pair is back for review")
        return f"recorded {decision.decision_id}: {names}"


class SupersessionReview(_Queue):
    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        super().__init__(engine, kind="supersession", title="Decisions a later one may replace",
                         actions=["accept", "reject", "skip"], **kwargs)

    def load(self) -> list[dict[str, Any]]:
        return [supersession_item(c) for c in self.engine.supersessions() if c.evidence.get("status") == "pending"]

    def key(self, item: dict[str, Any]) -> str:
        return str(item["id"])

    def act(self, action: str, item: dict[str, Any]) -> str:
        decision = self.engine.supersession_verdict(item["id"], action)
        self._undo.append(lambda: f"retracted {self.engine.retract(decision.decision_id).decision_id} ({action})")
        return f"recorded {decision.decision_id}: {action}"


class LearnedReview(_Queue):
    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        super().__init__(engine, kind="learned", title="Learned notes pending review", actions=["accept", "skip"], **kwargs)

    def load(self) -> list[dict[str, Any]]:
        return [{"path": path} for path in self.engine.pending_learned()]

    def key(self, item: dict[str, Any]) -> str:
        return str(item["path"])

    def act(self, action: str, item: dict[str, Any]) -> str:
        self.engine.accept_learned(item["path"])
        return f"accepted {item['path']}: edit its status in the note to take it back"


class MemoryReview(_Queue):
    """Procedural memory: pending entries to approve (tainted ones flagged), active ones to retire; undo restores."""

    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        self.store = MemoryStore(engine.vault)
        super().__init__(engine, kind="memory", title="Procedural memory", actions=["approve", "retire", "skip"], **kwargs)

    def load(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.store.entries() if e.status != "retired"]

    def key(self, item: dict[str, Any]) -> str:
        return str(item["id"])

    def act(self, action: str, item: dict[str, Any]) -> str:
        if action == "approve":  # the panel shows the taint beside the button
            decided = self.store.approve(item["id"], by="user", tainted_ok=True)
        else:
            decided = self.store.retire(item["id"], by="user")
        before = item["status"]
        self._undo.append(lambda: f"{self.store.restore(decided, before, by='user').id} is {before} again")
        return f"{action}d {decided.id}: {decided.text}"


class AgentEdits(_Queue):
    """An agent's writes: proposals waiting for a person (their diffs, approve / reject) and the latest applied
    writes (rewind). Approving applies the write with a checkpoint, which then shows here; undo rewinds it."""

    CHECKPOINTS_SHOWN = 10

    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        super().__init__(engine, kind="agent", title="Agent edits", actions=[], **kwargs)

    def load(self) -> list[dict[str, Any]]:
        vault = self.engine.vault
        pending = [p.to_json() | {"item": "proposal", "actions": ["approve", "reject"]} for p in list_proposals(vault)]
        applied = [c.to_json() | {"item": "checkpoint", "actions": ["rewind"]}
                   for c in list_checkpoints(vault, self.CHECKPOINTS_SHOWN)]
        return pending + applied

    def key(self, item: dict[str, Any]) -> str:
        return str(item["id"])

    def act(self, action: str, item: dict[str, Any]) -> str:
        vault = self.engine.vault
        if action == "approve":
            proposal, checkpoint, path = approve(vault, item["id"], by="user")
            self.engine.index(progress=False)
            self._undo.append(lambda: self._rewind(checkpoint.id))
            return f"approved {proposal.id}: wrote {path} (checkpoint {checkpoint.id})"
        if action == "reject":
            reject(vault, item["id"], by="user")
            return f"rejected {item['id']}: {item['path']} unchanged"
        return self._rewind(item["id"])

    def _rewind(self, checkpoint_id: str) -> str:
        done = rewind(self.engine.vault, checkpoint_id, actor="user")
        self.engine.index(progress=False)
        return f"rewound {checkpoint_id}: restored {', '.join(f['path'] for f in done.files)} (checkpoint {done.id})"
