"""The lab's local-graph panel, server side: GET /engram/graph (the graph around a note, or an entity's mentions)
and GET /engram/view/NAME (the notebook panels' graph view and styles, so the lab panel draws with the same code).
Read from the published retrieval index (shared with the related-notes panel), so a note switch costs no model call.
"""

from __future__ import annotations

from pathlib import Path

import tornado.web
from jupyter_server.auth.decorator import allow_unauthenticated

from engram_lab.errors import EngramError
from engram_lab.explain import entity_mentions
from engram_lab.retrieve.local_graph import MAX_LOCAL_NODES, describe, local_graph
from engram_lab.retrieve.related import PublishedIndex
from engram_lab.server.handlers import _RELATED_KEY, _Base

STATIC = Path(__file__).resolve().parents[1] / "jupyter" / "static"
VIEW_FILES = {"activation.js": "text/javascript; charset=utf-8", "panels.css": "text/css; charset=utf-8"}


def _whole(handler: _Base, name: str, default: int) -> int:
    try:
        return int(handler.get_argument(name, str(default)))
    except ValueError:
        raise EngramError(f"{name} must be a whole number") from None


class GraphHandler(_Base):
    """GET ``?path=NOTE&depth=1&limit=60``: the local graph around NOTE (``retrieve.local_graph``);
    GET ``?mentions=NODE``: where the entity node NODE of that graph is mentioned (a click on it in the panel)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        vault = self.engine.vault
        index = self.settings.setdefault(_RELATED_KEY, {}).setdefault(vault, PublishedIndex(vault))
        if self.get_argument("mentions", None) is not None:
            node = _whole(self, "mentions", 0)
            data = await self.run(index.data)
            if not data.n_passages <= node < data.n_passages + data.n_entities:
                raise EngramError(f"node {node} is not an entity of the retrieval index (re-open the graph after a re-index)")
            self.reply({"mentions": await self.run(entity_mentions, vault, data, node - data.n_passages)})
            return
        path = self.get_argument("path", "").strip()
        if not path:
            raise EngramError("bad request: expected ?path=NOTE (a vault-relative note path, a note title or an entity name)")
        depth, limit = _whole(self, "depth", 1), _whole(self, "limit", MAX_LOCAL_NODES)
        graph = await self.run(lambda: local_graph(index.data(), path, depth=depth, limit=limit))
        title, summary = describe(graph)
        self.reply({"path": path, "vault": str(vault), "graph": graph, "title": title, "summary": summary})


class ViewHandler(tornado.web.RequestHandler):
    """The graph view's module and the panels' styles, as the notebook panels load them: package code, no data."""

    @allow_unauthenticated
    def get(self, name: str) -> None:
        if name not in VIEW_FILES:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", VIEW_FILES[name])
        self.set_header("Cache-Control", "no-cache")
        self.finish((STATIC / name).read_bytes())


GRAPH_ROUTES = {"graph": GraphHandler, r"view/([a-z]+\.(?:js|css))": ViewHandler}
