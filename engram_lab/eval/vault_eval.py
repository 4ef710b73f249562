"""``engram eval vault``: retrieval on a real vault with questions people wrote, through the shipped search code.

Questions are JSON lines ``{"id", "kind", "question", "gold": [vault paths], "answer"}``;
kind ``abstain`` (gold empty) asks whether the search can tell that nothing
answers. The vault's notes are mirrored into ``OUT/vault`` (indexing writes
``.engram/`` into the vault it indexes, and a person's vault is not ours to
write), so a second run re-embeds nothing that did not change.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engram_lab.engine import Engine
from engram_lab.errors import EngramError
from engram_lab.eval.harness import paired_lines
from engram_lab.eval.metrics import all_at, auroc, paired, percentile, recall_at, sign_test
from engram_lab.eval.plot import bar_chart_svg
from engram_lab.index.embeddings import Embedder, default_embedder
from engram_lab.retrieve.fact_filter import configured_fact_filter
from engram_lab.retrieve.searcher import Searcher
from engram_lab.vault.root import require_vault

DEFAULT_VAULT_MODES = ("full", "rrf", "keyword", "dense", "graph-off", "hipporag2")
ABSTAIN = "abstain"
METRICS = ("R@5", "R@10", "ALL@10")


@dataclass(frozen=True)
class VaultQuestion:
    qid: str
    kind: str
    text: str
    gold: frozenset[str]


def read_vault_questions(path: Path, vault: Path) -> list[VaultQuestion]:
    """Every line checked; the first bad one is named with its line number, and gold paths must exist."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise EngramError(f"{path}: cannot read the questions: {exc}") from None
    questions: list[VaultQuestion] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EngramError(f"{where}: not valid JSON: {exc.msg}") from None
        if not isinstance(item, dict):
            raise EngramError(f"{where}: expected an object with id, kind, question and gold")
        qid, kind, text, gold = item.get("id"), item.get("kind"), item.get("question"), item.get("gold", [])
        if not isinstance(qid, (str, int)) or str(qid) in seen:
            raise EngramError(f"{where}: the id is missing, not a string, or used twice")
        if not isinstance(kind, str) or not kind or not isinstance(text, str) or not text.strip():
            raise EngramError(f"{where}: 'kind' and 'question' must be non-empty strings")
        if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
            raise EngramError(f"{where}: 'gold' must be a list of vault-relative paths")
        if kind == ABSTAIN and gold:
            raise EngramError(f"{where}: an abstain question has no gold notes")
        if kind != ABSTAIN and not gold:
            raise EngramError(f"{where}: a {kind} question needs at least one gold note (or kind 'abstain')")
        for g in gold:
            if not (vault / g).is_file():
                raise EngramError(f"{where}: gold note {g} is not in the vault {vault}")
        seen.add(str(qid))
        questions.append(VaultQuestion(str(qid), kind, text, frozenset(gold)))
    if not questions:
        raise EngramError(f"{path}: no questions")
    return questions


def mirror_vault(source: Path, dest: Path) -> None:
    """Make ``dest`` hold the notes of ``source`` (everything but ``.engram/``), copying only what changed."""
    dest.mkdir(parents=True, exist_ok=True)
    wanted: set[Path] = set()
    for path in source.rglob("*"):
        rel = path.relative_to(source)
        if rel.parts[0] == ".engram" or path.is_symlink() or not path.is_file():
            continue
        wanted.add(rel)
        target = dest / rel
        if target.is_file() and target.stat().st_size == path.stat().st_size and target.read_bytes() == path.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    for path in sorted(dest.rglob("*"), reverse=True):
        rel = path.relative_to(dest)
        if rel.parts[0] == ".engram":
            continue
        if path.is_file() and rel not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def run_vault(vault: Path, questions_file: Path, out: Path, modes: tuple[str, ...] = DEFAULT_VAULT_MODES, k: int = 10,
              embedder_factory: Callable[[], Embedder] = default_embedder, progress: bool = False) -> dict[str, object]:
    vault = require_vault(vault)
    questions = read_vault_questions(questions_file, vault)
    copy = out / "vault"
    mirror_vault(vault, copy)
    started = time.perf_counter()
    Engine(copy, embedder_factory=embedder_factory).index(progress=progress)
    searcher = Searcher(copy, embedder_factory=embedder_factory, fact_filter=configured_fact_filter(copy))
    searcher.search(questions[0].text, k=k, mode="full")  # loads the index and the query model: the timings below are warm
    index_seconds = time.perf_counter() - started

    per_mode: dict[str, dict[str, list[float]]] = {}
    confidence: dict[str, list[float | None]] = {}
    latencies: dict[str, list[float]] = {}
    for mode in modes:
        searcher.search(questions[0].text, k=k, mode=mode)  # warm this mode's caches
        scores: dict[str, list[float]] = defaultdict(list)
        for q in questions:
            t = time.perf_counter()
            outcome = searcher.search(q.text, k=k, mode=mode)
            latencies.setdefault(mode, []).append(time.perf_counter() - t)
            ranked = list(dict.fromkeys(r.path for r in outcome.results))
            confidence.setdefault(mode, []).append(outcome.confidence)
            scores["R@5"].append(recall_at(ranked, set(q.gold), 5))
            scores["R@10"].append(recall_at(ranked, set(q.gold), 10))
            scores["ALL@10"].append(all_at(ranked, set(q.gold), 10))
        per_mode[mode] = dict(scores)
    report = vault_report(questions, per_mode, confidence, latencies, index_seconds, vault)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2))
    (out / "report.md").write_text(vault_markdown(report))
    kinds = [kind for kind in report["by_kind"]]  # type: ignore[union-attr]
    series = {mode: [report["by_kind"][kind][mode]["R@10"] for kind in kinds] for mode in modes}  # type: ignore[index]
    (out / "recall_at_10_by_kind.svg").write_text(bar_chart_svg("Recall@10 by question kind and mode", kinds, series))
    return report


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _abstention(questions: list[VaultQuestion], confidence: dict[str, list[float | None]]) -> dict[str, object]:
    """AUROC of telling abstain questions from answerable ones, per mode that gives a confidence, and by query length."""
    abstain = [i for i, q in enumerate(questions) if q.kind == ABSTAIN]
    answerable = [i for i, q in enumerate(questions) if q.kind != ABSTAIN]
    if not abstain or not answerable:
        return {}
    lengths = [float(len(q.text.split())) for q in questions]
    by_length = auroc([lengths[i] for i in abstain], [lengths[i] for i in answerable])
    out: dict[str, object] = {"n_abstain": len(abstain), "query_length_auroc": round(max(by_length, 1 - by_length), 4)}
    for mode, values in confidence.items():
        if any(v is None for v in values):
            continue
        # A low confidence should mark the abstain questions: their "no match" score is 1 - confidence.
        out[mode] = round(auroc([1 - values[i] for i in abstain], [1 - values[i] for i in answerable]), 4)  # type: ignore[operator]
    return out


