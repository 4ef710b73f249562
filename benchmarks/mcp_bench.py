"""What the MCP layer adds to a search: the same queries through `engram mcp` over stdio and as direct calls.

    python -m benchmarks.mcp_bench --vault VAULT [--queries 30] [--mode full]

VAULT must be indexed (the benchmark measures searching, not indexing). Both sides use the same tool
(the registry's ``search``) in one warm process each, so the difference is the protocol: JSON-RPC over a
pipe, the SDK's framing and the result's serialisation. Queries are note titles, as a user would type them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import anyio

from benchmarks.timing import p50_p95
from engram_lab.agent import Permission, call_tool
from engram_lab.agent.session import AgentSession


def _queries(vault: Path, n: int) -> list[str]:
    """Note names as words ("2052-epochs.md" -> "2052 epochs"): what a user looking for a note types."""
    return [p.stem.replace("-", " ") for p in sorted(vault.rglob("*.md")) if ".engram" not in p.parts][:n]


def direct(vault: Path, queries: list[str], mode: str) -> list[float]:
    session = AgentSession(vault, Permission.READ_ONLY, actor="bench")
    call_tool(session, "search", {"query": queries[0], "k": 10, "mode": mode})  # load the index and the model
    out = []
    for q in queries:
        started = time.perf_counter()
        call_tool(session, "search", {"query": q, "k": 10, "mode": mode})
        out.append(time.perf_counter() - started)
    return out


def over_stdio(vault: Path, queries: list[str], mode: str) -> list[float]:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "engram_lab.cli", "mcp", str(vault),
                                                                 "--permission", "read-only"], env={**os.environ})

    async def go() -> list[float]:
        async with Client(params) as client:
            await client.call_tool("search", {"query": queries[0], "k": 10, "mode": mode})
            out = []
            for q in queries:
                started = time.perf_counter()
                result = await client.call_tool("search", {"query": q, "k": 10, "mode": mode})
                out.append(time.perf_counter() - started)
                if result.is_error:
                    raise SystemExit(f"mcp_bench: the server refused a search: {result.content[0].text}")
            return out

    return anyio.run(go)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--mode", default="full")
    args = parser.parse_args(argv)
    if not (args.vault / ".engram").is_dir():
        print(f"mcp_bench: {args.vault}: not indexed; run engram index first", file=sys.stderr)
        return 2
    queries = _queries(args.vault, args.queries)
    mine = direct(args.vault, queries, args.mode)
    piped = over_stdio(args.vault, queries, args.mode)
    print(f"{len(queries)} searches, mode {args.mode}, vault {args.vault}")
    print(f"  direct call:  {p50_p95(mine)}")
    print(f"  MCP (stdio):  {p50_p95(piped)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
