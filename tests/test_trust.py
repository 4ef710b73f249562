"""A vault's own engram.toml may name LLM endpoints and key variables only once the user trusts that vault."""

from __future__ import annotations

import json

import pytest

from engram_lab.cli import main
from engram_lab.config import UntrustedVaultError, load_config, trust_vault
from engram_lab.trust import TRUST_FILE, config_dir
from tests.extract.chat_server import ChatServer


@pytest.fixture
def own_config_dir(tmp_path, monkeypatch):
    folder = tmp_path / "user-config"
    monkeypatch.setenv("ENGRAM_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture
def server():
    with ChatServer() as running:
        yield running


def _llm_vault(write, url, key_env="ENGRAM_TEST_SECRET"):
    write("engram.toml", f'[extractor]\nname = "llm"\nbase_url = "{url}"\nmodel = "m"\napi_key_env = "{key_env}"\n'
                         'max_retries = 0\ntimeout_s = 2\n')
    write("a.md", "# Halden\n\nPriya Raman leads the data work at Halden.\n")


def test_an_untrusted_vault_sends_nothing_anywhere(own_config_dir, vault, write, server, monkeypatch, capsys):
    monkeypatch.setenv("ENGRAM_TEST_SECRET", "s3cret")
    _llm_vault(write, server.url)
    assert main(["index", str(vault), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"engram: error: {vault / 'engram.toml'}: would send notes to extractor -> {server.url}")
    assert "$ENGRAM_TEST_SECRET" in err and f"engram trust {vault}" in err and err.count("\n") == 1
    assert server.requests == []


def test_trusting_shows_the_endpoints_and_lets_them_work(own_config_dir, vault, write, server, capsys):
    _llm_vault(write, server.url)
    assert main(["trust", str(vault)]) == 0
    assert f"extractor -> {server.url} (key from $ENGRAM_TEST_SECRET)" in capsys.readouterr().out
    assert main(["index", str(vault), "--quiet"]) == 0
    assert server.requests  # the trusted endpoint was used
    assert not any(p.name == TRUST_FILE for p in vault.rglob("*"))  # recorded outside the vault
    assert str(vault.resolve()) in json.loads((own_config_dir / TRUST_FILE).read_text())["vaults"]


def test_changed_endpoints_need_trusting_again(own_config_dir, vault, write, server):
    _llm_vault(write, server.url)
    trust_vault(vault)
    load_config(vault)
    _llm_vault(write, server.url, key_env="AWS_SECRET_ACCESS_KEY")
    with pytest.raises(UntrustedVaultError, match="changed since you trusted"):
        load_config(vault)


def test_revoke_and_vaults_without_llm_steps(own_config_dir, vault, write, server, capsys):
    write("engram.toml", '[resolution]\nbase_url = "http://127.0.0.1:9/v1"\n')  # an endpoint for a step that is off
    assert load_config(vault).endpoints() == {}
    _llm_vault(write, server.url)
    trust_vault(vault)
    assert main(["trust", str(vault), "--revoke"]) == 0 and "no longer trusted" in capsys.readouterr().out
    with pytest.raises(UntrustedVaultError, match="not trusted"):
        load_config(vault)


def test_the_trust_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("ENGRAM_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "engram"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dir() == tmp_path / "home" / ".config" / "engram"


def test_the_users_own_config_file_trusts_the_vault_it_is_copied_into(own_config_dir, tmp_path, server):
    """`engram eval --config FILE` writes the user's file into the vault it generates."""
    settings = tmp_path / "mine.toml"
    settings.write_text(f'[retrieval]\nfact_filter = "llm"\nbase_url = "{server.url}"\nmodel = "m"\n')
    generated = tmp_path / "out" / "vault"
    assert main(["eval", "musique", "--questions", str(tmp_path / "none.json"), "--corpus", str(tmp_path / "none.json"),
                 "--out", str(tmp_path / "out"), "--config", str(settings)]) == 2  # no data: stops after trusting
    generated.mkdir(parents=True)
    (generated / "engram.toml").write_text(settings.read_text())
    assert load_config(generated).retrieval.endpoint.base_url == server.url


def test_a_vault_cannot_waive_review_of_agent_edits_on_its_own(own_config_dir, vault, write):
    from engram_lab.agent.jupyter_tools import vault_permission
    from engram_lab.agent.modes import Permission

    write("engram.toml", '[agent]\npermission = "accept-edits"\n')
    with pytest.raises(UntrustedVaultError, match="apply an agent's edits without asking"):
        load_config(vault)
    assert vault_permission(vault) is Permission.ASK  # capped until the user trusts it
    trust_vault(vault)
    assert load_config(vault).agent.permission == "accept-edits" and vault_permission(vault) is Permission.ACCEPT_EDITS
    write("engram.toml", '[agent]\npermission = "read-only"\n')
    assert vault_permission(vault) is Permission.READ_ONLY  # a stricter mode needs no trust
