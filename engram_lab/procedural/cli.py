"""``engram memory list|add|approve|retire|edit|export|import``: a person's hand on procedural memory."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engram_lab.agent.cli import _person
from engram_lab.procedural.store import KINDS, STATUSES, MemoryEntry, MemoryStore
from engram_lab.procedural.transfer import export_memory, import_memory
from engram_lab.vault.root import require_vault


def describe(entry: MemoryEntry) -> str:
    taint = f"  TAINTED (read: {entry.tainted})" if entry.tainted else ""
    return f"{entry.id}  [{entry.status}] {entry.kind}: {entry.text}  (by {entry.author}, from {entry.source}, {entry.created[:10]}){taint}"


def cmd_memory(args: argparse.Namespace) -> int:
    vault = require_vault(args.vault)
    store = MemoryStore(vault)
    if args.action == "list":
        entries = store.entries(args.status)
        if args.json:
            print(json.dumps([e.to_json() for e in entries], indent=2, ensure_ascii=False))
        else:
            print("\n".join(describe(e) for e in entries) if entries else "no procedural memory entries")
        return 0
    if args.action == "add":
        print(f"added {describe(store.add(args.kind, args.text, author='user', source=args.source))}")
    elif args.action == "approve":
        print(f"approved {describe(store.approve(args.id, by=_person(), tainted_ok=args.tainted))}")
    elif args.action == "retire":
        print(f"retired {describe(store.retire(args.id, by=_person()))}")
    elif args.action == "edit":
        print(f"edited {describe(store.edit(args.id, by=_person(), text=args.text, kind=args.kind))}")
    elif args.action == "export":
        print(f"exported {export_memory(vault, args.file)} entries to {args.file}")
    else:
        counts = import_memory(vault, args.file)
        print(f"imported {args.file}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 0


def add_memory_commands(sub: Any) -> None:
    """Register ``engram memory`` on ``engram``'s subparsers."""
    memory = sub.add_parser("memory", help="procedural memory: preferences, projects, practices (list, add, approve, "
                                           "retire, edit, export, import)")
    actions = memory.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = actions.add_parser("list", help="entries, oldest first, with status, author, source and taint")
    p.add_argument("vault", type=Path)
    p.add_argument("--status", choices=STATUSES)
    p.add_argument("--json", action="store_true")
    p = actions.add_parser("add", help="add an entry as yourself (active at once)")
    p.add_argument("vault", type=Path)
    p.add_argument("text")
    p.add_argument("--kind", choices=KINDS, default="preference")
    p.add_argument("--source", default="engram memory add")
    p = actions.add_parser("approve", help="make a pending entry active")
    p.add_argument("vault", type=Path)
    p.add_argument("id")
    p.add_argument("--tainted", action="store_true", help="approve an entry written after reading untrusted content")
    p = actions.add_parser("retire", help="stop using an entry (kept, never shown to an agent)")
    p.add_argument("vault", type=Path)
    p.add_argument("id")
    p = actions.add_parser("edit", help="rewrite an entry's text or kind")
    p.add_argument("vault", type=Path)
    p.add_argument("id")
    p.add_argument("--text")
    p.add_argument("--kind", choices=KINDS)
    for name, help_text in (("export", "write every entry and decision to a JSON file"),
                            ("import", "merge entries from an export (all or nothing; the later change wins)")):
        p = actions.add_parser(name, help=help_text)
        p.add_argument("vault", type=Path)
        p.add_argument("file", type=Path)
    memory.set_defaults(func=cmd_memory)
