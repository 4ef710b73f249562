"""``query_graph``: SELECT, ASK and CONSTRUCT over the vault's graph, through the read-only SPARQL path.

The store's own read path (``Engine.sparql``) already opens the store read-only and refuses ``SERVICE``;
this adds a clear refusal of updates and of other query forms before anything runs.
"""

from __future__ import annotations

from typing import Any

from engram_lab.errors import EngramError
from engram_lab.graph.federation import code_words

ALLOWED_FORMS = ("SELECT", "ASK", "CONSTRUCT")
_UPDATES = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "COPY", "MOVE", "ADD"})
_FORMS = frozenset({*ALLOWED_FORMS, "DESCRIBE"})
MAX_QUERY_CHARS = 20_000
MAX_ROWS = 500


class QueryFormError(EngramError):
    """The SPARQL text is an update, or a query form the agent tools do not run."""


def check_query_form(sparql: object) -> str:
    """The query's form (SELECT, ASK or CONSTRUCT); QueryFormError for an update or anything else."""
    if not isinstance(sparql, str) or not sparql.strip():
        raise QueryFormError("sparql must be a non-empty SELECT, ASK or CONSTRUCT query")
    if len(sparql) > MAX_QUERY_CHARS:
        raise QueryFormError(f"the query is longer than {MAX_QUERY_CHARS} characters")
    words = code_words(sparql)
    update = next((w for w in words if w in _UPDATES), None)
    if update is not None:
        raise QueryFormError(f"{update} is a SPARQL update; the graph is read-only here (it changes only when notes "
                             "change): run SELECT, ASK or CONSTRUCT, or propose an edit to the note instead")
    form = next((w for w in words if w in _FORMS), None)
    if form not in ALLOWED_FORMS:
        raise QueryFormError(f"only {', '.join(ALLOWED_FORMS)} queries run here" + (f", not {form}" if form else ""))
    return form


def frame_rows(frame: Any, limit: int = MAX_ROWS) -> tuple[list[dict[str, Any]], bool]:
    """At most ``limit`` rows of a Polars frame as dicts, and whether there were more."""
    return frame.head(limit).to_dicts(), frame.height > limit
