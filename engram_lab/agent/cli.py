"""The agent loop's commands: review proposals, list and rewind checkpoints, serve the tools over MCP."""

from __future__ import annotations

import argparse
import getpass
import json
import os
from pathlib import Path
from typing import Any

from engram_lab.agent.checkpoints import list_checkpoints, rewind
from engram_lab.agent.modes import DEFAULT_PERMISSION, PERMISSION_NAMES
from engram_lab.agent.proposals import approve, list_proposals, reject
from engram_lab.agent.session import AgentSession
from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.vault.root import require_vault


def _person() -> str:
    try:
        return f"user:{getpass.getuser()}"
    except (KeyError, OSError):
        return "user"


def cmd_proposals(args: argparse.Namespace) -> int:
    proposals = list_proposals(require_vault(args.vault))
    if args.json:
        print(json.dumps([p.to_json() for p in proposals], indent=2, ensure_ascii=False))
        return 0
    if not proposals:
        print("no proposals waiting for review")
    for p in proposals:
        print(f"{p.id}  {p.intent.kind} {p.intent.path}  by {p.actor} at {p.created_at}\n    why: {p.intent.why}")
        print("".join(f"    {line}" for line in p.diff.splitlines(keepends=True)).rstrip())
        print(f"    engram approve {args.vault} {p.id}   |   engram reject {args.vault} {p.id}")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    vault = require_vault(args.vault)
    proposal, checkpoint, path = approve(vault, args.id, by=_person())
    Engine(vault).index(progress=False)
    print(f"approved {proposal.id}: wrote {path} (checkpoint {checkpoint.id}; undo with: engram rewind {args.vault} {checkpoint.id})")
    return 0


def cmd_reject(args: argparse.Namespace) -> int:
    proposal = reject(require_vault(args.vault), args.id, by=_person())
    print(f"rejected {proposal.id}: {proposal.intent.path} unchanged")
    return 0


def cmd_checkpoints(args: argparse.Namespace) -> int:
    rows = list_checkpoints(require_vault(args.vault), args.limit)
    if args.json:
        print(json.dumps([c.to_json() for c in rows], indent=2, ensure_ascii=False))
        return 0
    if not rows:
        print("no checkpoints: no write has been applied")
    for c in rows:
        print(f"{c.id}  {c.created_at}  {c.actor}: {c.why}  [{', '.join(f['path'] for f in c.files)}]")
    return 0


def cmd_rewind(args: argparse.Namespace) -> int:
    vault = require_vault(args.vault)
    done = rewind(vault, args.id, actor=_person(), force=args.force)
    Engine(vault).index(progress=False)
    print(f"rewound {args.id}: restored {', '.join(f['path'] for f in done.files)} "
          f"(checkpoint {done.id}; undo with: engram rewind {args.vault} {done.id})")
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from engram_lab.agent.mcp_server import serve_http, serve_stdio

    session = AgentSession(args.vault, args.permission, actor=args.actor)
    if args.http is None:
        if args.token:
            raise EngramError("--token goes with --http PORT (stdio needs no token)")
        import anyio

        anyio.run(serve_stdio, session)
        return 0
    if not 0 < args.http < 65536:
        raise EngramError(f"--http needs a port from 1 to 65535, got {args.http}")
    serve_http(session, args.http, args.token or os.environ.get("ENGRAM_MCP_TOKEN"))
    return 0


def add_agent_commands(sub: Any) -> None:
    """Register the agent commands on ``engram``'s subparsers."""
    p = sub.add_parser("proposals", help="an agent's proposed edits waiting for review, with their diffs")
    p.add_argument("vault", type=Path)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_proposals)

    p = sub.add_parser("approve", help="apply a proposed edit (checked again; a note edited meanwhile fails)")
    p.add_argument("vault", type=Path)
    p.add_argument("id")
    p.set_defaults(func=cmd_approve)

    p = sub.add_parser("reject", help="drop a proposed edit; nothing is written")
    p.add_argument("vault", type=Path)
    p.add_argument("id")
    p.set_defaults(func=cmd_reject)

    p = sub.add_parser("checkpoints", help="applied writes, newest first (who, when, why, which notes)")
    p.add_argument("vault", type=Path)
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_checkpoints)

    p = sub.add_parser("rewind", help="restore the notes of a checkpoint exactly as they were before it")
    p.add_argument("vault", type=Path)
    p.add_argument("id")
    p.add_argument("--force", action="store_true", help="rewind even over a later edit to those notes")
    p.set_defaults(func=cmd_rewind)

    p = sub.add_parser("mcp", help="serve the vault's memory tools over MCP (stdio, or streamable HTTP on 127.0.0.1)")
    p.add_argument("vault", type=Path)
    p.add_argument("--permission", choices=PERMISSION_NAMES, default=DEFAULT_PERMISSION.value)
    p.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio")
    p.add_argument("--token", help="bearer token for --http (default: $ENGRAM_MCP_TOKEN, else a random one, printed)")
    p.add_argument("--actor", default="mcp", help="name recorded on proposals and checkpoints")
    p.set_defaults(func=cmd_mcp)
