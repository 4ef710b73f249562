"""Federated SPARQL (``SERVICE <http://…>``) is off unless the user turns it on.

Oxigraph executes ``SERVICE`` by making an HTTP request from this process, so a query
pasted from elsewhere could send vault data (in the request) to any server. pyoxigraph
offers no switch to turn its service handler off and no access to the parsed query, so
the query is tokenised here the way SPARQL's grammar does it: comments, strings, IRIs
and variables are blanked first, so ``# SERVICE`` or ``"SERVICE"`` does not count and
no quoting hides a real one. The rule errs on the side of refusing: any remaining word
``service`` counts unless a colon precedes it (``ex:service``, a prefixed name; Oxigraph
reads ``SERVICE:x`` as the keyword and the prefixed name ``:x``, so a colon after it does not help).
"""

from __future__ import annotations

import re

from engram_lab.errors import EngramError

# One alternation, scanned left to right, so whichever of these starts first wins:
# a '#' inside an IRI or a string is not a comment, a quote inside a comment opens no string.
_OPAQUE = re.compile(
    r"'''(?:[^'\\]|\\.|'(?!''))*'''"          # long strings
    r'|"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"|'(?:[^'\\\n\r]|\\.)*'"                 # short strings
    r'|"(?:[^"\\\n\r]|\\.)*"'
    r'|<[^<>"{}|^`\\\x00-\x20]*>'             # IRIs (the grammar's IRIREF)
    r"|#[^\n\r]*"                             # comments
    r"|[?$]\w+",                              # variables
    re.S,
)
_WORD = re.compile(r"\w+")
_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


class FederatedQueryError(EngramError):
    """The query names a SERVICE and federation was not allowed."""


def _decoded(query: str) -> str:
    """The query with SPARQL's \\uXXXX escapes applied (the spec allows them anywhere in a query)."""
    return _CODEPOINT.sub(lambda m: _char(m.group(1) or m.group(2)), query)


def _char(hex_digits: str) -> str:
    value = int(hex_digits, 16)
    return chr(value) if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else "\ufffd"


def names_service(query: str) -> bool:
    """Whether the query has a ``SERVICE`` keyword outside comments, strings and IRIs (as written or unescaped)."""
    return any(_service_word(text) for text in {query, _decoded(query)})


def _service_word(text: str) -> bool:
    code = _OPAQUE.sub(lambda m: " " * len(m.group()), text)
    for word in _WORD.finditer(code):
        if word.group().casefold() != "service":
            continue
        if not code[: word.start()].endswith(":"):  # `ex:service` is a prefixed name (`SERVICE:x` is not!)
            return True
    return False


def refuse_federation(query: str) -> None:
    """Raise FederatedQueryError when the query would contact another server."""
    if names_service(query):
        raise FederatedQueryError("this query uses SERVICE, which would send a request to another server; "
                                  "federated queries are off (engram sparql --allow-service turns them on for one query)")


def code_words(query: str) -> list[str]:
    """The query's keywords, upper-cased: words outside comments, strings, IRIs and variables, and not part
    of a prefixed name (``ex:delete``, ``delete:x``). What a check of the query's form may look at."""
    code = _OPAQUE.sub(lambda m: " " * len(m.group()), _decoded(query))
    return [w.group().upper() for w in _WORD.finditer(code)
            if not code[: w.start()].endswith(":") and not code[w.end():].startswith(":")]
