"""``engram eval musique``: build a vault from the corpus, index it, run every mode through the shipped search code.

Reports Recall@2/5/10 and ALL@10 overall and by hop type, index time, query
latency, and per-question paired comparisons of each mode against ``full``.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from collections.abc import Callable

from engram_lab.config import CONFIG_FILE
from engram_lab.engine import Engine
from engram_lab.index.embeddings import Embedder, default_embedder
from engram_lab.errors import EngramError
from engram_lab.eval.metrics import all_at, paired, percentile, recall_at, sign_test
from engram_lab.eval.musique import Passage, read_corpus, read_json_tolerant, write_passage_vault
from engram_lab.eval.plot import bar_chart_svg
from engram_lab.retrieve.fact_filter import configured_fact_filter
from engram_lab.retrieve.searcher import Searcher

DEFAULT_MODES = ("full", "rrf", "keyword", "dense", "graph-off", "hipporag2", "no-csls", "csls")


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    hop: str
    gold: frozenset[int]


def _key(title: str, text: str) -> tuple[str, str]:
    return " ".join(title.split()), " ".join(text.split())


def read_questions(path: Path, corpus: list[Passage]) -> list[Question]:
    data = read_json_tolerant(path)
    if not isinstance(data, list):
        raise EngramError(f"{path}: expected a list of questions")
    index = {_key(p.title, p.text): i for i, p in enumerate(corpus)}
    questions = []
    for item in data:
        gold = {index.get(_key(p["title"], p["paragraph_text"])) for p in item.get("paragraphs", []) if p.get("is_supporting")}
        if None in gold:
            raise EngramError(f"{path}: a gold paragraph of question {item.get('id')} is not in the corpus")
        qid = str(item["id"])
        questions.append(Question(qid, item["question"], qid.split("__")[0], frozenset(g for g in gold if g is not None)))
    return questions


def run_musique(questions_file: Path, corpus_file: Path, out: Path, modes: tuple[str, ...] = DEFAULT_MODES,
                openie: Path | None = None, k: int = 10, embedder_factory: Callable[[], Embedder] = default_embedder,
                config: Path | None = None) -> dict[str, object]:
    """``config``: an engram.toml for the generated vault, e.g. to evaluate an LLM extractor or the LLM fact filter."""
    corpus = read_corpus(corpus_file)
    questions = read_questions(questions_file, corpus)
    settings_text = _read_config(config) if config is not None else None
    vault = out / "vault"
    shutil.rmtree(vault, ignore_errors=True)
    note_of = {path: i for path, i in write_passage_vault(corpus, vault).items()}
    if settings_text is not None:
        (vault / CONFIG_FILE).write_text(settings_text, encoding="utf-8")
    engine = Engine(vault, embedder_factory=embedder_factory)
    started = time.perf_counter()
    if openie is not None:
        engine.import_openie(openie)
    else:
        engine.index(progress=False)
    searcher = Searcher(vault, embedder_factory=embedder_factory, fact_filter=configured_fact_filter(vault))
    searcher.search(questions[0].text, k=k, mode="full")  # builds the retrieval index (embeddings included)
    index_seconds = time.perf_counter() - started

    per_mode: dict[str, dict[str, list[float]]] = {}
    latencies: dict[str, list[float]] = {}
    filter_counts: dict[str, dict[str, int]] = {}
    for mode in modes:
        searcher.search(questions[0].text, k=k, mode=mode)  # warm caches of this mode
        before = searcher.fact_filter.counts.as_dict() if searcher.fact_filter else {}
        scores: dict[str, list[float]] = defaultdict(list)
        for q in questions:
            t = time.perf_counter()
            outcome = searcher.search(q.text, k=k, mode=mode)
            latencies.setdefault(mode, []).append(time.perf_counter() - t)
            ranked = [note_of[r.path] for r in outcome.results]
            scores["R@2"].append(recall_at(ranked, set(q.gold), 2))
            scores["R@5"].append(recall_at(ranked, set(q.gold), 5))
            scores["R@10"].append(recall_at(ranked, set(q.gold), 10))
            scores["ALL@10"].append(all_at(ranked, set(q.gold), 10))
        per_mode[mode] = dict(scores)
        if searcher.fact_filter is not None:
            filter_counts[mode] = {key: n - before[key] for key, n in searcher.fact_filter.counts.as_dict().items()}
    report = _report(questions, per_mode, latencies, index_seconds, "import" if openie else "heuristic", len(corpus))
    if searcher.fact_filter is not None:
        report["fact_filter"] = {"model": searcher.fact_filter.actor, "per_mode": filter_counts}
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2))
    (out / "report.md").write_text(_markdown(report))
    hops = sorted({q.hop for q in questions})
    series = {mode: [report["by_hop"][hop][mode]["ALL@10"] for hop in hops] for mode in modes}  # type: ignore[index]
    (out / "all_at_10_by_hop.svg").write_text(bar_chart_svg("ALL@10 by hop type and mode", hops, series))
    return report


def _read_config(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EngramError(f"{path}: cannot read the configuration: {exc}") from None


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _report(questions, per_mode, latencies, index_seconds, extraction, passages) -> dict[str, object]:  # type: ignore[no-untyped-def]
    metrics = ("R@2", "R@5", "R@10", "ALL@10")
    overall = {mode: {m: _mean(v[m]) for m in metrics} for mode, v in per_mode.items()}
    by_hop: dict[str, dict[str, dict[str, float]]] = {}
    for hop in sorted({q.hop for q in questions}):
        rows = [i for i, q in enumerate(questions) if q.hop == hop]
        by_hop[hop] = {mode: {m: _mean([v[m][i] for i in rows]) for m in metrics} | {"n": len(rows)} for mode, v in per_mode.items()}
    comparisons = {}
    if "full" in per_mode:
        for mode, v in per_mode.items():
            if mode == "full":
                continue
            wins, losses, ties = paired(v["R@5"], per_mode["full"]["R@5"])
            comparisons[mode] = {"metric": "R@5", "wins": wins, "losses": losses, "ties": ties, "p": round(sign_test(wins, losses), 4),
                                 "full_loses_on": [questions[i].qid for i in range(len(questions)) if v["R@5"][i] > per_mode["full"]["R@5"][i]]}
    return {
        "extraction": extraction, "questions": len(questions), "passages": passages, "index_seconds": round(index_seconds, 1),
        "overall": overall, "by_hop": by_hop, "vs_full": comparisons,
        "latency_ms": {mode: {"p50": round(percentile(v, 50) * 1000, 1), "p95": round(percentile(v, 95) * 1000, 1)} for mode, v in latencies.items()},
    }


def paired_lines(vs_full: dict[str, dict[str, object]], metric: str) -> list[str]:
    """The report's table of paired comparisons against ``full`` (empty when there are none)."""
    if not vs_full:
        return []
    lines = ["", f"Paired against full on {metric} (exact sign test):", "", "| mode | wins | losses | ties | p | questions full loses |",
             "|---|---|---|---|---|---|"]
    for mode, c in vs_full.items():
        lines.append(f"| {mode} | {c['wins']} | {c['losses']} | {c['ties']} | {c['p']} | {', '.join(c['full_loses_on']) or '—'} |")  # type: ignore[arg-type]
    return lines


