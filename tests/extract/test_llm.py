"""The LLM extractor against a real HTTP server on 127.0.0.1, through the real openai client."""

from __future__ import annotations

import json
import os
import time

import pytest

from engram_lab.config import ExtractorConfig, trust_vault
from engram_lab.extract.llm.extractor import LLMExtractor
from engram_lab.extract.segment import segment_document
from engram_lab.indexer import index_vault
from engram_lab.state import DocumentTable, open_ledger
from engram_lab.vault import parse_document
from tests.extract.chat_server import Behaviour, ChatServer, reply, reply_json

TEXT = "# Review\n\n## Sensors\nOkafor chose the AS-5 from AquaSense.\n\n## Later\nShe approved eight units.\n"
FIRST = {"entities": [{"name": "Okafor", "kind": "Person"}, {"name": "AquaSense", "kind": "organization"}],
         "relations": [{"subject": "Okafor", "predicate": "chose", "object": "AS-5", "evidence": "Okafor chose the AS-5 from AquaSense."}],
         "statements": [{"kind": "decision", "text": "Okafor chose the AS-5", "date": "2026-03-18"}]}
SECOND = {"entities": [{"name": "eight units", "kind": "Quantity"}],
          "relations": [{"subject": "Okafor", "predicate": "approved", "object": "eight units", "evidence": "She approved eight units."}],
          "statements": []}


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def make_extractor(server, tmp_path, **overrides):
    settings = {"name": "llm", "base_url": server.url, "model": "test-model", "timeout_s": 0.5, "max_retries": 2, "backoff_s": 0.01}
    return LLMExtractor(ExtractorConfig(**{**settings, **overrides}), tmp_path / "cache")


def run(extractor, text=TEXT):
    doc = parse_document(text, "r.md", "markdown")
    return extractor.extract(doc, segment_document(doc))


def test_segments_are_extracted_with_spans_hints_and_usage(server, tmp_path):
    server.script = [reply_json({"entities": [], "relations": [], "statements": []}), reply_json(FIRST), reply_json(SECOND)]
    ex = run(make_extractor(server, tmp_path))
    assert ex.errors == [] and ex.extractor == "llm" and ex.model == "test-model"
    relation = next(r for r in ex.relations if r.predicate == "chose")
    assert relation.span.of(TEXT) == "Okafor chose the AS-5 from AquaSense." == relation.label
    assert {e.kind for e in ex.entities if e.name == "AquaSense"} == {"Organization"}
    decision = next(s for s in ex.statements if s.kind == "decision" and s.text.startswith("Okafor"))
    assert decision.span.of(TEXT) == "Okafor chose the AS-5" and str(decision.date) == "2026-03-18"
    last_prompt = server.requests[-1]["messages"][1]["content"]
    assert '"name": "Okafor"' in last_prompt and '"name": "AquaSense"' in last_prompt  # hints carried forward
    assert server.requests[-1]["model"] == "test-model" and server.requests[-1]["response_format"] == {"type": "json_object"}
    assert ex.usage["calls"] == 3 and ex.usage["prompt_tokens"] == 300 and ex.usage["completion_tokens"] == 60


def test_fenced_json_with_trailing_comma_is_repaired_without_retry(server, tmp_path):
    server.fallback = lambda request: reply('Here you go:\n```json\n{"entities": [{"name": "Okafor", "kind": "Person"},], "relations": [], "statements": []}\n```')
    ex = run(make_extractor(server, tmp_path), "Okafor wrote this.\n")
    assert [e.name for e in ex.entities if e.name == "Okafor"] == ["Okafor"] and len(server.requests) == 1


def test_malformed_reply_is_sent_back_and_retried(server, tmp_path):
    server.script = [reply("I think the entities are Okafor"), reply_json({"entities": [{"name": "Okafor", "kind": "Person"}]})]
    ex = run(make_extractor(server, tmp_path), "Okafor wrote this.\n")
    assert ex.errors == [] and len(server.requests) == 2
    retry = server.requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "I think the entities are Okafor"}
    assert "not usable" in retry[-1]["content"]


