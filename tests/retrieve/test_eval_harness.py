"""The evaluation harness end to end on a four-passage corpus written here (the shared data is not needed)."""

from __future__ import annotations

import json

import pytest

from engram_lab.errors import EngramError
from engram_lab.eval.harness import run_musique
from tests.retrieve.test_searcher import BagOfWordsEmbedder

CORPUS = [
    {"title": "Blue Harbour", "text": "Blue Harbour is a film directed by Ana Ruiz."},
    {"title": "Ana Ruiz", "text": "Ana Ruiz was born in Porto Velho."},
    {"title": "Porto Velho", "text": "Porto Velho is the capital of Rondonia."},
    {"title": "Green Valley", "text": "Green Valley is a film directed by Tom Hale."},
]
QUESTIONS = [
    {"id": "2hop__1_2", "question": "Where was the director of Blue Harbour born?", "answer": "Porto Velho",
     "paragraphs": [{"idx": 0, "title": "Blue Harbour", "paragraph_text": CORPUS[0]["text"], "is_supporting": True},
                    {"idx": 1, "title": "Ana Ruiz", "paragraph_text": CORPUS[1]["text"], "is_supporting": True},
                    {"idx": 2, "title": "Green Valley", "paragraph_text": CORPUS[3]["text"], "is_supporting": False}]},
    {"id": "3hop1__1_2_3", "question": "Porto Velho is the capital of which state?", "answer": "Rondonia",
     "paragraphs": [{"idx": 0, "title": "Porto Velho", "paragraph_text": CORPUS[2]["text"], "is_supporting": True}]},
]


@pytest.fixture
def files(tmp_path):
    corpus, questions = tmp_path / "corpus.json", tmp_path / "questions.json"
    corpus.write_text(json.dumps(CORPUS))
    questions.write_text(json.dumps(QUESTIONS))
    return corpus, questions


def test_report_has_every_measure(files, tmp_path):
    corpus, questions = files
    out = tmp_path / "out"
    report = run_musique(questions, corpus, out, modes=("full", "keyword", "dense", "hipporag2"), embedder_factory=BagOfWordsEmbedder)
    assert report["questions"] == 2 and report["passages"] == 4
    assert set(report["overall"]) == {"full", "keyword", "dense", "hipporag2"}
    assert set(report["by_hop"]) == {"2hop", "3hop1"}
    for mode in report["overall"].values():
        assert set(mode) == {"R@2", "R@5", "R@10", "ALL@10"} and all(0 <= v <= 1 for v in mode.values())
    assert report["overall"]["full"]["R@10"] == 1.0  # four passages: everything is in the top ten
    assert set(report["vs_full"]["keyword"]) >= {"wins", "losses", "ties", "p", "full_loses_on"}
    assert (out / "report.md").read_text().startswith("# MuSiQue evaluation")
    assert (out / "all_at_10_by_hop.svg").read_text().startswith("<svg")
    assert json.loads((out / "report.json").read_text())["latency_ms"]["full"]["p50"] >= 0


def test_gold_missing_from_corpus_is_a_clear_error(files, tmp_path):
    corpus, questions = files
    corpus.write_text(json.dumps(CORPUS[1:]))
    with pytest.raises(EngramError, match="not in the corpus"):
        run_musique(questions, corpus, tmp_path / "out", modes=("keyword",), embedder_factory=BagOfWordsEmbedder)


def test_an_engram_toml_turns_on_the_fact_filter_for_the_generated_vault(files, tmp_path):
    from engram_lab.config import trust_config_file
    from tests.extract.chat_server import ChatServer, reply_json

    corpus, questions = files
    settings = tmp_path / "engram.toml"
    with ChatServer() as server:
        server.fallback = lambda request: reply_json({"relevant": [1]})
        settings.write_text(f'[retrieval]\nfact_filter = "llm"\nbase_url = "{server.url}"\nmodel = "m"\nmax_retries = 0\n')
        trust_config_file(tmp_path / "out" / "vault", settings)  # the user's own file (engram eval --config does this)
        report = run_musique(questions, corpus, tmp_path / "out", modes=("full", "no-fact-filter"),
                             embedder_factory=BagOfWordsEmbedder, config=settings)
    counts = report["fact_filter"]["per_mode"]
    assert report["fact_filter"]["model"] == "llm:m" and server.requests
    assert counts["full"]["asked"] + counts["full"]["cached"] == 2 and counts["full"]["unfiltered"] == 0
    assert counts["no-fact-filter"] == {"asked": 0, "cached": 0, "unfiltered": 0}
    assert "Fact filter llm:m" in (tmp_path / "out" / "report.md").read_text()


def test_an_unreadable_config_is_named(files, tmp_path):
    corpus, questions = files
    with pytest.raises(EngramError, match="missing.toml: cannot read the configuration"):
        run_musique(questions, corpus, tmp_path / "out", modes=("keyword",), embedder_factory=BagOfWordsEmbedder,
                    config=tmp_path / "missing.toml")
