"""``%engram`` and ``%%engram``: a thin layer from parsed commands to the engine and the display objects.

A usage error or a user mistake returns a short message object, never a traceback.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class

from engram_lab.errors import EngramError
from engram_lab.explain import activation_graph, entity_mentions, entity_summary, result_provenance
from engram_lab.jupyter import display as d
from engram_lab.jupyter.commands import UsageError, parse
from engram_lab.jupyter.session import Session


@magics_class
class EngramMagics(Magics):
    def __init__(self, shell: Any = None) -> None:
        super().__init__(shell)
        self.session = Session()
        self._indexes: dict[Path, Any] = {}  # vault -> PublishedIndex, for %engram graph before any search

    @line_cell_magic
    def engram(self, line: str, cell: str | None = None) -> Any:
        try:
            args = parse(line)
            return self.run(args, cell)
        except UsageError as exc:
            return d.message(str(exc), "warning")
        except EngramError as exc:
            return d.message(f"engram: {self.session.in_notebook_words(str(exc))}", "error")

    def run(self, args: argparse.Namespace, cell: str | None) -> Any:
        handler = getattr(self, "do_" + args.command.replace("-", "_"))
        return handler(args, cell)

    # -- commands ------------------------------------------------------------
    def do_open(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        from engram_lab.jupyter.server_link import announce_vault

        engine = self.session.open(args.path)
        told = announce_vault(engine.vault)  # the sidebar and links follow the notebook's vault
        return d.message(f"vault: {engine.vault}" + (f" ({told})" if told else ""))

    def do_index(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        return d.index_view(self.session.engine.index(full=args.full, progress=True, warm=True))

    def do_status(self, _args: argparse.Namespace, _cell: str | None) -> d.View:
        return d.status_view(self.session.engine.status())

    def _query(self, args: argparse.Namespace):  # type: ignore[no-untyped-def]
        return self.session.engine.query(" ".join(args.question), k=args.k, mode=args.mode)

    def do_search(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        return d.search_view(self._query(args), self.session.engine.vault)

    def do_context(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        return d.context_view(self._query(args))

    def do_show(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        engine = self.session.engine
        return d.entity_view(entity_summary(engine.vault, " ".join(args.entity)), engine.vault)

    def do_sparql(self, args: argparse.Namespace, cell: str | None) -> Any:
        query = cell if cell is not None and cell.strip() else " ".join(args.query)
        if not query.strip():
            raise UsageError("%%engram sparql takes the query in the cell body (or %engram sparql QUERY)")
        return self.session.engine.sparql(query, federated=args.allow_service)

    def do_learn(self, args: argparse.Namespace, cell: str | None) -> d.View:
        body = cell if cell is not None else " ".join(args.text)
        result = self.session.engine.learn(args.title, body, args.source, force=args.force)
        lines = [f"wrote {result.path}: pending review (searchable now; in the graph once accepted)"]
        lines += [f"similar: {s.path} ({s.title}): {s.reason}" for s in result.similar]
        return d.View("\n".join(lines), "<br>".join(d.escape(line) for line in lines))

    def do_accept(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        self.session.engine.accept_learned(args.path)
        return d.message(f"accepted {args.path}; its extraction is now in the graph")

    def do_judge(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        decision = self.session.engine.judge(args.a, args.b, args.verdict)
        return d.message(f"recorded {decision.decision_id}: {args.a} {args.verdict} {args.b}; undo: %engram retract {decision.decision_id}")

    def do_retract(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        decision = self.session.engine.retract(args.decision_id)
        return d.message(f"retracted {decision.decision_id} ({decision.kind} {decision.verdict} by {decision.actor})")

    def do_review(self, _args: argparse.Namespace, _cell: str | None) -> Any:
        import ipywidgets

        from engram_lab.jupyter.widgets import LearnedReview, ResolutionReview, SupersessionReview

        engine = self.session.engine
        return ipywidgets.VBox([ResolutionReview(engine), SupersessionReview(engine), LearnedReview(engine)])

    def do_memory(self, args: argparse.Namespace, _cell: str | None) -> Any:
        from engram_lab.procedural.cli import describe
        from engram_lab.procedural.store import MemoryStore

        store = MemoryStore(self.session.engine.vault)
        if args.action is None:
            from engram_lab.jupyter.widgets import MemoryReview

            return MemoryReview(self.session.engine)
        if args.action == "list":
            lines = [describe(e) for e in store.entries()] or ["no procedural memory entries"]
            return d.View("\n".join(lines), "<br>".join(d.escape(line) for line in lines))
        if not args.words:
            raise UsageError(f"%engram memory {args.action} needs " + ("the text" if args.action == "add" else "an entry id"))
        if args.action == "add":
            entry = store.add(args.kind, " ".join(args.words), author="user", source="%engram memory add")
        elif args.action == "approve":
            entry = store.approve(args.words[0], by="user", tainted_ok=args.tainted)
        else:
            entry = store.retire(args.words[0], by="user")
        return d.message(f"{args.action}: {describe(entry)}")

    def do_ask(self, args: argparse.Namespace, cell: str | None) -> Any:
        from IPython.display import display

        from engram_lab.agent.chat import openai_chat
        from engram_lab.agent.loop import run_turn
        from engram_lab.agent.session import AgentSession
        from engram_lab.config import load_config
        from engram_lab.jupyter.ask_view import turn_view
        from engram_lab.jupyter.widgets import AgentEdits

        question = (cell or "").strip() or " ".join(args.question).strip()
        if not question:
            raise UsageError("%%engram ask takes the question in the cell body")
        engine = self.session.engine
        config = load_config(engine.vault).agent  # an untrusted [agent] endpoint is refused here
        if not config.configured:
            return d.message("no agent model configured (set base_url and model under [agent] in engram.toml); "
                             f'%engram search "{question[:60]}" finds the passages without one', "warning")
        session = AgentSession(engine.vault, args.permission or config.permission,
                               actor=f"notebook:{config.endpoint.model}", _engine=engine)
        turn = run_turn(session, question, openai_chat(config), max_steps=config.max_steps)
        view = turn_view(turn, engine.vault)
        if not (turn.written("pending") or turn.written("applied")):
            return view
        display(view)  # the answer as HTML, so its links open the note like search results' do
        return AgentEdits(engine)

    def do_provenance(self, args: argparse.Namespace, _cell: str | None) -> Any:
        from engram_lab.jupyter.widgets import ProvenancePanel

        import ipywidgets
        from IPython.display import HTML

        outcome = self._query(args)
        if not 1 <= args.rank <= len(outcome.results):
            raise UsageError(f"--rank {args.rank}: the search returned {len(outcome.results)} results")
        result = outcome.results[args.rank - 1]
        vault = self.session.engine.vault
        # The link sits in an Output (rendered by JupyterLab itself), so a click opens the note in the app at its heading.
        link = ipywidgets.Output()
        span = f"chars {result.span[0]}–{result.span[1]}" if result.span else ""
        link.append_display_data(HTML(f"open {d.note_link(vault, result.doc, heading=result.heading, span=result.span, cell_id=result.cell_id)} at {span}"))
        return ipywidgets.VBox([link, ProvenancePanel(data=result_provenance(vault, result) | {"vault": str(vault)})])

    def _activation(self, args: argparse.Namespace, limit: int) -> tuple[str, dict[str, Any], Any]:
        engine = self.session.engine
        outcome = self._query(args)
        data = engine.searcher.loaded_data
        if outcome.ranking is None or data is None:
            raise UsageError(f"mode {args.mode} spreads no activation; use --mode full")
        graph = activation_graph(data, outcome.ranking, outcome.results, limit=limit, judged=engine.searcher.judged_edges())
        return outcome.query, graph, data

    def do_activation(self, args: argparse.Namespace, _cell: str | None) -> Any:
        from engram_lab.jupyter.widgets import ActivationPanel

        query, graph, data = self._activation(args, min(max(args.limit, 1), 500))
        vault = self.session.engine.vault
        return ActivationPanel(query, graph, lambda node: entity_mentions(vault, data, node - data.n_passages), vault=str(vault))

    def do_graph(self, args: argparse.Namespace, _cell: str | None) -> Any:
        from engram_lab.jupyter.widgets import LocalGraphPanel
        from engram_lab.retrieve.local_graph import local_graph
        from engram_lab.retrieve.related import PublishedIndex

        engine = self.session.engine
        centre = " ".join(args.centre)
        if args.result is not None:
            results = engine.query(centre, k=max(10, args.result)).results
            if not 1 <= args.result <= len(results):
                raise UsageError(f"--result {args.result}: the search returned {len(results)} results")
            centre = results[args.result - 1].path
        data, judged = engine.searcher.loaded_data, engine.searcher.judged_edges()
        if data is None:  # no search yet in this kernel: the last published index
            data = self._indexes.setdefault(engine.vault, PublishedIndex(engine.vault)).data()
        graph = local_graph(data, centre, depth=args.depth, limit=args.limit, judged=judged)
        vault = engine.vault
        return LocalGraphPanel(graph, lambda node: entity_mentions(vault, data, node - data.n_passages), vault=str(vault))

    def do_export_graph(self, args: argparse.Namespace, _cell: str | None) -> d.View:
        from engram_lab.jupyter.pyvis_export import to_pyvis

        query, graph, _ = self._activation(args, 500)
        out = to_pyvis(graph, Path(args.out), title=f"activation: {query}")
        return d.message(f"wrote {out} ({graph['shown']} nodes; opens offline in any browser)")
