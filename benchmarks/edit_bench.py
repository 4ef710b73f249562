"""Edit -> searchable (issue 18): one long-lived engine (as a kernel holds it), a note changed, ``Engine.index`` and the
next ``full`` search that must find it, timed together; p50 / p95 over several notes, then a rename and a delete.

    python -m benchmarks.edit_bench [--vault DIR] [--notes 300] [--edits 10]

``--vault``: a vault to measure (indexed and edited in place, every change undone after: pass a copy of shared data,
never the original). Without it, a synthetic vault of ``--notes`` notes under ``.bench/edit``. Prints Markdown.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from benchmarks.hashed_embedder import HashedWords
from benchmarks.synthetic_vault import vault_or_synthetic
from benchmarks.timing import StageClock
from engram_lab.engine import Engine

MARKER = "Zephyrine quartz lantern zq{n}x was adopted in this decision."  # zq{n}x: a word no note has (a bare number is a
# BM25 token that RFC numbers share)


def _searchable(engine: Engine, stages: StageClock | None = None) -> float:
    started = time.perf_counter()
    engine.index(progress=False, warm=True, on_stage=stages)
    if stages is not None:
        stages.stop()
    return time.perf_counter() - started


def _edit(engine: Engine, note: Path, n: int, stages: StageClock) -> tuple[float, float, bool]:
    """Append a sentence no other note holds; time index + the search for it (wall, and this process's CPU over all
    its threads: the figure other jobs on the machine disturb least); undo (untimed)."""
    original = note.read_text(encoding="utf-8")
    note.write_text(original + "\n\n" + MARKER.format(n=n) + "\n", encoding="utf-8")
    try:
        started, cpu = time.perf_counter(), time.process_time()
        engine.index(progress=False, warm=True, on_stage=stages)
        stages.stop()
        hit = engine.query(f"Zephyrine quartz lantern zq{n}x")
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        note.write_text(original, encoding="utf-8")
        engine.index(progress=False, warm=True)
    vault = engine.vault
    return seconds, cpu, bool(hit.results) and hit.results[0].path == note.relative_to(vault).as_posix()


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--embedder", choices=("model", "hashed"), default="model",
                        help="hashed: the stand-in a scale run indexed with (benchmarks/hashed_embedder.py)")
    args = parser.parse_args()
    vault = vault_or_synthetic(args.vault, Path(".bench/edit/vault"), args.notes).resolve()
    engine = Engine(vault) if args.embedder == "model" else Engine(vault, embedder_factory=HashedWords())
    started = time.perf_counter()
    engine.index(progress=False, warm=True)
    engine.query("a first question")
    ready = time.perf_counter() - started
    notes = sorted(p for p in vault.rglob("*.md") if ".engram" not in p.parts)
    chosen = random.Random(18).sample(notes, min(args.edits, len(notes)))
    stages = StageClock()
    timed = [_edit(engine, note, n, stages) for n, note in enumerate(chosen)]
    seconds, cpu = [s for s, _, _ in timed], [c for _, c, _ in timed]
    renamed = chosen[0].with_name("renamed-" + chosen[0].name)
    chosen[0].rename(renamed)
    rename_stages, delete_stages = StageClock(), StageClock()
    rename = _searchable(engine, rename_stages)
    renamed.rename(chosen[0])
    _searchable(engine)
    text = chosen[1].read_text(encoding="utf-8")
    chosen[1].unlink()
    delete = _searchable(engine, delete_stages)
    chosen[1].write_text(text, encoding="utf-8")
    _searchable(engine)
    print(f"\n### Edit -> searchable on {vault} ({len(notes)} notes), one engine, {len(seconds)} edits\n")
    print("| step | time |\n|---|---|")
    print(f"| first `Engine.index` + search in this process (index current or rebuilt) | {ready:.2f} s |")
    print(f"| edit -> `Engine.index(warm=True)` + `full` search finds it, p50 | {statistics.median(seconds):.2f} s |")
    print(f"| same, p95 | {_percentile(seconds, 0.95):.2f} s |")
    print(f"| same, process CPU time p50 / p95 | {statistics.median(cpu):.2f} s / {_percentile(cpu, 0.95):.2f} s |")
    print(f"| edited note ranked first | {sum(found for _, _, found in timed)} of {len(timed)} |")
    for stage, total in stages.seconds.items():
        print(f"| - {stage}, mean per edit | {total / len(timed):.2f} s |")
    for step, seconds_taken, clock in (("rename", rename, rename_stages), ("delete", delete, delete_stages)):
        print(f"| {step} a note -> `Engine.index(warm=True)` | {seconds_taken:.2f} s |")
        for stage, total in clock.seconds.items():
            print(f"| - {stage} | {total:.2f} s |")


if __name__ == "__main__":
    main()
