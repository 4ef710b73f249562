"""``engram eval vault`` end to end on a small vault and question file written here (no shared data needed)."""

from __future__ import annotations

import json

import pytest

from engram_lab.cli import main
from engram_lab.errors import EngramError
from engram_lab.eval.metrics import auroc
from engram_lab.eval.vault_eval import mirror_vault, read_vault_questions, run_vault
from tests.retrieve.test_searcher import BagOfWordsEmbedder

NOTES = {
    "decisions/2019-cache.md": "# Cache policy\n\nDate: 2019-03-01\n\nWe cache build outputs for seven days.\n",
    "decisions/2021-cache.md": "# Cache policy, revised\n\nDate: 2021-06-01\n\nSupersedes [[2019-cache]]. Build outputs are now kept for thirty days.\n",
    "team/ana.md": "# Ana Ruiz\n\nAna Ruiz leads the storage team and wrote the backup runbook.\n",
    "runbooks/backup.md": "# Backup runbook\n\nRestore a snapshot with the restore command, then verify checksums.\n",
}
QUESTIONS = [
    {"id": "L1", "kind": "lookup", "question": "How do I restore a snapshot?", "gold": ["runbooks/backup.md"], "answer": "restore command"},
    {"id": "M1", "kind": "multihop", "question": "Which team does the author of the backup runbook lead?",
     "gold": ["team/ana.md", "runbooks/backup.md"], "answer": "storage"},
    {"id": "T1", "kind": "temporal", "question": "How long are build outputs cached now, and what was it before?",
     "gold": ["decisions/2019-cache.md", "decisions/2021-cache.md"], "answer": "30 days, was 7"},
    {"id": "A1", "kind": "abstain", "question": "What is the office wifi password?", "gold": [], "answer": ""},
]


@pytest.fixture
def files(vault, write, tmp_path):
    for path, text in NOTES.items():
        write(path, text)
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n")
    return vault, questions


def test_report_has_every_measure_by_kind(files, tmp_path):
    vault, questions = files
    out = tmp_path / "out"
    report = run_vault(vault, questions, out, modes=("full", "rrf", "keyword", "dense"), embedder_factory=BagOfWordsEmbedder)
    assert report["questions"] == 4 and report["answerable"] == 3
    assert set(report["overall"]) == {"full", "rrf", "keyword", "dense"}
    for metrics in report["overall"].values():
        assert set(metrics) == {"R@5", "R@10", "ALL@10", "answerable_R@10"} and all(0 <= v <= 1 for v in metrics.values())
    assert report["overall"]["rrf"]["answerable_R@10"] == 1.0  # four notes: every gold note is in the top ten
    assert set(report["by_kind"]) == {"lookup", "multihop", "temporal"}  # abstain is reported apart
    assert report["by_kind"]["multihop"]["full"]["n"] == 1
    assert report["abstention"]["n_abstain"] == 1 and 0.5 <= report["abstention"]["query_length_auroc"] <= 1
    assert {"wins", "losses", "ties", "p", "full_loses_on"} <= set(report["vs_full"]["rrf"])
    assert set(report["latency_ms"]["full"]) == {"p50", "p95"}
    assert (out / "report.md").read_text().startswith("# Vault evaluation")
    assert (out / "recall_at_10_by_kind.svg").read_text().startswith("<svg")
    assert not (vault / ".engram").exists()  # the person's vault is never written to: a mirror is indexed


def test_the_mirror_follows_the_vault(files, tmp_path):
    vault, _ = files
    copy = tmp_path / "copy"
    mirror_vault(vault, copy)
    (copy / ".engram").mkdir()
    (vault / "team" / "ana.md").unlink()
    (vault / "new.md").write_text("# New\n")
    mirror_vault(vault, copy)
    assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*.md")) == sorted(
        [*(p for p in NOTES if p != "team/ana.md"), "new.md"])
    assert (copy / ".engram").is_dir() and not (copy / "team").exists()  # derived state kept, empty folders gone


@pytest.mark.parametrize(("line", "problem"), [
    ("{not json", "line 1: not valid JSON"),
    (json.dumps({"id": "x", "kind": "lookup", "question": "q", "gold": ["missing.md"]}), "gold note missing.md is not in the vault"),
    (json.dumps({"id": "x", "kind": "lookup", "question": "q", "gold": []}), "needs at least one gold note"),
    (json.dumps({"id": "x", "kind": "abstain", "question": "q", "gold": ["runbooks/backup.md"]}), "abstain question has no gold"),
    (json.dumps({"id": "x", "kind": "lookup", "question": "", "gold": ["runbooks/backup.md"]}), "must be non-empty strings"),
    (json.dumps([1, 2]), "expected an object"),
])
def test_a_bad_question_line_is_named(files, tmp_path, line, problem):
    vault, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line + "\n")
    with pytest.raises(EngramError, match=problem):
        read_vault_questions(bad, vault)


def test_cli_needs_a_vault_for_a_vault_evaluation(files, capsys):
    _, questions = files
    assert main(["eval", "vault", "--questions", str(questions)]) == 2
    assert "eval vault needs --vault DIR" in capsys.readouterr().err


def test_auroc_counts_ties_as_half():
    assert auroc([3, 4], [1, 2]) == 1.0 and auroc([1], [2]) == 0.0
    assert auroc([1, 2], [2, 1]) == 0.5 and auroc([], [1]) == 0.5
