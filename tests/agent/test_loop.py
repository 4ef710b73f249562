"""An agent turn through the real openai client and a scripted OpenAI-compatible server on 127.0.0.1, with the
real tool layer: search -> read_note -> propose_edit -> answer."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from engram_lab.agent import AgentSession
from engram_lab.agent.chat import openai_chat
from engram_lab.agent.checkpoints import list_checkpoints
from engram_lab.agent.loop import CONTEXT_LABEL, run_turn
from engram_lab.agent.proposals import list_proposals
from engram_lab.config import AgentConfig, ExtractorConfig, load_config, trust_vault
from engram_lab.jupyter.ask_view import turn_view
from tests.agent.scripted_agent import EDIT_MARK, next_reply
from tests.extract.chat_server import ChatServer, call_tools, reply

QUESTION = "Who leads the data work?"
OLD = "Priya Raman leads the data work."
NEW = "Priya Raman leads the data work and the field team."


def configure(vault: Path, url: str, permission: str = "ask", extra: str = "") -> AgentConfig:
    (vault / "engram.toml").write_text(f'[agent]\nbase_url = "{url}"\nmodel = "scripted"\npermission = "{permission}"\n'
                                       f"max_retries = 0\ntimeout_s = 20\n{extra}", encoding="utf-8")
    trust_vault(vault)
    return load_config(vault).agent


def turn(vault: Path, config: AgentConfig, question: str = QUESTION):
    session = AgentSession(vault, config.permission, actor="notebook:scripted")
    return run_turn(session, question, openai_chat(config), max_steps=config.max_steps)


def _script():
    return [call_tools(("search", {"query": QUESTION, "k": 3, "mode": "keyword"})),
            call_tools(("read_note", {"path": "people.md"})),
            call_tools(("propose_edit", {"path": "people.md", "old_text": OLD, "new_text": NEW, "why": "the answer says more"})),
            reply("Priya Raman leads the data work [vault:people.md#10-42].")]


def _tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_search_read_propose_answer_in_ask_mode_writes_nothing(agent_vault):
    before = (agent_vault / "people.md").read_bytes()
    with ChatServer() as server:
        server.script = _script()
        result = turn(agent_vault, configure(agent_vault, server.url))
    assert result.error is None and result.answer == "Priya Raman leads the data work [vault:people.md#10-42]."
    assert [s.tool for s in result.steps] == ["search", "read_note", "propose_edit"] and all(s.error is None for s in result.steps)
    # The proposal waits with its diff; the note is untouched and nothing was applied.
    (pending,) = list_proposals(agent_vault)
    assert result.written("pending")[0]["proposal"] == pending.id and pending.actor == "notebook:scripted"
    assert f"-{OLD}" in pending.diff and f"+{NEW}" in pending.diff
    assert (agent_vault / "people.md").read_bytes() == before and list_checkpoints(agent_vault) == []
    # What the model was sent: the auto context and every tool result as wrapped data, the write tools offered.
    first = server.requests[0]
    system = first["messages"][0]["content"]
    assert CONTEXT_LABEL in system and '<external_content source="vault:people.md#' in system.split(CONTEXT_LABEL)[1]
    assert {t["function"]["name"] for t in first["tools"]} >= {"search", "read_note", "propose_edit"}
    search_result, note, proposed = map(json.loads, _tool_messages(server.requests[3]))
    assert search_result["results"] and all(r["text"].startswith('<external_content source="vault:') for r in search_result["results"])
    assert note["text"].startswith('<external_content source="vault:people.md#0-') and OLD in note["text"]
    assert proposed["status"] == "pending" and "until a person approves it" in proposed["message"]
    # The answer cites the note it read, as a link that opens it at the span.
    html = turn_view(result, agent_vault).html
    assert "data-engram-path='people.md'" in html and "data-engram-start='10'" in html and "data-engram-end='42'" in html


def test_accept_edits_applies_with_a_checkpoint(agent_vault):
    with ChatServer() as server:
        server.script = _script()
        result = turn(agent_vault, configure(agent_vault, server.url, "accept-edits"))
    (applied,) = result.written("applied")
    assert NEW in (agent_vault / "people.md").read_text() and [c.id for c in list_checkpoints(agent_vault)] == [applied["checkpoint"]]


def test_read_only_offers_no_write_tool_and_refuses_one_called_anyway(agent_vault):
    before = (agent_vault / "people.md").read_bytes()
    with ChatServer() as server:
        server.script = _script()
        result = turn(agent_vault, configure(agent_vault, server.url, "read-only"))
    assert "propose_edit" not in {t["function"]["name"] for t in server.requests[0]["tools"]}
    refused = result.steps[-1]
    assert refused.tool == "propose_edit" and "read-only" in refused.error
    assert json.loads(_tool_messages(server.requests[3])[-1]) == {"error": refused.error}  # the model is told, in one sentence
    assert (agent_vault / "people.md").read_bytes() == before and list_proposals(agent_vault) == []


def test_a_citation_of_a_note_the_turn_never_read_is_flagged_not_linked(agent_vault):
    with ChatServer() as server:
        server.script = [reply("Kofi leads it [vault:plans/secret.md#0-10], see vault:people.md")]
        result = turn(agent_vault, configure(agent_vault, server.url))
    html = turn_view(result, agent_vault).html
    assert "not read in this turn" in html and "data-engram-path='plans/secret.md'" not in html
    assert "data-engram-path='people.md'" in html  # read through the auto context


def test_the_conversation_following_stand_in_runs_the_whole_loop(agent_vault):
    with ChatServer() as server:
        server.fallback = next_reply
        result = turn(agent_vault, configure(agent_vault, server.url))
    assert result.answer and "[vault:people.md#" in result.answer
    assert list_proposals(agent_vault)[0].diff.count(EDIT_MARK) == 1


def test_bad_tool_arguments_are_told_to_the_model_and_the_turn_goes_on(agent_vault):
    with ChatServer() as server:
        server.script = [call_tools(("read_note", {"path": "../outside.md"}), ("no_such_tool", {})), reply("Sorry.")]
        result = turn(agent_vault, configure(agent_vault, server.url))
    assert result.answer == "Sorry." and all(s.error for s in result.steps)
    assert "no tool 'no_such_tool'" in result.steps[1].error


def test_step_limit_ends_the_turn_without_an_answer(agent_vault):
    with ChatServer() as server:
        server.fallback = lambda request: call_tools(("list_notes", {}))
        result = turn(agent_vault, configure(agent_vault, server.url, extra="max_steps = 2\n"))
    assert result.answer is None and result.error.startswith("stopped after 2 model calls") and len(server.requests) == 2


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_endpoint_that_is_down_is_one_line(agent_vault):
    config = AgentConfig(ExtractorConfig("llm", f"http://127.0.0.1:{closed_port()}/v1", "m", max_retries=0, timeout_s=5))
    result = turn(agent_vault, config)
    view = turn_view(result, agent_vault)
    assert result.answer is None and view.text.startswith("engram: cannot reach the agent model at http://127.0.0.1:")
    assert "\n" not in view.text and "Traceback" not in view.text


def test_an_http_error_is_one_line(agent_vault):
    from tests.extract.chat_server import Behaviour

    with ChatServer() as server:
        server.script = [Behaviour(text="model not loaded", status=503)]
        result = turn(agent_vault, configure(agent_vault, server.url))
    assert result.error == f"the agent model at {server.url} answered HTTP 503: model not loaded"


@pytest.mark.parametrize("body, message", [
    ('permission = "yolo"\n', "[agent] permission must be one of read-only, ask, accept-edits, got 'yolo'"),
    ('base_url = "http://127.0.0.1:1/v1"\n', "the agent needs both base_url and model"),
    ('model = "m"\nmax_steps = 0\n', "max_steps must be a whole number from 1 to 50"),
    ('model = "m"\nbase_url = "http://127.0.0.1:1/v1"\ntemperature = 0\n', "unknown key(s) in [agent]: temperature"),
])
def test_bad_agent_sections_name_the_mistake(agent_vault, body, message):
    from engram_lab.errors import VaultError

    (agent_vault / "engram.toml").write_text("[agent]\n" + body, encoding="utf-8")
    with pytest.raises(VaultError) as error:
        load_config(agent_vault)
    assert message in str(error.value)


def test_the_agent_endpoint_needs_trust_and_a_changed_one_needs_it_again(agent_vault):
    from engram_lab.config import UntrustedVaultError

    configure(agent_vault, "http://127.0.0.1:9/v1")
    assert load_config(agent_vault).agent.configured
    (agent_vault / "engram.toml").write_text('[agent]\nbase_url = "http://attacker.example/v1"\nmodel = "m"\n')
    with pytest.raises(UntrustedVaultError, match="send notes to agent -> http://attacker.example/v1"):
        load_config(agent_vault)


def test_the_readme_agent_snippet_is_a_valid_section(tmp_path):
    import re

    from engram_lab.config import parse_config_file

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    (tmp_path / "engram.toml").write_text(re.search(r"```toml\n(\[agent\]\n.*?)```", readme, re.S).group(1))
    agent = parse_config_file(tmp_path / "engram.toml").agent
    assert agent.configured and agent.permission == "ask"
