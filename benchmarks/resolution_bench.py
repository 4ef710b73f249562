"""Resolution benchmark: pairwise precision and recall of automatic ``same`` on a synthetic vault with
known identities, and candidate-generation time on 100,000 entities. Prints Markdown for BENCHMARKS.md.

    python -m benchmarks.resolution_bench quality --notes 1500
    python -m benchmarks.resolution_bench scale --entities 100000
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

import polars as pl

from benchmarks.resolution_world import build_world, note, surfaces
from engram_lab.engine import Engine
from engram_lab.graph.vocabulary import entity_iri
from engram_lab.resolve import names as nm
from engram_lab.resolve.candidates import candidate_pairs
from engram_lab.resolve.entities import entity_view
from engram_lab.resolve.evidence import Expansions, score_pair
from engram_lab.resolve.run import load_tables
from engram_lab.resolve.service import resolution_state


def quality(notes: int, seed: int) -> None:
    rng = random.Random(seed)
    world = build_world(rng)
    truth = surfaces(world)
    root = Path(tempfile.mkdtemp(prefix="engram-resolution-"))
    variants: Counter[str] = Counter()
    try:
        for i in range(notes):
            text, written = note(i, world, rng)
            variants.update(kind for _, kind in written)
            (root / f"note-{i:04d}.md").write_text(text, encoding="utf-8")
        engine = Engine(root)
        started = time.perf_counter()
        engine.index(progress=False)
        seconds = time.perf_counter() - started
        view = load_tables(root).view
        state = resolution_state(root)
        known = {}  # entity index -> true identity, for names that denote exactly one
        ambiguous = 0
        for i, name in enumerate(view.names):
            ids = truth.get(nm.loose(name))
            if ids is not None and len(ids) == 1:
                known[i] = next(iter(ids))
            elif ids is not None:
                ambiguous += 1
        tp = fp = fn = 0
        hard_tp = hard_fn = 0
        wrong: list[tuple[str, str]] = []
        for a, b in itertools.combinations(sorted(known), 2):
            same_truth = known[a] == known[b]
            merged = state.same(view.iris[a], view.iris[b])
            easy = nm.loose(view.names[a]) == nm.loose(view.names[b])
            if merged and same_truth:
                tp += 1
                hard_tp += not easy
            elif merged:
                fp += 1
                wrong.append((view.names[a], view.names[b]))
            elif same_truth:
                fn += 1
                hard_fn += not easy
        clusters = state.members()
        mixed = sum(1 for group in clusters.values()
                    if len({known[view.index[i]] for i in group if i in view.index and view.index[i] in known}) > 1)
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        hard_recall = hard_tp / (hard_tp + hard_fn) if hard_tp + hard_fn else 1.0
        print(f"Synthetic vault: {notes} notes, {len(world)} true entities, seed {seed}; mentions by form: "
              + ", ".join(f"{k} {v}" for k, v in sorted(variants.items())))
        print()
        print("| measure | value |")
        print("|---|---|")
        print(f"| extracted entities (evaluated / ambiguous surface / not in the world) | {view.size} ({len(known)} / {ambiguous} / "
              f"{view.size - len(known) - ambiguous}) |")
        print(f"| pairwise precision of automatic same | {precision:.3f} ({tp} right, {fp} wrong) |")
        print(f"| pairwise recall | {recall:.3f} |")
        print(f"| recall on pairs whose names differ beyond case and accents | {hard_recall:.3f} |")
        print(f"| clusters mixing two true entities | {mixed} of {len(clusters)} |")
        print(f"| pairs waiting for review | {len(engine.pending_pairs())} |")
        print(f"| index + analysis time | {seconds:.1f} s |")
        if wrong:
            print("\nWrong merges (first 10): " + "; ".join(f"{a} = {b}" for a, b in wrong[:10]))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _scale_frame(n: int, rng: random.Random) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``n`` entity rows: people, organisations and places from a large name space, 10% written with a typo."""
    syllables = "ka lo mi ne ru sa ti vo be da fe gi ho ju la ma no pe ri so tu va we xi yo za".split()

    def word(k: int) -> str:
        return "".join(rng.choice(syllables) for _ in range(k)).capitalize()

    firsts = [word(2) for _ in range(800)]
    lasts = [word(rng.randint(2, 4)) for _ in range(6000)]
    rows: dict[str, dict[str, object]] = {}
    i = 0
    while len(rows) < n:
        i += 1
        r = rng.random()
        if r < 0.6:
            name, kind = f"{rng.choice(firsts)} {rng.choice(lasts)}", "Person"
        elif r < 0.85:
            name, kind = f"{word(3)} {rng.choice(['Institute', 'Agency', 'Labs', 'Council'])}", "Organization"
        else:
            name, kind = f"{rng.choice(['Port', 'Lake', 'Mount'])} {word(3)}", "Place"
        if rng.random() < 0.1 and len(name) > 6:
            k = rng.randrange(1, len(name) - 1)
            name = name[:k] + rng.choice("aeiou") + name[k + 1 :]
        iri = entity_iri(name, kind)
        rows.setdefault(iri, {"doc_id": f"{i // 10:05d}", "entity_iri": iri, "name": name, "kind": kind, "aliases": [], "mentions": 1})
    entities = pl.DataFrame(list(rows.values()))
    relations = pl.DataFrame(schema={"doc_id": pl.String, "subject_iri": pl.String, "object_iri": pl.String})
    return entities, relations


def scale(n: int, seed: int) -> None:
    entities, relations = _scale_frame(n, random.Random(seed))
    started = time.perf_counter()
    view = entity_view(entities, relations)
    viewed = time.perf_counter()
    pairs = candidate_pairs(view)
    blocked = time.perf_counter()
    expansions = Expansions(view)
    scored = [score_pair(view, a, b, sources, expansions) for (a, b), sources in pairs.items()]
    done = time.perf_counter()
    verdicts = Counter(e.verdict for e in scored)
    print(f"| entities | {view.size:,} |")
    print(f"| candidate pairs (of {view.size * (view.size - 1) // 2:,} possible) | {len(pairs):,} |")
    print(f"| entity view | {viewed - started:.1f} s |")
    print(f"| candidate generation (blocking) | {blocked - viewed:.1f} s |")
    print(f"| evidence and scores | {done - blocked:.1f} s ({', '.join(f'{k} {v:,}' for k, v in sorted(verdicts.items()))}) |")


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--notes", type=int, default=1500)
    q.add_argument("--seed", type=int, default=11)
    s = sub.add_parser("scale")
    s.add_argument("--entities", type=int, default=100_000)
    s.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if args.what == "quality":
        quality(args.notes, args.seed)
    else:
        scale(args.entities, args.seed)


if __name__ == "__main__":
    main()