def _markdown(report: dict[str, object]) -> str:
    lines = [f"# MuSiQue evaluation ({report['extraction']} extraction)", "",
             f"{report['questions']} questions, {report['passages']} passages; index time {report['index_seconds']} s "
             "(extraction, graph, tables, BM25 and all embeddings).", "",
             "| mode | R@2 | R@5 | R@10 | ALL@10 | p50 ms | p95 ms |", "|---|---|---|---|---|---|---|"]
    overall, latency = report["overall"], report["latency_ms"]
    for mode, m in overall.items():  # type: ignore[union-attr]
        lat = latency[mode]  # type: ignore[index]
        lines.append(f"| {mode} | {m['R@2']:.3f} | {m['R@5']:.3f} | {m['R@10']:.3f} | {m['ALL@10']:.3f} | {lat['p50']} | {lat['p95']} |")
    lines += ["", "ALL@10 by hop type:", "", "| hop | n | " + " | ".join(overall) + " |", "|---|---|" + "---|" * len(overall)]  # type: ignore[arg-type]
    for hop, modes in report["by_hop"].items():  # type: ignore[union-attr]
        n = next(iter(modes.values()))["n"]
        lines.append(f"| {hop} | {n} | " + " | ".join(f"{modes[m]['ALL@10']:.3f}" for m in overall) + " |")  # type: ignore[union-attr]
    lines += paired_lines(report["vs_full"], "R@5")  # type: ignore[arg-type]
    if "fact_filter" in report:
        fact_filter = report["fact_filter"]
        lines += ["", f"Fact filter {fact_filter['model']} (searches sent to the endpoint / answered from its cache / left unfiltered "  # type: ignore[index]
                  "after a failure): " + "; ".join(f"{mode} {c['asked']} / {c['cached']} / {c['unfiltered']}"
                                                   for mode, c in fact_filter["per_mode"].items())]  # type: ignore[index]
    return "\n".join(lines) + "\n"
