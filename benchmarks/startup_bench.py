"""What a search costs before its first result (issue 18): a cold CLI search, the first search in a new process
(what a new kernel pays), an edited note made searchable, and the query model alone, each in a fresh process.

    python -m benchmarks.startup_bench [--vault DIR] [--notes 300] [--runs 3]

``--vault``: a vault to measure (it is indexed in place: pass a copy of shared data, never the original).
Without it, a synthetic vault of ``--notes`` notes under ``.bench/startup`` (kept, so the embedding cache makes a
rerun cheap). Prints Markdown; wall-clock medians of ``--runs`` fresh processes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.synthetic_vault import vault_or_synthetic

QUERY = "Which decision changed how closures capture variables?"

# One fresh interpreter, as a new kernel is: import the magics and the engine, search twice, then edit a note and
# make it searchable (index + search, the model and index already loaded). Prints JSON timings.
KERNEL = """
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
import engram_lab.jupyter.magics
from engram_lab.engine import Engine
engine = Engine(sys.argv[1])
t1 = time.perf_counter()
first = engine.query(sys.argv[2])
t2 = time.perf_counter()
engine.query(sys.argv[2] + " again")
t3 = time.perf_counter()
note = Path(sys.argv[3])
original = note.read_text(encoding="utf-8")
note.write_text(original + "\\n\\nZephyrine quartz lanterns were adopted in this decision.\\n", encoding="utf-8")
try:
    t4 = time.perf_counter()
    engine.index(progress=False, warm=True)
    hit = engine.query("Zephyrine quartz lanterns")
    t5 = time.perf_counter()
finally:
    note.write_text(original, encoding="utf-8")
    engine.index(progress=False)
print(json.dumps({"import": t1 - t0, "first": t2 - t1, "second": t3 - t2, "edit": t5 - t4,
                  "found": hit.results[0].path == sys.argv[4] if hit.results else False, "notes": first.notes}))
"""

MODEL_NUMPY = """
import time; t = time.perf_counter()
from engram_lab.index.embeddings import default_embedder
default_embedder().encode(["a question"]); print(time.perf_counter() - t)
"""

MODEL_TORCH = """
import time; t = time.perf_counter()
from engram_lab.index.embeddings import SentenceTransformerEmbedder
SentenceTransformerEmbedder().encode(["a question"]); print(time.perf_counter() - t)
"""


def _wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def _python(code: str, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True).stdout.strip()


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path)
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    vault = vault_or_synthetic(args.vault, Path(".bench/startup/vault"), args.notes)
    engram = str(Path(sys.executable).with_name("engram"))
    indexed = _wall([engram, "index", str(vault), "--quiet"])
    notes = sorted(p for p in vault.rglob("*.md") if ".engram" not in p.parts)
    target = notes[len(notes) // 2]
    rows = [("`engram index` (this run; cold only on the first run)", f"{indexed:.2f} s")]
    rows.append(("python start-up (`python -c pass`)", _median([_wall([sys.executable, "-c", "pass"]) for _ in range(args.runs)])))
    rows.append(("`import engram_lab.cli`", _median([_wall([sys.executable, "-c", "import engram_lab.cli"]) for _ in range(args.runs)])))
    rows.append(("cold CLI search (`engram search VAULT Q --json`, whole process)",
                 _median([_wall([engram, "search", str(vault), QUERY, "--json"]) for _ in range(args.runs)])))
    runs = [json.loads(_python(KERNEL, str(vault), QUERY, str(target), target.relative_to(vault).as_posix()))
            for _ in range(args.runs)]
    rows.append(("new process: import magics + engine", _median([r["import"] for r in runs])))
    rows.append(("new process: first `full` search (model, index, matrices)", _median([r["first"] for r in runs])))
    rows.append(("new process: second search", _median([r["second"] for r in runs])))
    rows.append(("edit a note -> index + next `full` search finds it", _median([r["edit"] for r in runs])
                 + ("" if all(r["found"] for r in runs) else " (edited note NOT first)")))
    rows.append(("query model alone, numpy path (import, load, one query)", _median([float(_python(MODEL_NUMPY)) for _ in range(args.runs)])))
    rows.append(("query model via sentence-transformers (import, load, one query)", _median([float(_python(MODEL_TORCH)) for _ in range(args.runs)])))
    print(f"\n### Start-up on {vault} ({len(notes)} notes), median of {args.runs} fresh processes\n")
    print("| step | time |\n|---|---|")
    for step, value in rows:
        print(f"| {step} | {value} |")
    if any(r["notes"] for r in runs):
        print(f"\nthe first search said: {runs[0]['notes']}")


if __name__ == "__main__":
    main()
