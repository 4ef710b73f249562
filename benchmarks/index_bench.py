"""Index benchmarks for the relational layer; prints Markdown tables for BENCHMARKS.md.

    python -m benchmarks.index_bench musique --corpus ../shared/data/musique-dev/corpus.json
    python -m benchmarks.index_bench synthetic --notes 10000
    python -m benchmarks.index_bench vault --vault ../shared/data/rust-rfcs/vault    # a copy is indexed, never the original
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import time
from pathlib import Path

from benchmarks.synthetic_vault import write_synthetic_vault
from engram_lab.eval.musique import read_corpus, write_passage_vault
from engram_lab.graph.store import GraphStore
from engram_lab.index.derived import refresh_keyword_index
from engram_lab.index.embeddings import default_embedder
from engram_lab.index.retrieval_index import load, passage_text, refresh_retrieval_index
from benchmarks.timing import ModelClock, StageClock, p50_p95
from engram_lab.engine import Engine
from engram_lab.indexer import index_vault
from engram_lab.resolve.run import analyse_vault


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _store_figures(vault: Path, notes: int) -> None:
    store = GraphStore(vault / ".engram" / "store")  # a writable open replays and drops RocksDB's write-ahead log
    quads = len(store)
    store.close()
    store_bytes = _du(vault / ".engram" / "store")
    tables_bytes = _du(vault / ".engram" / "tables")
    print(f"| quads | {quads:,} ({quads / notes:.0f} per note) |")
    print(f"| store size per 1,000 notes | {store_bytes / notes * 1000 / 1e6:.1f} MB |")
    print(f"| Parquet tables per 1,000 notes | {tables_bytes / notes * 1000 / 1e6:.2f} MB |")


def musique(args: argparse.Namespace) -> None:
    passages = read_corpus(args.corpus)
    vault = args.dir / "musique-vault"
    shutil.rmtree(vault, ignore_errors=True)
    write_passage_vault(passages, vault)
    embedder = default_embedder()  # loaded before timing: the model load is the same for any system
    started = time.perf_counter()
    report = index_vault(vault, progress=False)
    cold = time.perf_counter() - started
    assert not report.failed, report.failed[:3]
    started = time.perf_counter()
    refresh_keyword_index(vault)
    folder = refresh_retrieval_index(vault, embedder)
    derived = time.perf_counter() - started
    data = load(folder)
    titles = dict(zip(data.documents["doc_id"].to_list(), data.documents["title"].to_list()))
    texts = [passage_text(titles[d], t) for d, t in zip(data.sections["doc_id"].to_list(), data.sections["text"].to_list())]
    texts += data.entities["name"].to_list() + data.facts["text"].to_list()
    started = time.perf_counter()
    for start in range(0, len(texts), 512):
        embedder.encode(texts[start : start + 512])
    model_only = time.perf_counter() - started
    total = cold + derived
    print(f"MuSiQue corpus: {len(passages)} passages, heuristic extractor, {os.cpu_count()} cores")
    print("| measure | value |\n|---|---|")
    print(f"| cold index (parse, extract, graph, tables) | {cold:.1f} s |")
    print(f"| BM25 + retrieval index (all embeddings, density, synonyms, edges) | {derived:.1f} s |")
    print(f"| total cold index including embeddings | {total:.1f} s |")
    print(f"| the model alone on the same {len(texts):,} texts | {model_only:.1f} s |")
    print(f"| overhead beyond the model | {(total - model_only) / model_only * 100:.0f} % |")
    _store_figures(vault, len(passages))


def synthetic(args: argparse.Namespace) -> None:
    vault = args.dir / "synthetic-vault"
    cold = float("nan")
    if not (args.keep and (vault / ".engram").exists()):
        shutil.rmtree(vault, ignore_errors=True)
        write_synthetic_vault(vault, args.notes)
        started = time.perf_counter()
        index_vault(vault, progress=False)
        cold = time.perf_counter() - started
    warm = []
    for _ in range(3):
        started = time.perf_counter()
        index_vault(vault, progress=False)
        warm.append(time.perf_counter() - started)
    notes = sorted(vault.rglob("*.md"))
    rng = random.Random(3)
    edits = []
    for i in range(args.edits):
        path = rng.choice(notes)
        path.write_text(path.read_text() + f"\nEdit {i}: Okafor revised the plan.\n")
        started = time.perf_counter()
        report = index_vault(vault, progress=False)
        edits.append(time.perf_counter() - started)
        assert len(report.updated) == 1
    started = time.perf_counter()
    analysis = analyse_vault(vault)
    full_analysis = time.perf_counter() - started
    engine = Engine(vault)
    engine.index(progress=False)
    with_analysis = []
    for i in range(args.edits):
        path = rng.choice(notes)
        path.write_text(path.read_text() + f"\nEdit {i}b: Raman checked the plan.\n")
        started = time.perf_counter()
        engine.index(progress=False)
        with_analysis.append(time.perf_counter() - started)
    print(f"synthetic vault: {args.notes} notes, heuristic extractor, {os.cpu_count()} cores")
    print("| measure | value |\n|---|---|")
    print(f"| cold index | {cold:.1f} s |")
    print(f"| re-index, nothing changed (median of 3) | {statistics.median(warm):.2f} s |")
    print(f"| re-index after editing one note ({args.edits} edits) | {p50_p95(edits)} |")
    print(f"| analysis pass over every entity ({analysis.entities:,} entities, {analysis.candidate_pairs:,} pairs) | {full_analysis:.1f} s |")
    print(f"| `engram index` after editing one note: re-index + focused analysis ({args.edits} edits) | {p50_p95(with_analysis)} |")
    _store_figures(vault, args.notes)


def vault_cold(args: argparse.Namespace) -> None:
    """Issue 18's cold ratio on a real vault: ``Engine.index`` of a fresh copy (every embedding, no cache) against the
    model's own ``encode`` time on the same texts, stage by stage."""
    source = args.vault.resolve()
    vault = args.dir / f"cold-{source.name}"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".engram"))
    model, stages = ModelClock(), StageClock()
    engine = Engine(vault, embedder_factory=model)
    started = time.perf_counter()
    engine.index(progress=None, on_stage=stages)
    indexed = time.perf_counter() - started
    stages.stop()
    notes = sum(1 for _ in vault.rglob("*.md"))
    print(f"cold `Engine.index` of a copy of {source} ({notes} Markdown files), {os.cpu_count()} cores")
    print("| measure | value | target |\n|---|---|---|")
    print(f"| `engram index`, cold, every embedding | {indexed:.1f} s | — |")
    for stage, seconds in stages.seconds.items():
        print(f"| - {stage} | {seconds:.1f} s | — |")
    print(f"| the model's own time (`encode`, {model.texts:,} texts, its load included) | {model.seconds:.1f} s; "
          f"index / model {indexed / max(model.seconds, 1e-9):.2f} | <= 1.25 |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", type=Path, default=Path(".bench"))
    sub = parser.add_subparsers(dest="which", required=True)
    p = sub.add_parser("musique")
    p.add_argument("--corpus", type=Path, default=Path("../shared/data/musique-dev/corpus.json"))
    p.set_defaults(func=musique)
    p = sub.add_parser("synthetic")
    p.add_argument("--notes", type=int, default=10_000)
    p.add_argument("--edits", type=int, default=20)
    p.add_argument("--keep", action="store_true", help="reuse an indexed vault from an earlier run (no cold figure)")
    p.set_defaults(func=synthetic)
    p = sub.add_parser("vault")
    p.add_argument("--vault", type=Path, required=True)
    p.set_defaults(func=vault_cold)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
