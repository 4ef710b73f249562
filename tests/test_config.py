"""engram.toml: every section read, every mistake named with the file and the key."""

from __future__ import annotations

import pytest

from engram_lab.config import load_config, trust_vault
from engram_lab.errors import VaultError


def test_defaults_without_a_file(vault):
    config = load_config(vault)
    assert config.extractor.name == "heuristic" and config.resolution.judge == "none" and config.retrieval.fact_filter == "none"


def test_a_note_without_author_is_by_unknown_or_the_configured_owner(vault, write):
    assert load_config(vault).owner == "unknown"  # never the operating-system account ("root" in a container)
    write("engram.toml", '[vault]\nowner = "Estuary team"\n')
    assert load_config(vault).owner == "Estuary team"


def test_resolution_judge_reads_its_endpoint(vault, write):
    write("engram.toml", '[resolution]\njudge = "llm"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\ntimeout_s = 5\n')
    trust_vault(vault)
    config = load_config(vault)
    assert config.resolution.judge == "llm" and config.resolution.endpoint.model == "m" and config.resolution.endpoint.timeout_s == 5


def test_retrieval_fact_filter_reads_its_endpoint_and_candidates(vault, write):
    write("engram.toml", '[retrieval]\nfact_filter = "llm"\ncandidates = 12\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "f"\n')
    trust_vault(vault)
    config = load_config(vault).retrieval
    assert (config.fact_filter, config.candidates, config.endpoint.model) == ("llm", 12, "f")


@pytest.mark.parametrize(("text", "message"), [
    ('[resolution]\njudge = "maybe"\n', 'judge must be "none" or "llm"'),
    ('[resolution]\njudge = "llm"\n', "needs base_url and model"),
    ('[resolution]\njugde = "llm"\n', "unknown key(s) in [resolution]: jugde"),
    ('[resolution\n', "not valid TOML"),
    ('[retrieval]\nfact_filter = "llm"\n', "the llm fact filter needs base_url and model in [retrieval]"),
    ('[retrieval]\nfact_filter = "yes"\n', 'fact_filter must be "none" or "llm"'),
    ('[retrieval]\ncandidates = 0\n', "candidates must be a whole number from 1 to 200"),
    ('[retrieval]\ncandidates = "20"\n', "candidates must be a whole number from 1 to 200"),
    ('[retrieval]\nfilter = "llm"\n', "unknown key(s) in [retrieval]: filter"),
])
def test_mistakes_are_named(vault, write, text, message):
    write("engram.toml", text)
    with pytest.raises(VaultError, match="engram.toml") as info:
        load_config(vault)
    assert message in str(info.value)
