"""The ``%engram`` command language: shlex-split, argparse subcommands, short usage errors.

Pure parsing; nothing here touches a vault. ``parse`` raises ``UsageError`` with
a one-paragraph message (the problem and the usage line) instead of exiting.
"""

from __future__ import annotations

import argparse
import shlex
from typing import NoReturn

from engram_lab.agent.modes import PERMISSION_NAMES
from engram_lab.errors import EngramError
from engram_lab.procedural.store import KINDS
from engram_lab.retrieve.settings import MODES

VERDICTS = ("same", "distinct", "broader", "narrower", "related")


class UsageError(EngramError):
    """The magic was called wrongly; the message says how to call it."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}\n{self.format_usage().strip()}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:  # -h / --help
        raise UsageError(message or self.format_help())

    def print_help(self, file: object = None) -> None:
        raise UsageError(self.format_help())


def _question(p: argparse.ArgumentParser) -> None:
    p.add_argument("question", nargs="+")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--mode", choices=MODES, default="full")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="%engram", add_help=True, description="engram-lab in a notebook")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    sub.add_parser("open", help="select the vault").add_argument("path")
    sub.add_parser("index", help="bring the index in step with the notes").add_argument("--full", action="store_true")
    sub.add_parser("status", help="document counts and problems")
    _question(sub.add_parser("search", help="ranked notes with provenance"))
    _question(sub.add_parser("context", help="the context an agent would receive"))
    sub.add_parser("show", help="what the vault says about an entity").add_argument("entity", nargs="+")
    sub.add_parser("review", help="resolution, supersession and learned-note review panels")
    p = sub.add_parser("sparql", help="(cell magic) a SPARQL query; returns a Polars DataFrame")
    p.add_argument("query", nargs="*")
    p.add_argument("--allow-service", action="store_true", help="let SERVICE clauses send requests to other servers")
    p = sub.add_parser("learn", help="write a learned note (pending review); %%engram learn takes the cell as body")
    p.add_argument("--title", required=True)
    p.add_argument("--source", action="append", default=[])
    p.add_argument("--force", action="store_true")
    p.add_argument("text", nargs="*")
    sub.add_parser("accept", help="accept a learned note").add_argument("path")
    p = sub.add_parser("judge", help="judge two entities: A B same|distinct|broader|narrower|related")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("verdict", choices=VERDICTS)
    sub.add_parser("retract", help="undo a judgment or verdict").add_argument("decision_id")
    p = sub.add_parser("memory", help="procedural memory: a panel (no action), or list | add TEXT | approve ID | retire ID")
    p.add_argument("action", nargs="?", choices=("list", "add", "approve", "retire"))
    p.add_argument("words", nargs="*", help="add: the text; approve, retire: the entry id")
    p.add_argument("--kind", choices=KINDS, default="preference")
    p.add_argument("--tainted", action="store_true", help="approve an entry written after reading untrusted content")
    p = sub.add_parser("ask", help="(cell magic) one turn of the [agent] model with the vault's tools; the cell is the question")
    p.add_argument("question", nargs="*")
    p.add_argument("--permission", choices=PERMISSION_NAMES, help="instead of [agent] permission in engram.toml")
    p = sub.add_parser("provenance", help="provenance panel for a search result")
    _question(p)
    p.add_argument("--rank", type=int, default=1)
    p = sub.add_parser("activation", help="how activation spread for a query (PPR panel)")
    _question(p)
    p.add_argument("--limit", type=int, default=200)
    p = sub.add_parser("graph", help="the local graph around a note or an entity (or a search result with --result N)")
    p.add_argument("centre", nargs="+", help="a note path or title, an entity name (note:NAME, entity:NAME to choose); "
                                             "with --result, the query")
    p.add_argument("--depth", type=int, default=1, help="1 or 2")
    p.add_argument("--limit", type=int, default=80, help="the most nodes drawn (the strongest are kept)")
    p.add_argument("--result", type=int, help="centre on the Nth result of a search for the words")
    p = sub.add_parser("export-graph", help="the query's activated subgraph as a standalone HTML file (pyvis)")
    _question(p)
    p.add_argument("--out", required=True)
    return parser


def parse(line: str) -> argparse.Namespace:
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"cannot read the arguments: {exc}") from None
    if not words:
        raise UsageError(build_parser().format_usage().strip() + "\ncommands: open index status search context show review "
                         "sparql learn accept judge retract memory ask provenance activation graph export-graph")
    args = build_parser().parse_args(words)
    if getattr(args, "k", 1) < 1:
        raise UsageError("--k must be at least 1")
    return args
