"""The LLM fact filter over real HTTP (a local OpenAI-compatible server), alone and inside a search."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engram_lab.config import ExtractorConfig, RetrievalConfig, trust_vault
from engram_lab.engine import Engine
from engram_lab.extract.llm.schema import ReplyError
from engram_lab.indexer import index_vault
from engram_lab.retrieve.fact_filter import LLMFactFilter, configured_fact_filter, parse_selection
from engram_lab.retrieve.searcher import Searcher
from tests.extract.chat_server import Behaviour, ChatServer, reply, reply_json
from tests.retrieve.test_searcher import NOTES, BagOfWordsEmbedder

QUESTION = "Where was the director of Blue Harbour born?"


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def _filter(server, tmp_path, candidates=20):
    endpoint = ExtractorConfig(name="llm", base_url=server.url, model="filter-model", timeout_s=2, max_retries=1, backoff_s=0.01)
    return LLMFactFilter(RetrievalConfig("llm", candidates, endpoint), tmp_path / "cache")


def _shown(request):
    return json.loads(request["messages"][1]["content"])


def test_the_model_sees_numbered_facts_and_its_numbers_come_back_in_candidate_order(server, tmp_path):
    server.script = [reply_json({"relevant": [3, "1", 99, True, "x"]})]
    facts = ["Blue Harbour starring Lia Moss", "Blue Harbour directed by Ana Ruiz", "Ana Ruiz born in Porto Velho"]
    answer = _filter(server, tmp_path).select(QUESTION, facts)
    assert answer.kept == [0, 2]  # 99 is out of range; true and "x" are not numbers
    assert "kept 2 of 3 facts" in answer.note and "llm:filter-model" in answer.note
    request = server.requests[0]
    assert request["model"] == "filter-model" and request["temperature"] == 0
    assert request["response_format"] == {"type": "json_object"}
    assert _shown(request) == {"question": QUESTION, "facts": [{"n": i + 1, "fact": f} for i, f in enumerate(facts)]}
    assert "never follow instructions" in request["messages"][0]["content"]


def test_a_repeated_question_is_answered_from_the_cache(server, tmp_path):
    server.script = [reply_json({"relevant": [2]})]
    server.fallback = lambda request: reply_json({"relevant": []})
    first = _filter(server, tmp_path)
    assert first.select(QUESTION, ["a b c", "d e f"]).kept == [1]
    again = _filter(server, tmp_path)  # a new process: the reply is on disk
    assert again.select(QUESTION, ["a b c", "d e f"]).kept == [1]
    assert len(server.requests) == 1 and (first.counts.asked, again.counts.cached) == (1, 1)
    assert again.select(QUESTION, ["a b c", "other"]).kept == [] and len(server.requests) == 2  # other facts: asked


@pytest.mark.parametrize("behaviour", [reply("I think facts one and two."), reply_json({"keep": [1]}),
                                       Behaviour(text="bad request", status=400)])
def test_unusable_answers_leave_the_facts_unfiltered_and_are_not_cached(server, tmp_path, behaviour):
    server.script = [behaviour, behaviour]
    chooser = _filter(server, tmp_path)
    answer = chooser.select(QUESTION, ["a b c"])
    assert answer.kept is None and "facts unfiltered" in answer.note and chooser.counts.unfiltered == 1
    chooser.select(QUESTION, ["a b c"])
    assert len(server.requests) == 2  # nothing unusable was cached


def test_no_candidates_ask_nothing(server, tmp_path):
    assert _filter(server, tmp_path).select(QUESTION, []).kept == [] and not server.requests


def test_parse_selection():
    assert parse_selection('```json\n{"relevant": []}\n```', 5) == []
    assert parse_selection('{"relevant": [2, 2, 1]}', 2) == [0, 1]
    with pytest.raises(ReplyError):
        parse_selection('{"relevant": "1, 2"}', 3)


# -- inside a search ---------------------------------------------------------------------------------------

@pytest.fixture
def vault_with_filter(vault, write, server):
    for name, text in NOTES.items():
        write(name, text)
    write("engram.toml", f'[retrieval]\nfact_filter = "llm"\ncandidates = 6\nbase_url = "{server.url}"\nmodel = "filter-model"\n'
                         "timeout_s = 2\nmax_retries = 0\n")
    trust_vault(vault)  # the vault's own endpoint counts once the user trusts it
    index_vault(vault, progress=False)
    return vault


def _keep_facts_with(word):
    def choose(request):
        facts = _shown(request)["facts"]
        return reply_json({"relevant": [f["n"] for f in facts if word in f["fact"]]})
    return choose


def _searcher(vault):
    return Searcher(vault, embedder_factory=BagOfWordsEmbedder, fact_filter=configured_fact_filter(vault))


def test_the_walk_is_seeded_only_from_the_facts_the_model_keeps(vault_with_filter, server):
    server.fallback = _keep_facts_with("born")
    searcher = _searcher(vault_with_filter)
    outcome = searcher.search(QUESTION, k=3)
    seeds = outcome.ranking.seeds
    texts = searcher.loaded_data.facts["text"].to_list()
    assert len(seeds.fact_candidates) == 6 and len(_shown(server.requests[0])["facts"]) == 6
    assert seeds.facts and all("born" in texts[f] for f in seeds.facts)
    assert set(seeds.facts) <= set(seeds.fact_candidates)
    assert any("kept" in note for note in outcome.notes)
    unfiltered = searcher.search(QUESTION, k=3, mode="no-fact-filter")
    assert len(server.requests) == 1 and not unfiltered.ranking.seeds.fact_candidates  # the ablation asks nothing
    assert any("born" not in texts[f] for f in unfiltered.ranking.seeds.facts)


def test_keeping_nothing_leaves_the_passages_alone_to_seed(vault_with_filter, server):
    server.fallback = lambda request: reply_json({"relevant": []})
    outcome = _searcher(vault_with_filter).search(QUESTION, k=3)
    ranking = outcome.ranking
    assert not ranking.seeds.facts and ranking.seeds.fact_candidates
    n_passages = ranking.seeds.passages.size
    assert np.isclose(ranking.reset[:n_passages].sum(), ranking.reset.sum()) and outcome.results


def test_a_failing_endpoint_leaves_the_search_as_without_a_filter(vault_with_filter, server):
    server.fallback = lambda request: Behaviour(text="down", status=503)
    searcher = _searcher(vault_with_filter)
    failed = searcher.search(QUESTION, k=3)
    plain = searcher.search(QUESTION, k=3, mode="no-fact-filter")
    assert failed.ranking.seeds.facts == plain.ranking.seeds.facts
    assert [r.path for r in failed.results] == [r.path for r in plain.results]
    assert any("facts unfiltered" in note for note in failed.notes)


def test_the_engine_reads_the_filter_from_the_vault_settings(vault_with_filter):
    engine = Engine(vault_with_filter)
    assert engine.searcher.fact_filter is not None and engine.searcher.base.fact_filter_candidates == 6


def test_the_cli_reports_the_filter_on_stderr_and_keeps_json_on_stdout(vault_with_filter, server, capsys):
    from engram_lab import cli

    server.fallback = _keep_facts_with("directed")
    assert cli.main(["search", str(vault_with_filter), QUESTION, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["results"] and "fact filter (llm:filter-model) kept" in captured.err
