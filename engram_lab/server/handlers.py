"""Authenticated API handlers under ``/engram/``; every write goes through the engine and its vault lock."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from traitlets import Unicode
from traitlets.config import Configurable

from engram_lab.bounded_json import JSONLimitError, loads_bounded
from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.learn import DuplicateNoteError
from engram_lab.overview import notes_overview, stale_count
from engram_lab.retrieve.confidence import confidence_json
from engram_lab.retrieve.related import PublishedIndex, related_notes
from engram_lab.retrieve.results import snippet
from engram_lab import search_operators
from engram_lab.server.vaults import VaultRegistry, publish

_VAULTS_KEY = "engram_vaults"
_RELATED_KEY = "engram_related_indexes"  # vault -> PublishedIndex, for the related-notes panel
MAX_BODY_BYTES = 2 * 1024 * 1024  # a learned note from a selection; far more is a mistake or an attack


class EngramServer(Configurable):
    vault = Unicode("", help="The vault the sidebar shows; default $ENGRAM_VAULT, else the server's root folder.").tag(config=True)


class _Base(APIHandler):
    @property
    def vaults(self) -> VaultRegistry:
        return self.settings[_VAULTS_KEY]

    @property
    def engine(self) -> Engine:
        return self.vaults.engine

    def _root_relative(self) -> str | None:
        """The vault's folder as the JupyterLab file browser names it (None when outside the server root)."""
        return self.vaults.root_relative(self.engine.vault)

    def reply(self, payload: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(payload, ensure_ascii=False))

    def json_body(self) -> dict[str, Any]:
        """The request's JSON object, bounded in size and nesting: a huge or deep body is a 400, not a 500."""
        try:
            body = loads_bounded(self.request.body or b"{}", max_bytes=MAX_BODY_BYTES)
        except JSONLimitError as exc:
            raise EngramError(f"bad request: {exc}") from None
        if not isinstance(body, dict):
            raise EngramError("bad request: expected a JSON object")
        return body

    async def run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Engine work off the event loop, so a long index run never freezes the server."""
        return await asyncio.get_running_loop().run_in_executor(None, lambda: fn(*args, **kwargs))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """A user mistake (an EngramError) is a 400 (409 for a duplicate note) naming the problem."""
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, EngramError):
            self.reply({"error": str(exc)}, 409 if isinstance(exc, DuplicateNoteError) else 400)
        else:
            super().write_error(status_code, **kwargs)

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        if not isinstance(value, EngramError):  # a user mistake is answered, not logged as a server fault
            super().log_exception(typ, value, tb)


class NotesHandler(_Base):
    @tornado.web.authenticated
    async def get(self) -> None:
        notes = await self.run(notes_overview, self.engine.vault)
        self.reply({"vault": str(self.engine.vault), "notes": [n.to_json() for n in notes]})


class StatusHandler(_Base):
    @tornado.web.authenticated
    async def get(self) -> None:
        self.reply({"vault": str(self.engine.vault), "stale": await self.run(stale_count, self.engine.vault),
                    "root_relative": self._root_relative()})


class VaultHandler(_Base):
    """GET: the current vault (``?path=`` describes another without switching, to open a link's note);
    POST ``{"path": ..., "notebook": ...}``: make a folder the current vault (``%engram open``, the file browser)."""

    @tornado.web.authenticated
    def get(self) -> None:
        given = self.get_argument("path", "")
        self.reply(self.vaults.describe(self.vaults.resolve(given) if given else None))

    @tornado.web.authenticated
    async def post(self) -> None:
        body = self.json_body()
        path, notebook = body.get("path"), body.get("notebook")
        if not isinstance(path, str) or not (notebook is None or isinstance(notebook, str)):
            raise EngramError('bad request: expected {"path": str, "notebook": str (optional)}')
        engine = await self.run(self.vaults.open, path, notebook)
        self.reply(self.vaults.describe(engine.vault))


class SearchHandler(_Base):
    @tornado.web.authenticated
    async def get(self) -> None:
        # path:, tag:, after:/before: and quoted phrases filter the results; the words go to the retriever.
        query, operators = search_operators.parse(self.get_argument("q", "").strip())
        mode = self.get_argument("mode", "full")
        try:
            k = int(self.get_argument("k", "10"))
        except ValueError:
            raise EngramError("k must be a whole number") from None
        outcome = await self.run(self.engine.query, query, k=operators.fetch(k), mode=mode)
        kept = (await self.run(search_operators.filter_results, self.engine.vault, outcome.results, operators))[:k]
        results = [{**r.to_json(), "path": r.path, "cell_id": r.cell_id, "heading_path": list(r.heading_path),
                    "snippet": snippet(r.text, 240), "status": r.status, "superseded": r.superseded} for r in kept]
        self.reply({"query": outcome.query, "operators": operators.to_json(), "mode": outcome.mode, "results": results, "context": outcome.context,
                    "notes": outcome.notes} | confidence_json(outcome.confidence))


def _report_json(report: Any) -> dict[str, Any]:
    return {"added": report.added, "updated": report.updated, "deleted": report.deleted,
            "renamed": [list(pair) for pair in report.renamed], "failed": [list(pair) for pair in report.failed],
            "unchanged": report.unchanged, "seconds": round(report.seconds, 3)}


class IndexJob:
    """At most one index run per server; its progress is readable while it runs."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.state: dict[str, Any] = {"running": False, "stage": None, "done": 0, "total": 0, "report": None, "error": None}

    def start(self, engine: Engine) -> dict[str, Any]:
        with self.lock:
            if self.state["running"]:
                return dict(self.state)
            self.state = {"running": True, "stage": None, "done": 0, "total": 0, "report": None, "error": None}
        threading.Thread(target=self._run, args=(engine,), daemon=True).start()
        return dict(self.state)

    def _run(self, engine: Engine) -> None:
        def progress(stage: str, done: int, total: int) -> None:
            self.state.update(stage=stage, done=done, total=total)

        try:
            report = engine.index(progress=False, on_stage=progress, warm=True)
            self.state.update(report=_report_json(report))
        except EngramError as exc:
            self.state.update(error=str(exc))
        finally:
            self.state.update(running=False)


class IndexHandler(_Base):
    """POST runs an incremental index and answers with its report; ``?background=1`` answers at once
    (202) and GET reports progress (the stage, e.g. "embeddings: sections", and its done / total) until the report is there."""

    @tornado.web.authenticated
    async def post(self) -> None:
        if self.get_argument("background", "") in ("1", "true"):
            self.reply(self._job().start(self.engine), 202)
            return
        report = await self.run(self.engine.index, progress=False, warm=True)
        self.reply(_report_json(report))

    @tornado.web.authenticated
    def get(self) -> None:
        self.reply(dict(self._job().state))

    def _job(self) -> IndexJob:
        return self.vaults.jobs.setdefault(self.engine.vault, IndexJob())


class ProvenanceHandler(_Base):
    @tornado.web.authenticated
    async def get(self) -> None:
        from engram_lab.explain import note_triples

        path = self.get_argument("path", "")
        self.reply({"path": path, "triples": await self.run(note_triples, self.engine.vault, path)})


class LearnHandler(_Base):
    @tornado.web.authenticated
    async def post(self) -> None:
        body = self.json_body()
        title, text, force = body.get("title", ""), body.get("body", ""), body.get("force", False)
        sources = body.get("sources", [])
        if not (isinstance(title, str) and isinstance(text, str) and isinstance(force, bool)
                and isinstance(sources, list) and all(isinstance(s, str) for s in sources)):
            raise EngramError('bad request: expected {"title": str, "body": str, "sources": [str, ...], "force": bool}')
        result = await self.run(self.engine.learn, title, text, sources, force=force)
        self.reply({"path": result.path, "similar": [asdict(s) for s in result.similar]})


class RelatedHandler(_Base):
    """GET ``?path=NOTE&k=10``: notes related to NOTE (links both ways, shared entities, similar text), each with
    its reasons; read from the published retrieval index, so a note switch in the editor costs no model call."""

    @tornado.web.authenticated
    async def get(self) -> None:
        path = self.get_argument("path", "").strip()
        if not path:
            raise EngramError("bad request: expected ?path=NOTE (a vault-relative note path)")
        try:
            k = int(self.get_argument("k", "10"))
        except ValueError:
            raise EngramError("k must be a whole number") from None
        indexes = self.settings.setdefault(_RELATED_KEY, {})
        index = indexes.setdefault(self.engine.vault, PublishedIndex(self.engine.vault))
        notes = await self.run(lambda: related_notes(index.data(), path, k=k))
        self.reply({"path": path, "vault": str(self.engine.vault), "related": [n.to_json() for n in notes]})


ROUTES = {"notes": NotesHandler, "status": StatusHandler, "vault": VaultHandler, "search": SearchHandler, "index": IndexHandler,
          "provenance": ProvenanceHandler, "learn": LearnHandler, "related": RelatedHandler}


def resolve_vault(serverapp: Any) -> Path:
    config = EngramServer(config=serverapp.config)
    return Path(config.vault or os.environ.get("ENGRAM_VAULT") or serverapp.root_dir).expanduser().resolve()


def register(serverapp: Any) -> None:
    web_app = serverapp.web_app
    configured = resolve_vault(serverapp)
    vaults = web_app.settings[_VAULTS_KEY] = VaultRegistry(Path(serverapp.root_dir), configured)
    publish(vaults)  # the Jupyter AI tools (engram_lab.agent.jupyter_tools) act on this registry's vault
    try:
        vaults.open(str(configured))
    except EngramError as exc:
        serverapp.log.warning("engram: no vault open until a notebook or the file browser opens one: %s", exc)
    base = web_app.settings["base_url"]
    from engram_lab.server.graph_handlers import GRAPH_ROUTES  # they build on _Base, defined here

    routes = ROUTES | GRAPH_ROUTES
    web_app.add_handlers(".*$", [(url_path_join(base, "engram", name), handler) for name, handler in routes.items()])
    serverapp.log.info("engram: API at %sengram/ for %s", base, vaults.current or "no vault yet")