def vault_report(questions, per_mode, confidence, latencies, index_seconds, vault) -> dict[str, object]:  # type: ignore[no-untyped-def]
    answerable = [i for i, q in enumerate(questions) if q.kind != ABSTAIN]
    overall = {mode: {m: _mean([v[m][i] for i in answerable]) for m in METRICS} | {"answerable_R@10": _mean([v["R@10"][i] for i in answerable])}
               for mode, v in per_mode.items()}
    by_kind: dict[str, dict[str, dict[str, float]]] = {}
    for kind in sorted({q.kind for q in questions} - {ABSTAIN}):
        rows = [i for i, q in enumerate(questions) if q.kind == kind]
        by_kind[kind] = {mode: {m: _mean([v[m][i] for i in rows]) for m in METRICS} | {"n": len(rows)} for mode, v in per_mode.items()}
    comparisons = {}
    if "full" in per_mode:
        reference = [per_mode["full"]["R@10"][i] for i in answerable]
        for mode, v in per_mode.items():
            if mode == "full":
                continue
            mine = [v["R@10"][i] for i in answerable]
            wins, losses, ties = paired(mine, reference)
            comparisons[mode] = {"metric": "R@10", "wins": wins, "losses": losses, "ties": ties, "p": round(sign_test(wins, losses), 4),
                                 "full_loses_on": [questions[i].qid for i, a, b in zip(answerable, mine, reference) if a > b]}
    return {
        "vault": str(vault), "questions": len(questions), "answerable": len(answerable), "index_seconds": round(index_seconds, 1),
        "overall": overall, "by_kind": by_kind, "abstention": _abstention(questions, confidence), "vs_full": comparisons,
        "latency_ms": {mode: {"p50": round(percentile(v, 50) * 1000, 1), "p95": round(percentile(v, 95) * 1000, 1)} for mode, v in latencies.items()},
    }


def vault_markdown(report: dict[str, object]) -> str:
    overall, latency = report["overall"], report["latency_ms"]
    lines = [f"# Vault evaluation: {report['vault']}", "",
             f"{report['questions']} questions ({report['answerable']} answerable); index time {report['index_seconds']} s "
             "(notes, graph, tables, BM25 and all embeddings).", "",
             "| mode | answerable R@10 | R@5 | ALL@10 | p50 ms | p95 ms |", "|---|---|---|---|---|---|"]
    for mode, m in overall.items():  # type: ignore[union-attr]
        lat = latency[mode]  # type: ignore[index]
        lines.append(f"| {mode} | {m['answerable_R@10']:.3f} | {m['R@5']:.3f} | {m['ALL@10']:.3f} | {lat['p50']} | {lat['p95']} |")
    lines += ["", "By kind (R@10 / ALL@10):", "", "| kind | n | " + " | ".join(overall) + " |", "|---|---|" + "---|" * len(overall)]  # type: ignore[arg-type]
    for kind, modes in report["by_kind"].items():  # type: ignore[union-attr]
        n = next(iter(modes.values()))["n"]
        lines.append(f"| {kind} | {n} | " + " | ".join(f"{modes[m]['R@10']:.3f} / {modes[m]['ALL@10']:.2f}" for m in overall) + " |")  # type: ignore[union-attr]
    abstention = report["abstention"]
    if abstention:
        shown = ", ".join(f"{mode} {value}" for mode, value in abstention.items() if mode not in ("n_abstain", "query_length_auroc"))  # type: ignore[union-attr]
        lines += ["", f"Abstention ({abstention['n_abstain']} questions; AUROC of the confidence telling them from answerable ones): "  # type: ignore[index]
                  f"{shown or 'no mode gives a confidence'}; query length alone {abstention['query_length_auroc']}."]  # type: ignore[index]
    lines += paired_lines(report["vs_full"], "R@10")  # type: ignore[arg-type]
    return "\n".join(lines) + "\n"
