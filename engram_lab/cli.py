"""The ``engram`` command. A user's mistake prints one line on stderr and exits 2, never a traceback."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engram_lab import __version__
from engram_lab.agent.cli import add_agent_commands
from engram_lab.agent.reading import agent_context
from engram_lab.engine import SEARCH_MODES, Engine
from engram_lab.errors import EngramError
from engram_lab.indexer import IndexReport
from engram_lab.procedural.cli import add_memory_commands
from engram_lab.retrieve.confidence import confidence_json, match_label
from engram_lab.retrieve.results import search_payload, snippet
from engram_lab.retrieve.searcher import SearchOutcome
from engram_lab.retrieve.settings import ABLATIONS, AUTO_HEADER
from engram_lab.sample import copy_sample_vault
from engram_lab.status import StatusReport
from engram_lab.vault.root import require_vault


def _print_index(report: IndexReport) -> None:
    parts = [
        f"{len(report.added)} added",
        f"{len(report.updated)} updated",
        f"{len(report.renamed)} renamed",
        f"{len(report.deleted)} deleted",
        f"{len(report.failed)} failed",
        f"{report.unchanged} unchanged",
    ]
    print(f"indexed in {report.seconds:.2f}s: " + ", ".join(parts))
    for old, new in report.renamed:
        print(f"  renamed  {old} -> {new}")
    for path, reason in report.failed:
        print(f"  failed   {path}: {reason}", file=sys.stderr)
    for warning in report.warnings:
        print(f"  skipped  {warning}", file=sys.stderr)
    for problem in report.repaired:
        print(f"  repaired {problem}", file=sys.stderr)
    for path, warning in report.capped:
        print(f"  capped   {path}: {warning}", file=sys.stderr)


def _print_status(report: StatusReport) -> None:
    counts = ", ".join(f"{n} {status}" for status, n in report.counts.items())
    print(f"{report.total} documents: {counts}")
    if report.new:
        print(f"{len(report.new)} new on disk, not indexed yet: run `engram index`")
    if report.deleted:
        print(f"{len(report.deleted)} deleted on disk, still in the index: run `engram index`")
    for path in report.stale:
        print(f"  stale    {path}")
    for path, reason in report.failed:
        print(f"  failed   {path}: {reason}")
    for problem in report.damaged:
        print(f"  damaged  {problem}: run `engram index` to rebuild it")


def _print_results(outcome: SearchOutcome) -> None:
    print(f'\nsearch ({outcome.mode}): "{outcome.query}"')
    if outcome.mode == "auto":
        print(f"  [{AUTO_HEADER}]")
    label = match_label(outcome.confidence)
    if label and outcome.results:
        print(f"  {label}")
    if not outcome.results:
        print("  no matching passage")
    for result in outcome.results:
        print(f"  {result.rank}. [{result.score:.2f}] {result.provenance()}")
        print(f"     {snippet(result.text, 200)}")


def _print_notes(outcome: SearchOutcome) -> None:
    """What the search asked a model, or could not do as configured: on stderr, so --json stays one document."""
    for note in outcome.notes:
        print(f"engram: {note}", file=sys.stderr)


def _read_queries(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EngramError(f"{path}: cannot read: {exc.strerror}") from None
    queries = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EngramError(f"{path}:{number}: not a JSON line: {exc.msg}") from None
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise EngramError(f'{path}:{number}: expected {{"id": ..., "question": "..."}}')
        queries.append(item)
    return queries


def cmd_index(args: argparse.Namespace) -> int:
    _print_index(Engine(args.vault).index(full=args.full, progress=False if args.quiet else None))
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    report = Engine(args.vault).status()
    if args.json:
        print(json.dumps({"counts": report.counts, "failed": [{"path": p, "error": e} for p, e in report.failed],
                          "stale": report.stale, "new": report.new, "deleted": report.deleted, "damaged": report.damaged}, indent=2))
    else:
        _print_status(report)
    return 0


def _payload(outcome: SearchOutcome) -> dict[str, Any]:
    payload = search_payload(outcome.query, outcome.mode, outcome.results)
    payload["context"] = outcome.context
    return payload | confidence_json(outcome.confidence)


def _search_json(outcome: SearchOutcome, args: argparse.Namespace) -> dict[str, Any]:
    """``--for-agent``: every passage of the context wrapped as data (``<external_content>``), for a model."""
    payload = _payload(outcome)
    if args.for_agent:
        payload["context"] = agent_context(outcome)
    return payload


def cmd_search(args: argparse.Namespace) -> int:
    if args.for_agent and not args.json:
        raise EngramError("--for-agent changes the JSON output; give --json too")
    engine = Engine(args.vault)
    if args.queries is not None:
        if args.question is not None:
            raise EngramError("give either a question or --queries FILE, not both")
        for item in _read_queries(args.queries):  # one engine: models and indexes load once
            outcome = engine.query(item["question"], k=args.k, mode=args.mode)
            _print_notes(outcome)
            if args.json:
                print(json.dumps({"id": item.get("id"), **_search_json(outcome, args)}, ensure_ascii=False))
            else:
                _print_results(outcome)
        return 0
    if args.question is None:
        raise EngramError("search needs a question (or --queries FILE.jsonl)")
    outcome = engine.query(args.question, k=args.k, mode=args.mode)
    _print_notes(outcome)
    if args.json:
        print(json.dumps(_search_json(outcome, args), ensure_ascii=False, indent=2))
    else:
        _print_results(outcome)
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    if args.benchmark == "contamination":
        from engram_lab.eval.contamination import run_contamination

        run_contamination(args.out)
        print((args.out / "report.md").read_text())
        print(f"written: {args.out / 'report.json'}, {args.out / 'report.md'}")
        return 0
    if args.questions is None:
        raise EngramError(f"eval {args.benchmark} needs --questions FILE")
    if args.config is not None:  # the user's own file, named here: the vault eval generates may use its endpoints
        from engram_lab.config import trust_config_file

        trust_config_file(args.out / "vault", args.config)
    from engram_lab.eval.harness import DEFAULT_MODES, run_musique
    from engram_lab.eval.vault_eval import DEFAULT_VAULT_MODES, run_vault

    if args.benchmark == "musique" and args.corpus is None:
        raise EngramError("eval musique needs --corpus FILE")
    if args.benchmark == "vault" and args.vault is None:
        raise EngramError("eval vault needs --vault DIR")
    chosen = args.modes or ",".join(DEFAULT_MODES if args.benchmark == "musique" else DEFAULT_VAULT_MODES)
    modes = tuple(m.strip() for m in chosen.split(",") if m.strip())
    unknown = [m for m in modes if m not in SEARCH_MODES and m not in ABLATIONS]
    if unknown:
        raise EngramError(f"unknown mode(s) {', '.join(unknown)}; available: {', '.join((*SEARCH_MODES, *ABLATIONS))}")
    if args.benchmark == "vault":
        run_vault(args.vault, args.questions, args.out, modes)
        plot = "recall_at_10_by_kind.svg"
    else:
        run_musique(args.questions, args.corpus, args.out, modes, args.openie, config=args.config)
        plot = "all_at_10_by_hop.svg"
    print((args.out / "report.md").read_text())
    print(f"written: {args.out / 'report.json'}, {args.out / 'report.md'}, {args.out / plot}")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    engine = Engine(args.vault)
    failures = 0
    for source in args.files:
        try:
            done = engine.ingest(source)
        except EngramError as exc:
            print(f"engram: error: {exc}", file=sys.stderr)
            failures += 1
            continue
        print(f"ingested {source} -> {done.note} (original kept as {done.source})")
    return 2 if failures else 0


def cmd_export(args: argparse.Namespace) -> int:
    count = Engine(args.vault).export_decisions(args.file)
    print(f"exported {count} decisions to {args.file}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    counts = Engine(args.vault).import_decisions(args.file)
    print(f"imported decisions from {args.file}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 0


def cmd_sparql(args: argparse.Namespace) -> int:
    import polars as pl

    frame = Engine(args.vault).sparql(args.query, federated=args.allow_service)
    if args.json:
        print(frame.write_json())
    else:
        with pl.Config(tbl_rows=args.limit, fmt_str_lengths=80, tbl_width_chars=200):
            print(frame)
    return 0


def cmd_import_openie(args: argparse.Namespace) -> int:
    report = Engine(args.vault).import_openie(args.file, args.model)
    print(f"imported {args.file} as import:{report.model}: {report.matched} passages matched to notes, "
          f"{report.unmatched} without a note, {report.dropped_triples} triples dropped (not three items)")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    engine = Engine(args.vault)
    if args.rescan:
        report = engine.analyse()
        print(f"analysed {report.entities} entities in {report.seconds:.2f}s: {report.candidate_pairs} candidate pairs, "
              f"{len(report.auto_same)} new automatic merges, {report.auto_retracted} withdrawn, {report.queued} for review")
    pairs = engine.pending_pairs(args.limit, sort=args.sort)
    if args.json:
        print(json.dumps([{"a": p.a, "b": p.b, "score": p.score, "rule": p.rule, "evidence": p.evidence} for p in pairs], indent=2))
        return 0
    if not pairs:
        print("no pairs waiting for review")
    for p in pairs:
        ev = p.evidence
        print(f"[{p.score:.2f} {p.rule}] {ev.get('name_a')} ({ev.get('kind_a')})  ~  {ev.get('name_b')} ({ev.get('kind_b')}): "
              f"{ev.get('reason')}")
        print(f"       shared notes {ev.get('shared_docs')}, shared neighbours {ev.get('shared_neighbours')}, "
              f"surface {ev.get('surface')}, cosine {ev.get('cosine')}")
        print(f"       engram judge {args.vault} '{p.a}' '{p.b}' same|distinct|broader|narrower|related")
    return 0


def cmd_judge(args: argparse.Namespace) -> int:
    decision = Engine(args.vault).judge(args.a, args.b, args.verdict, force=args.force)
    names = decision.evidence.get("names", [args.a, args.b])
    print(f"recorded {decision.decision_id}: {names[0]} {decision.verdict} {names[1]} (by {decision.actor}); "
          f"undo with: engram retract {args.vault} {decision.decision_id}")
    return 0


def cmd_retract(args: argparse.Namespace) -> int:
    from engram_lab.resolve.dismiss import is_batch_id

    if is_batch_id(args.decision_id):  # a bulk dismissal: every decision of it at once
        decisions = Engine(args.vault).retract_batch(args.decision_id)
        print(f"retracted batch {args.decision_id}: {len(decisions)} decisions; their pairs are back for review")
        return 0
    decision = Engine(args.vault).retract(args.decision_id)
    print(f"retracted {decision.decision_id} ({decision.kind} {decision.verdict} by {decision.actor})")
    return 0


def cmd_dismiss(args: argparse.Namespace) -> int:
    done = Engine(args.vault).dismiss_rule(args.rule)
    print(f"dismissed {len(done.decisions)} pairs from rule {args.rule!r} as distinct; "
          f"undo with: engram retract {args.vault} {done.batch_id}")
    return 0


def cmd_supersessions(args: argparse.Namespace) -> int:
    from engram_lab.resolve.service import candidate_id, supersession_item

    candidates = Engine(args.vault).supersessions()
    if args.json:
        print(json.dumps([supersession_item(c) for c in candidates], indent=2, ensure_ascii=False))
        return 0
    if not candidates:
        print("no supersession candidates")
    for c in candidates:
        ev = c.evidence
        print(f"{candidate_id(c)}  [{ev['status']}]")
        print(f"    earlier {ev['earlier']['date']}: {snippet(ev['earlier']['text'], 120)}")
        print(f"    later   {ev['later']['date']}: {snippet(ev['later']['text'], 120)}")
    return 0


def cmd_verdict(args: argparse.Namespace) -> int:
    decision = Engine(args.vault).supersession_verdict(args.candidate, args.verdict)
    print(f"recorded {decision.decision_id}: {args.verdict} (undo with: engram retract {args.vault} {decision.decision_id})")
    return 0


def cmd_learn(args: argparse.Namespace) -> int:
    body = args.body.read_text(encoding="utf-8") if args.body and str(args.body) != "-" else sys.stdin.read()
    engine = Engine(args.vault)
    result = engine.learn(args.title, body, args.source, force=args.force)
    for note in result.similar:
        print(f"  similar: {note.path} ({note.title!r}): {note.reason}")
    print(f"wrote {result.path} (status: pending-review; searchable now, in the graph once accepted: "
          f"engram accept-learned {args.vault} {result.path})")
    return 0


def cmd_accept_learned(args: argparse.Namespace) -> int:
    engine = Engine(args.vault)
    if not args.path:
        pending = engine.pending_learned()
        print("\n".join(pending) if pending else "no learned notes waiting for review")
        return 0
    engine.accept_learned(args.path)
    print(f"accepted {args.path}; its extraction is now in the graph")
    return 0


def cmd_trust(args: argparse.Namespace) -> int:
    from engram_lab.config import trust_vault
    from engram_lab.trust import describe, revoke_trust

    vault = require_vault(args.vault)
    if args.revoke:
        print(f"{vault}: no longer trusted" if revoke_trust(vault) else f"{vault}: was not trusted")
        return 0
    endpoints = trust_vault(vault)
    print(f"trusted {vault}: " + (f"it may {describe(endpoints)}" if endpoints else "its engram.toml turns on no LLM step")
          + "; an edit to these settings needs trusting again")
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    dest = copy_sample_vault(args.dest)
    print(f"sample vault copied to {dest}; next: engram index {dest}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="engram", description="Document-grounded ontology memory over a Markdown vault.")
    parser.add_argument("--version", action="version", version=f"engram-lab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("index", help="bring the derived state in step with the notes (incremental)")
    p.add_argument("vault", type=Path)
    p.add_argument("--full", action="store_true", help="re-read every note, ignoring file times")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("status", help="document counts, and the failed documents with their reasons")
    p.add_argument("vault", type=Path)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("search", help="search the indexed vault")
    p.add_argument("vault", type=Path)
    p.add_argument("question", nargs="?")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--mode", choices=SEARCH_MODES, default="full")
    p.add_argument("--json", action="store_true")
    p.add_argument("--queries", type=Path, help='JSON lines {"id": ..., "question": ...}; prints one JSON line each')
    p.add_argument("--for-agent", action="store_true",
                   help='with --json: the context wraps each passage as <external_content source="vault:PATH#START-END">')
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("ingest", help="keep external files under sources/ and write Markdown conversions")
    p.add_argument("vault", type=Path)
    p.add_argument("files", type=Path, nargs="+")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("export-decisions", help="write the user decisions (judgments, verdicts) to a JSON file")
    p.add_argument("vault", type=Path)
    p.add_argument("file", type=Path)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import-decisions", help="merge decisions from a JSON export")
    p.add_argument("vault", type=Path)
    p.add_argument("file", type=Path)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("sparql", help="run a SPARQL query over the graph (all document graphs as one)")
    p.add_argument("vault", type=Path)
    p.add_argument("query")
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=int, default=50, help="rows shown in the table (default 50)")
    p.add_argument("--allow-service", action="store_true",
                   help="let SERVICE clauses send requests to other servers (federated queries are off by default)")
    p.set_defaults(func=cmd_sparql)

    p = sub.add_parser("import-openie", help="store precomputed OpenIE triples (HippoRAG JSON) in the notes' graphs")
    p.add_argument("vault", type=Path)
    p.add_argument("file", type=Path)
    p.add_argument("--model", help="the model that produced the file (default: from the file name)")
    p.set_defaults(func=cmd_import_openie)

    p = sub.add_parser("eval", help="evaluate retrieval: musique (passages, multi-hop) or vault (a real vault with questions); "
                                    "contamination: prompt-injection probes against the agent tools")
    p.add_argument("benchmark", choices=["musique", "vault", "contamination"])
    p.add_argument("--questions", type=Path, help="musique: questions.json; vault: JSON lines with id, kind, question, gold")
    p.add_argument("--corpus", type=Path, help="musique: the passages (corpus.json)")
    p.add_argument("--vault", type=Path, help="vault: the notes folder (mirrored into OUT/vault, never written to)")
    p.add_argument("--openie", type=Path, help="musique: index with these imported OpenIE triples instead of the heuristic extractor")
    p.add_argument("--modes", help="comma-separated modes (default: every mode and, for musique, the CSLS ablations)")
    p.add_argument("--out", type=Path, default=Path("eval-out"))
    p.add_argument("--config", type=Path, help="musique: an engram.toml for the generated vault (e.g. an LLM extractor or fact filter)")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("resolve", help="entity pairs waiting for review, with their evidence")
    p.add_argument("vault", type=Path)
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--rescan", action="store_true", help="rerun the resolution pass over every entity first")
    p.add_argument("--sort", choices=["score", "rule"], default="score", help="highest score first, or grouped by rule")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_resolve)

    p = sub.add_parser("judge", help="judge two entities: A same|distinct|broader|narrower|related B")
    p.add_argument("vault", type=Path)
    p.add_argument("a", help="entity IRI or name")
    p.add_argument("b", help="entity IRI or name")
    p.add_argument("verdict", choices=["same", "distinct", "broader", "narrower", "related"],
                   help="'broader': A is broader than B")
    p.add_argument("--force", action="store_true", help="merge even though the kinds are incompatible")
    p.set_defaults(func=cmd_judge)

    p = sub.add_parser("dismiss", help="judge distinct every pair one rule put up for review (one batch, one retract)")
    p.add_argument("vault", type=Path)
    p.add_argument("rule", help="the rule shown beside each pair by `engram resolve` (e.g. similar, typo, acronym)")
    p.set_defaults(func=cmd_dismiss)

    p = sub.add_parser("retract", help="retract a judgment or verdict by its id, or a dismissal by its batch id")
    p.add_argument("vault", type=Path)
    p.add_argument("decision_id")
    p.set_defaults(func=cmd_retract)

    p = sub.add_parser("supersessions", help="dated decisions that a later decision may replace")
    p.add_argument("vault", type=Path)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_supersessions)

    p = sub.add_parser("verdict", help="accept or reject a supersession candidate")
    p.add_argument("vault", type=Path)
    p.add_argument("candidate", help="the id `engram supersessions` shows")
    p.add_argument("verdict", choices=["accept", "reject"])
    p.set_defaults(func=cmd_verdict)

    p = sub.add_parser("learn", help="write a learned note under learned/ (pending review), refusing near-duplicates")
    p.add_argument("vault", type=Path)
    p.add_argument("--title", required=True)
    p.add_argument("--source", action="append", default=[], help="a vault note or URL it comes from (repeatable; at least one)")
    p.add_argument("--body", type=Path, help="a file with the body (default: standard input)")
    p.add_argument("--force", action="store_true", help="write even when a near-duplicate exists")
    p.set_defaults(func=cmd_learn)

    p = sub.add_parser("accept-learned", help="accept a learned note into the graph (no PATH: list those pending)")
    p.add_argument("vault", type=Path)
    p.add_argument("path", nargs="?")
    p.set_defaults(func=cmd_accept_learned)

    p = sub.add_parser("trust", help="let this vault's engram.toml send notes to the LLM endpoints it names (shown)")
    p.add_argument("vault", type=Path)
    p.add_argument("--revoke", action="store_true", help="forget the vault's trust")
    p.set_defaults(func=cmd_trust)

    add_agent_commands(sub)
    add_memory_commands(sub)

    p = sub.add_parser("sample-vault", help="copy the bundled sample vault to DEST")
    p.add_argument("dest", type=Path)
    p.set_defaults(func=cmd_sample)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:  # the reader went away (`engram ... | head`): stop quietly, as other tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit-time flush cannot fail again
        return 141  # 128 + SIGPIPE, what a shell reports for a command that stopped on a closed pipe


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, inside main, not at interpreter exit
        return code
    except EngramError as exc:
        print(f"engram: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("engram: interrupted; what was committed before stays", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
