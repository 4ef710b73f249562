"""Retrieval settings tried on the dev sets without re-indexing: the vault copies `make eval` left under .bench.

    python -m benchmarks.setting_sweep rust-rfcs full 'full:{"bm25_floor": 0.0}' rrf
    python -m benchmarks.setting_sweep musique-heuristic 'full:{"final_blend": 0.2}'
    python -m benchmarks.setting_sweep musique-imported full

Each argument is a mode, optionally with settings changed (``mode:{json}``, fields of ``RetrievalSettings``).
Prints R@2, R@5, R@10 and ALL@10 per argument, answerable questions only, through the shipped search: the
figures equal the evaluation reports' for the same settings. Choose a default on every set at once (README).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from engram_lab.eval.harness import read_questions
from engram_lab.eval.metrics import all_at, recall_at
from engram_lab.eval.musique import note_path, read_corpus
from engram_lab.eval.vault_eval import ABSTAIN, read_vault_questions
from engram_lab.retrieve.results import SearchResult
from engram_lab.retrieve.searcher import Searcher
from engram_lab.retrieve.settings import settings_for

SETS = {"rust-rfcs": ".bench/eval-rust-rfcs/vault", "musique-heuristic": ".bench/eval-heuristic/vault",
        "musique-imported": ".bench/eval-openie/vault"}

Item = tuple[str, set]  # question, gold (paths or passage numbers)


def _questions(which: str, vault: Path, shared: Path) -> tuple[list[Item], Callable[[SearchResult], object]]:
    if which == "rust-rfcs":
        questions = read_vault_questions(shared / "rust-rfcs" / "questions.jsonl", vault)
        return [(q.text, set(q.gold)) for q in questions if q.kind != ABSTAIN], lambda r: r.path
    corpus = read_corpus(shared / "musique-dev" / "corpus.json")
    number = {note_path(i, p): i for i, p in enumerate(corpus)}
    questions = read_questions(shared / "musique-dev" / "questions.json", corpus)
    return [(q.text, set(q.gold)) for q in questions], lambda r: number.get(r.path, -1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("set", choices=sorted(SETS))
    parser.add_argument("runs", nargs="+", help="mode or mode:{json settings}")
    parser.add_argument("--shared", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    vault = Path(SETS[args.set])
    if not (vault / ".engram").is_dir():
        raise SystemExit(f"{vault}: no evaluated copy; run `make eval` first")
    items, key = _questions(args.set, vault, args.shared)
    searcher = Searcher(vault)
    for run in args.runs:
        mode, _, changes = run.partition(":")
        settings = settings_for(mode).with_(**(json.loads(changes) if changes else {}))
        sums = {"R@2": 0.0, "R@5": 0.0, "R@10": 0.0, "ALL@10": 0.0}
        for text, gold in items:
            ranked = list(dict.fromkeys(key(r) for r in searcher.search(text, k=10, mode=mode, settings=settings).results))
            for k in (2, 5, 10):
                sums[f"R@{k}"] += recall_at(ranked, gold, k)
            sums["ALL@10"] += all_at(ranked, gold, 10)
        print(args.set, run, " ".join(f"{name} {total / len(items):.3f}" for name, total in sums.items()), flush=True)


if __name__ == "__main__":
    main()
