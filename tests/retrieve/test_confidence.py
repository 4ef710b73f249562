"""The "no good match" signal: words the vault lacks, and a best passage that lacks them, lower the confidence."""

from __future__ import annotations

import json

import pytest

from engram_lab.index.keyword import KeywordIndex
from engram_lab.indexer import index_vault
from engram_lab.retrieve.confidence import NO_GOOD_MATCH, MatchSignals, confidence, match_label, match_signals, missing_names
from engram_lab.retrieve.searcher import Searcher
from tests.retrieve.test_searcher import NOTES, BagOfWordsEmbedder

TEXTS = ["Salinity drift of the CT-200 sensor", "Nitrate peaks at Mill Reach", "Sensor calibration with standard seawater"]
KEYS = [("d1", 0, 0, 0, 1), ("d2", 0, 0, 0, 1), ("d3", 0, 0, 0, 1)]


def test_signals_weigh_the_query_words_by_rarity():
    index = KeywordIndex.build(TEXTS, KEYS)
    held = match_signals(index, "nitrate peaks", "Nitrate peaks at Mill Reach", 0.7)
    assert held == MatchSignals(1.0, 1.0, 0.7)
    half = match_signals(index, "nitrate zebra", "Nitrate peaks at Mill Reach", None)
    assert 0.3 < half.vault_coverage < 0.7 and half.passage_coverage == half.vault_coverage
    elsewhere = match_signals(index, "nitrate sensor", "Salinity drift of the CT-200 sensor", None)
    assert elsewhere.vault_coverage == 1.0 and 0 < elsewhere.passage_coverage < 1
    assert match_signals(index, "the of and", None, None) == MatchSignals(0.0, 0.0, None)


def test_a_named_thing_the_vault_lacks_is_found_however_it_is_written():
    index = KeywordIndex.build(TEXTS + ["The Vec type and its drain method", "Mill Reach and Porto Velho"], KEYS + [("d4", 0, 0, 0, 1), ("d5", 0, 0, 0, 1)])
    assert missing_names(index, "What does `Vec::extract_if` do?") == ("Vec::extract_if",)
    assert missing_names(index, "What does `Vec::drain` do?") == ()
    assert missing_names(index, "Which sensor is the CT-300 and who made it?") == ("CT-300",)
    assert missing_names(index, "Was the wasm32-wasip2 target promoted?") == ("wasm32-wasip2",)
    assert missing_names(index, "the io_uring interface") == ("io_uring",)
    assert missing_names(index, "nitrate at Mill Reach, then at Cape Zorblax") == ("Cape Zorblax",)
    assert missing_names(index, 'what "standard seawater" means') == ()
    assert missing_names(index, "Sensor zebra calibration") == ()  # an unknown ordinary word is no name
    signals = match_signals(index, "What does `Vec::extract_if` do?", "The Vec type and its drain method", 0.6)
    assert signals.missing_names == ("Vec::extract_if",) and confidence(signals) < NO_GOOD_MATCH
    assert confidence(MatchSignals(signals.vault_coverage, signals.passage_coverage, 0.6)) > confidence(signals)


def test_confidence_rises_with_every_signal():
    low = confidence(MatchSignals(0.0, 0.0, 0.1))
    assert low < NO_GOOD_MATCH
    assert confidence(MatchSignals(1.0, 0.0, 0.1)) > low
    assert confidence(MatchSignals(1.0, 1.0, 0.1)) > confidence(MatchSignals(1.0, 0.0, 0.1))
    assert confidence(MatchSignals(1.0, 1.0, 0.8)) > confidence(MatchSignals(1.0, 1.0, 0.4)) > NO_GOOD_MATCH
    assert "no good match" in match_label(low) and match_label(0.9) == "confidence 0.90" and match_label(None) is None


@pytest.fixture
def searcher(vault, write):
    for name, text in NOTES.items():
        write(name, text)
    index_vault(vault, progress=False)
    return Searcher(vault, embedder_factory=BagOfWordsEmbedder)


@pytest.mark.parametrize("mode", ["full", "rrf", "dense", "keyword", "graph-off"])
def test_made_up_words_are_no_good_match_in_every_mode(searcher, mode):
    nonsense = searcher.search("florp wibble quaxon zendrite", mode=mode)
    real = searcher.search("Porto Velho is the capital of Rondonia", mode=mode)
    assert nonsense.confidence is not None and nonsense.confidence < NO_GOOD_MATCH
    assert real.confidence is not None and real.confidence >= NO_GOOD_MATCH > nonsense.confidence


def test_the_json_payload_carries_the_confidence(vault, write, capsys):
    from engram_lab.cli import main

    for name, text in NOTES.items():
        write(name, text)
    assert main(["index", str(vault), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["search", str(vault), "florp wibble quaxon", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["no_good_match"] is True and 0 <= payload["confidence"] < NO_GOOD_MATCH
    assert main(["search", str(vault), "Where was Ana Ruiz born?"]) == 0
    assert "confidence" in capsys.readouterr().out
