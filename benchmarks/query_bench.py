"""Query latency and memory on a large synthetic vault (10,000 notes, ~100,000 entities), models loaded.

    python -m benchmarks.query_bench --notes 10000 [--keep]

Targets (issue 4): auto p50 <= 20 ms; full p50 <= 150 ms and p95 <= 300 ms; peak memory of the
indexed vault <= 2 GB. Each note names people, organisations and places drawn from a large name
space, so the vault holds on the order of 100,000 distinct entities. Prints Markdown.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import time
from pathlib import Path

from benchmarks.hashed_embedder import HashedWords
from benchmarks.timing import ModelClock, StageClock, p50_p95
from engram_lab.engine import Engine

SYLLABLES = "ka lo mi ne ru sa ti vo be da fe gi ho ju la ma no pe ri so tu va we xi yo za".split()
TOPICS = "salinity nitrate turbidity oxygen temperature discharge sediment phosphate chlorophyll".split()


def _word(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(k)).capitalize()


def write_vault(root: Path, notes: int, seed: int = 13) -> None:
    rng = random.Random(seed)
    for i in range(notes):
        people = [f"{_word(rng, 2)} {_word(rng, 3)}" for _ in range(4)]
        orgs = [f"{_word(rng, 3)} {rng.choice(['Institute', 'Agency', 'Council', 'Laboratory'])}" for _ in range(3)]
        places = [f"Port {_word(rng, 3)}" for _ in range(3)]
        topic = rng.choice(TOPICS)
        body = (f"{people[0]} met {people[1]} at the {orgs[0]} in {places[0]}. {people[1]} works for the {orgs[1]}. "
                f"The {orgs[2]} measured {topic} near {places[1]} with {people[2]}. {people[3]} visited {places[2]}.")
        folder = root / f"batch-{i // 500:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note-{i:05d}.md").write_text(f"# Field note {i:05d} on {topic}\n\n{body}\n", encoding="utf-8")



def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", type=Path, default=Path(".bench"))
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--embedder", choices=("model", "hashed"), default="model",
                        help="hashed: a fast stand-in for the model (benchmarks/hashed_embedder.py), for scale runs")
    args = parser.parse_args()
    vault = args.dir / "query-vault"
    if not (args.keep and (vault / ".engram").exists()):
        shutil.rmtree(vault, ignore_errors=True)
        write_vault(vault, args.notes)
    model, stages = ModelClock(), StageClock()
    engine = Engine(vault, embedder_factory=model if args.embedder == "model" else HashedWords())
    started = time.perf_counter()
    engine.index(progress=None, on_stage=stages)  # builds everything a search needs, every embedding included
    indexed = time.perf_counter() - started
    stages.stop()
    model_seconds, model_texts = model.seconds, model.texts  # the queries below encode through it too
    started = time.perf_counter()
    engine.query("warm up: who measured salinity?", mode="full")
    built = time.perf_counter() - started
    data = engine.searcher.loaded_data
    rng = random.Random(5)
    names = data.entities["name"].to_list()
    questions = [f"Who met {rng.choice(names)} and measured {rng.choice(TOPICS)}?" for _ in range(args.queries)]
    timings: dict[str, list[float]] = {"auto": [], "full": []}
    for mode in timings:
        engine.query(questions[0], mode=mode)
        for question in questions:
            t = time.perf_counter()
            engine.query(question, k=10, mode=mode)
            timings[mode].append(time.perf_counter() - t)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"query vault: {args.notes} notes, embedder {args.embedder}, {data.n_entities:,} entities, {data.facts.height:,} facts, "
          f"{data.edges.height:,} typed edges, {data.sections.height:,} sections")
    print("| measure | value | target |\n|---|---|---|")
    print(f"| `engram index` (every stage below; cold unless --keep) | {indexed:.0f} s | — |")
    for stage, seconds in stages.seconds.items():
        print(f"| - {stage} | {seconds:.1f} s | — |")
    if model_texts:
        print(f"| the model's own time (`encode`, {model_texts:,} texts, its load included) | {model_seconds:.0f} s; index / model "
              f"{indexed / model_seconds:.2f} | <= 1.25 |")
    print(f"| first full search after it (query model load included) | {built:.2f} s | — |")
    print(f"| auto, {args.queries} queries | {p50_p95(timings['auto'])} | p50 <= 20 ms |")
    print(f"| full, {args.queries} queries | {p50_p95(timings['full'])} | p50 <= 150 ms, p95 <= 300 ms |")
    print(f"| peak resident memory of this process | {peak_mb:,.0f} MB | <= 2 GB |")


if __name__ == "__main__":
    main()
