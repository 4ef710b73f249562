"""SERVICE clauses make Oxigraph send HTTP requests: refused unless allowed, checked against a real listener."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from engram_lab.cli import main
from engram_lab.graph.federation import names_service


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 that records every request and answers 500."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"no")

        do_POST = do_GET

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/sparql", hits
    server.shutdown()
    server.server_close()


@pytest.fixture
def indexed(vault, write):
    write("a.md", "# A\nThe CT-200 drifted.\n")
    assert main(["index", str(vault), "--quiet"]) == 0
    return vault


def _queries(url: str) -> list[str]:
    p = f"PREFIX : <{url}#> "
    return [
        f"SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ ?s ?p ?o . sErViCe SILENT <{url}> {{ ?s ?p ?o }} }}",
        p + "SELECT * WHERE { SERVICE:x { ?s ?p ?o } }",  # Oxigraph reads the keyword, then the name :x
        p + "SELECT * WHERE { FILTER EXISTS { SERVICE:x {?s ?p ?o} } }",
        f"SELECT * WHERE {{ ?s ?p ?o FILTER(1<2) SERVICE<{url}>{{}} }}",
        f'SELECT * WHERE {{ ?s ?p "a"@en.SERVICE <{url}> {{}} }}',
        f"SELECT * WHERE {{ ?s ?p ?o # a comment\n SERVICE <{url}> {{}} }}",
    ]


def test_every_spelling_of_service_is_refused_and_nothing_is_sent(indexed, listener, capsys):
    url, hits = listener
    for query in _queries(url):
        assert main(["sparql", str(indexed), query]) == 2, query
        err = capsys.readouterr().err
        assert err.startswith("engram: error: ") and "--allow-service" in err and err.count("\n") == 1
    assert hits == []


@pytest.mark.parametrize("query", [
    "SELECT ?s WHERE { ?s ?p ?o } # SERVICE <http://127.0.0.1:1/> {}",
    "SELECT ?s WHERE { ?s ?p 'SERVICE <http://127.0.0.1:1/> {}' }",
    'SELECT ?s WHERE { ?s ?p """multi\nSERVICE line""" }',
    "PREFIX ex: <urn:x:> SELECT ?s WHERE { ?s ex:service ?o }",
    "SELECT ?service WHERE { ?service ?p <urn:x:SERVICE> }",
])
def test_service_in_comments_strings_iris_and_names_is_not_a_clause(query):
    assert not names_service(query)


def test_unicode_escapes_do_not_hide_it():
    assert names_service("SELECT * WHERE { \\u0053ERVICE <http://127.0.0.1:1/> {} }")


def test_allowed_federation_sends_and_a_failed_endpoint_is_one_line(indexed, listener, capsys):
    url, hits = listener
    code = main(["sparql", str(indexed), f"SELECT * WHERE {{ SERVICE <{url}> {{ ?s ?p ?o }} }}", "--allow-service"])
    err = capsys.readouterr().err
    assert code == 2 and len(hits) == 1 and hits[0].startswith("/sparql")
    assert err.startswith("engram: error: SPARQL query failed") and err.count("\n") == 1 and "Traceback" not in err


def test_plain_queries_still_run(indexed, capsys):
    assert main(["sparql", str(indexed), "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "--json"]) == 0