def test_rate_limit_waits_for_retry_after(server, tmp_path):
    server.script = [Behaviour(text="slow down", status=429, headers={"retry-after": "0.2"}), reply_json({"entities": []})]
    started = time.perf_counter()
    ex = run(make_extractor(server, tmp_path), "Okafor wrote this.\n")
    assert ex.errors == [] and len(server.requests) == 2 and time.perf_counter() - started >= 0.2


def test_timeout_is_retried(server, tmp_path):
    server.script = [Behaviour(text="{}", delay_s=1.0), reply_json({"entities": []})]
    ex = run(make_extractor(server, tmp_path), "Okafor wrote this.\n")
    assert ex.errors == [] and len(server.requests) == 2


def test_client_errors_fail_at_once_and_other_segments_survive(server, tmp_path):
    server.script = [Behaviour(text="bad request", status=400), reply_json(FIRST), reply_json(SECOND)]
    ex = run(make_extractor(server, tmp_path))
    assert len(ex.errors) == 1 and ex.errors[0].startswith("segment 0: the endpoint refused the request (400)")
    assert any(r.predicate == "approved" for r in ex.relations) and len(server.requests) == 3


def test_persistent_garbage_is_recorded_after_bounded_attempts(server, tmp_path):
    server.fallback = lambda request: reply("not json at all")
    ex = run(make_extractor(server, tmp_path), "Okafor wrote this.\n")
    assert ex.errors == ["segment 0: the reply is not valid JSON (after 3 attempts)"] and len(server.requests) == 3


def test_cache_makes_unchanged_notes_free_and_model_keys_it(server, tmp_path):
    extractor = make_extractor(server, tmp_path)
    run(extractor)
    asked = len(server.requests)
    again = run(extractor)
    assert len(server.requests) == asked and again.usage["cached"] == asked and again.usage["calls"] == 0
    run(make_extractor(server, tmp_path, model="other-model"))
    assert len(server.requests) == 2 * asked


def test_index_run_records_partial_failure_and_retries_it(server, vault, write):
    write("engram.toml", f'[extractor]\nname = "llm"\nbase_url = "{server.url}"\nmodel = "m"\nmax_retries = 0\nbackoff_s = 0.01\ntimeout_s = 2\n')
    trust_vault(vault)  # the vault's own endpoint counts once the user trusts it
    write("r.md", TEXT)
    server.script = [reply_json({"entities": []}), reply("garbage"), reply_json(SECOND)]
    report = index_vault(vault, progress=False)
    assert report.partial and "segment 1" in report.partial[0][1]
    conn = open_ledger(vault)
    row = DocumentTable(conn).by_path("r.md")
    conn.close()
    assert row.status == "indexed" and "segment 1" in row.error and row.extractor == "llm"
    server.script = [reply_json(FIRST), reply_json(SECOND)]
    report = index_vault(vault, progress=False)
    assert report.updated == ["r.md"] and report.partial == []
    # the first segment came from the cache; the failed one was asked again, and the one after it too (its hints changed)
    asked = [r["messages"][1]["content"].split("<<<")[1] for r in server.requests]
    assert len(asked) == 5 and sum("# Review" in a for a in asked) == 1
    assert index_vault(vault, progress=False).unchanged == 1


def test_llm_config_needs_endpoint_and_model(vault, write):
    write("engram.toml", '[extractor]\nname = "llm"\n')
    write("a.md", "x")
    with pytest.raises(Exception, match="needs base_url and model"):
        index_vault(vault, progress=False)


def test_api_key_comes_from_the_named_environment_variable(monkeypatch):
    monkeypatch.setenv("MY_KEY", "secret")
    assert ExtractorConfig(api_key_env="MY_KEY").api_key == "secret"
    monkeypatch.delenv("MY_KEY")
    assert ExtractorConfig(api_key_env="MY_KEY").api_key == "not-needed"
    assert "MY_KEY" not in os.environ and json.dumps({"ok": 1})
