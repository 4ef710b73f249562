"""The LLM judge over real HTTP (a local OpenAI-compatible server): borderline pairs only, never a person's pair."""

from __future__ import annotations

import json

import pytest

from engram_lab.config import trust_vault
from engram_lab.engine import Engine
from engram_lab.resolve.service import resolution_state
from tests.extract.chat_server import Behaviour, ChatServer, reply, reply_json

NOTES = {
    "john.md": "# John Smith\n\nJohn Smith is an engineer in Leeds.\n",
    "mike.md": "# Mike Hall\n\nMike Hall is a sailor in Bergen.\n",
    "memo.md": "# Memo\n\nYesterday Jon Smith signed the Leeds contract.\n",
}


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def _vault(vault, write, server):
    write("engram.toml", f'[resolution]\njudge = "llm"\nbase_url = "{server.url}"\nmodel = "judge-model"\n'
                         "timeout_s = 2\nmax_retries = 1\nbackoff_s = 0.01\n")
    trust_vault(vault)  # the vault's own endpoint counts once the user trusts it
    for name, text in NOTES.items():
        write(name, text)
    return Engine(vault)


def _asked(server):
    return [json.loads(r["messages"][1]["content"]) for r in server.requests]


def test_borderline_pairs_go_to_the_judge_and_its_verdict_is_recorded(vault, write, server):
    server.fallback = lambda request: reply_json({"verdict": "unsure", "reason": "not enough"})
    server.script = [reply_json({"verdict": "same", "reason": "Jon Smith signed in Leeds, where John Smith works."})]
    engine = _vault(vault, write, server)
    engine.index(progress=False)
    asked = _asked(server)
    assert asked and {asked[0]["A"]["name"], asked[0]["B"]["name"]} == {"Jon Smith", "John Smith"}
    state = resolution_state(vault)
    llm = [d for d in state.judgments.values() if d.actor == "llm:judge-model"]
    assert len(llm) == 1 and llm[0].verdict == "same" and "Leeds" in llm[0].evidence["llm_reason"]
    assert all(p.evidence.get("name_a") != llm[0].evidence["name_a"] or p.evidence.get("name_b") != llm[0].evidence["name_b"]
               for p in engine.pending_pairs())  # a decided pair leaves the queue; 'unsure' ones stay


def test_the_judge_is_never_asked_about_a_pair_a_person_judged(vault, write, server):
    server.fallback = lambda request: reply_json({"verdict": "same", "reason": "looks alike"})
    engine = _vault(vault, write, server)
    engine.index(progress=False)
    for d in resolution_state(vault).judgments.values():
        if d.actor.startswith("llm:"):
            engine.retract(d.decision_id)
    engine.judge("Jon Smith", "John Smith", "distinct")
    server.requests.clear()
    engine.analyse()
    assert not any("Jon Smith" in (a["A"]["name"], a["B"]["name"]) for a in _asked(server))
    state = resolution_state(vault)
    [user] = [d for d in state.judgments.values() if d.actor == "user"]
    assert not state.same(user.subject, user.object)


def test_an_unusable_reply_decides_nothing(vault, write, server):
    server.fallback = lambda request: reply("I think they might be the same?")
    engine = _vault(vault, write, server)
    engine.index(progress=False)
    assert not any(d.actor.startswith("llm:") for d in resolution_state(vault).judgments.values())
    assert engine.pending_pairs()  # still waiting for a person


def test_a_failing_endpoint_does_not_block_indexing(vault, write, server):
    server.fallback = lambda request: Behaviour(status=500, text="down")
    engine = _vault(vault, write, server)
    report = engine.index(progress=False)
    assert len(report.added) == 3 and engine.pending_pairs()


def test_a_retracted_judge_verdict_stays_retracted_after_a_rebuild_and_import(vault, write, server, tmp_path):
    import shutil

    server.fallback = lambda request: reply_json({"verdict": "same", "reason": "looks alike"})
    engine = _vault(vault, write, server)
    engine.index(progress=False)
    [llm] = [d for d in resolution_state(vault).judgments.values() if d.actor == "llm:judge-model"]
    engine.retract(llm.decision_id)
    export = tmp_path / "decisions.json"
    engine.export_decisions(export)
    shutil.rmtree(vault / ".engram")
    rebuilt = Engine(vault)
    rebuilt.index(progress=False)  # the judge is asked again and says the same
    [again] = [d for d in resolution_state(vault).judgments.values() if d.actor == "llm:judge-model"]
    assert again.decision_id == llm.decision_id  # derived from pair, verdict and judge: the export knows it
    rebuilt.import_decisions(export)
    assert not any(d.actor == "llm:judge-model" for d in resolution_state(vault).judgments.values())
    server.requests.clear()
    rebuilt.analyse()  # the pair may be asked about again; the retracted verdict is not recorded anew
    assert not any(d.actor == "llm:judge-model" for d in resolution_state(vault).judgments.values())


def test_judgment_ids_do_not_depend_on_which_way_round_the_pair_was_asked():
    from engram_lab.resolve.run import judgment_id

    a, b = "urn:engram:entity:concept:a", "urn:engram:entity:concept:b"
    assert judgment_id(a, b, "broader", "llm:m") == judgment_id(b, a, "narrower", "llm:m")
    assert judgment_id(a, b, "same", "llm:m") == judgment_id(b, a, "same", "llm:m")
    assert judgment_id(a, b, "broader", "llm:m") != judgment_id(a, b, "narrower", "llm:m")
