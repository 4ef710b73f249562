"""The "no good match" signal: words the vault lacks, and a best passage that lacks them, lower the confidence."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engram_lab.index.keyword import KeywordIndex
from engram_lab.indexer import index_vault
from engram_lab.retrieve.confidence import (NO_GOOD_MATCH, MatchSignals, best_notes, confidence, leg_agreement, match_label,
                                            match_signals, missing_names, missing_versions)
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


VERSIONED = ["Rust supports Windows 10 and later; Windows 8 support ended.", "RFC PR: rust-lang/rfcs#2094",
             "Built against LLVM 5.0 at the oldest.", "Released in March.", "Dated 2019-03-01.",
             "# Python 3.12 only\n- Start Date: 2019-07", "Python 3.12, released 2019-07.", "Python 3.12\n- see item 7"]


def _texts_of(texts: list[str], keys: list[tuple]):  # type: ignore[no-untyped-def]
    """A ``ChunkTexts`` over an in-memory corpus that records which keys it was asked for."""
    asked: list[tuple] = []

    def read(wanted: list[tuple]) -> list[tuple[str, str]]:
        asked.extend(wanted)
        return [(f"notes/{key[0]}.md", texts[keys.index(key)]) for key in wanted]

    return read, asked


def test_a_version_of_a_named_thing_the_vault_lacks_is_missing():
    keys = [(f"v{i}", 0, 0, 0, 1) for i in range(len(VERSIONED))]
    index = KeywordIndex.build(VERSIONED, keys)
    read, asked = _texts_of(VERSIONED, keys)
    assert missing_versions(index, "when did support for Windows 7 end?", read) == ("Windows 7",)
    assert asked == [keys[0]]  # only the chunks holding the name were read
    assert missing_versions(index, "the minimum is now Windows 10, isn't it?", read) == ()
    assert missing_versions(index, "is Windows 1 supported?", read) == ("Windows 1",)  # "10" is not "1"
    assert missing_versions(index, "what did RFC 2094 propose?", read) == ()  # name and number near each other
    assert missing_versions(index, "built with LLVM 5 or later", read) == ()  # 5.0 is a release of LLVM 5
    assert missing_versions(index, "built with LLVM 17 or later", read) == ("LLVM 17",)
    assert missing_versions(index, "is Python 3.1 enough?", read) == ("Python 3.1",)  # 3.12 is not 3.1
    assert missing_versions(index, "is Python 7 out?", read) == ("Python 7",)  # a date (2019-07), a list item
    assert missing_versions(index, "what shipped in March 2019?", read) == ()  # a date, not a version
    assert missing_versions(index, "The 2019 roadmap", read) == ()  # a sentence's first word is no name
    signals = match_signals(index, "which release dropped Windows 7?", VERSIONED[0], 0.7, texts=read)
    assert signals.missing_names == ("Windows 7",) and confidence(signals) < NO_GOOD_MATCH
    assert match_signals(index, "which release dropped Windows 7?", VERSIONED[0], 0.7).missing_names == ()  # no texts


# How notes write a version the query writes as "Name number" (a review measured each as a false "missing").
WRITTEN = {"what is new in Windows 7?": "Support for Windows\n7 ends.",  # a hard-wrapped line
           "what is new in Windows 8?": "[Windows](https://example.org/w) 8 shipped.",  # a link's target between
           "moves as in C++ 11?": "Move semantics as in C++11.",  # glued
           "runs on Python 3?": "It needs python3 installed.",  # one word, and the only one naming it
           "is SSE 4 required?": "It needs SSE4.",
           "what did RFC 116 propose?": "See RFC 0116 for module shadowing.",  # zero-padded
           "what about Python 3.0?": "Python 3 changed print.",  # a trailing .0
           "any news for Racket 5.93?": "Racket v5.93 added contracts.",  # a v before the number
           "what came with Windows 95?": "The 95th release? No: version 95 of Windows.",  # the number first
           "what changed in Rust 2018?": "The 2018 edition of Rust added modules.",
           "why was RFC 116 accepted?": "RFC PR #: https://github.com/rust-lang/rfcs/pull/116"}


@pytest.mark.parametrize("query", sorted(WRITTEN))
def test_a_version_written_another_way_is_held(query):
    text = WRITTEN[query]
    keys = [("n", 0, 0, 0, 1), ("o", 0, 0, 0, 1)]
    texts = [text, "An unrelated note about nothing in particular."]
    read, _ = _texts_of(texts, keys)
    assert missing_versions(KeywordIndex.build(texts, keys), query, read) == ()


def test_a_number_only_the_file_name_holds_is_held():
    texts = ["This RFC proposes an access policy.", "This RFC is about Windows."]
    keys = [("2872-access-policy", 0, 0, 0, 1), ("0007-windows", 0, 0, 0, 1)]
    read, _ = _texts_of(texts, keys)
    index = KeywordIndex.build(texts, keys)
    assert missing_versions(index, "what did RFC 2872 propose?", read) == ()
    assert missing_versions(index, "what did RFC 2873 propose?", read) == ("RFC 2873",)
    assert missing_versions(index, "what did RFC 287 propose?", read) == ("RFC 287",)  # 2872 is not 287
    assert missing_versions(index, "is Windows 7 supported?", read) == ()  # 0007 is note 7
    assert missing_versions(index, "is Windows 8 supported?", read) == ("Windows 8",)


def test_a_quantity_after_a_name_is_no_version():
    texts = ["I met Sarah last month in Lisbon."]
    read, _ = _texts_of(texts, [("n", 0, 0, 0, 1)])
    index = KeywordIndex.build(texts, [("n", 0, 0, 0, 1)])
    assert missing_versions(index, "what did I discuss with Sarah 2 weeks ago?", read) == ()
    assert missing_versions(index, "what did I see in Lisbon 3 years ago?", read) == ()
    assert missing_versions(index, "did I meet Sarah 2 in Lisbon?", read) == ("Sarah 2",)


def test_a_versioned_name_in_too_many_chunks_is_taken_as_held(monkeypatch):
    import engram_lab.retrieve.confidence as module

    texts = [f"Windows {n} notes" for n in range(8, 14)]
    keys = [(f"w{i}", 0, 0, 0, 1) for i in range(len(texts))]
    read, asked = _texts_of(texts, keys)
    index = KeywordIndex.build(texts, keys)
    assert missing_versions(index, "about Windows 7 support", read) == ("Windows 7",)
    monkeypatch.setattr(module, "VERSION_CANDIDATES", 5)
    asked.clear()
    assert missing_versions(index, "about Windows 7 support", read) == () and asked == []


def test_confidence_rises_with_every_signal():
    low = confidence(MatchSignals(0.0, 0.0, 0.1))
    assert low < NO_GOOD_MATCH
    assert confidence(MatchSignals(1.0, 0.0, 0.1)) > low
    assert confidence(MatchSignals(1.0, 1.0, 0.1)) > confidence(MatchSignals(1.0, 0.0, 0.1))
    assert confidence(MatchSignals(1.0, 1.0, 0.8)) > confidence(MatchSignals(1.0, 1.0, 0.4)) > NO_GOOD_MATCH
    assert "no good match" in match_label(low) and match_label(0.9) == "confidence 0.90" and match_label(None) is None



def _best_notes_by_sorting_everything(docs: np.ndarray, scores: np.ndarray, k: int) -> list[int]:
    order = sorted(range(scores.size), key=lambda row: -scores[row])
    return list(dict.fromkeys(int(docs[row]) for row in order if scores[row] > 0))[:k]


@pytest.mark.parametrize("seed", range(20))
def test_best_notes_match_a_full_sort(seed):
    rng = np.random.default_rng(seed)
    n_sections = int(rng.integers(1, 400))
    docs = rng.integers(0, int(rng.integers(1, 60)), n_sections)  # many sections per note: the partial sort must widen
    scores = rng.random(n_sections) - rng.random() * 0.8  # some sections score nothing
    if seed % 2:
        scores = np.round(scores * 4) / 4  # heavy ties, as BM25 gives: kept in row order, as a stable sort keeps them
    for k in (1, 3, 10, 50):
        assert best_notes(docs, scores, k) == _best_notes_by_sorting_everything(docs, scores, k)


def test_leg_agreement_is_the_shared_share_of_the_best_notes():
    docs = np.array([0, 0, 1, 2, 3, 4])
    bm25 = np.array([0.0, 5.0, 4.0, 0.0, 0.0, 1.0])  # notes 0, 1, 4
    cosines = np.array([0.9, 0.1, 0.2, 0.8, 0.7, -0.1])  # notes 0, 3, 2... ranked 0 > 3 > 2 > 1 (4 has no positive score)
    assert leg_agreement(docs, bm25, cosines, k=2) == 0.5  # {0, 1} against {0, 3}
    assert leg_agreement(docs, bm25, cosines, k=10) == 2 / 4  # {0, 1, 4} against {0, 3, 2, 1}
    assert leg_agreement(docs, np.zeros(6), cosines, k=10) == 0.0  # BM25 finds nothing
    assert leg_agreement(docs, np.zeros(6), np.zeros(6), k=10) == 0.0


def test_legs_that_agree_raise_the_confidence():
    disagree, agree = MatchSignals(1.0, 0.5, 0.5, leg_agreement=0.0), MatchSignals(1.0, 0.5, 0.5, leg_agreement=1.0)
    assert confidence(agree) > confidence(MatchSignals(1.0, 0.5, 0.5)) > confidence(disagree)
    assert MatchSignals(1.0, 0.5, 0.5).to_json()["leg_agreement"] is None and agree.to_json()["leg_agreement"] == 1.0

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
    if mode != "keyword":  # the model's leg and BM25's both ran: how far they agree is part of the signal
        assert real.signals.leg_agreement is not None and real.signals.leg_agreement > nonsense.signals.leg_agreement


@pytest.mark.parametrize("mode", ["full", "keyword"])
def test_a_version_no_note_mentions_is_no_good_match(vault, write, mode):
    write("windows.md", "# Windows targets\n\nThe tier-1 Windows targets need Windows 10 or later.\n")
    write("other.md", "# Ana Ruiz\n\nAna Ruiz was born in Porto Velho.\n")
    index_vault(vault, progress=False)
    searcher = Searcher(vault, embedder_factory=BagOfWordsEmbedder)
    asked = searcher.search("Which tier-1 Windows targets need Windows 7 or later?", mode=mode)
    held = searcher.search("Which tier-1 Windows targets need Windows 10 or later?", mode=mode)
    assert asked.signals.missing_names == ("Windows 7",) and asked.confidence < NO_GOOD_MATCH
    assert held.signals.missing_names == () and held.confidence >= NO_GOOD_MATCH


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


def test_rrf_without_its_bm25_weight_ranks_by_the_dense_leg_alone(searcher, monkeypatch):
    """BM25 now runs in every mode (for the agreement); a mode's weight still decides whether it ranks."""
    from engram_lab.retrieve.settings import settings_for

    query = "Where was Ana Ruiz born?"
    dense = [r.path for r in searcher.search(query, mode="dense").results]
    real = Searcher._bm25_sections

    def bm25_for_the_last(self, data, query, generation):  # type: ignore[no-untyped-def]
        scores = real(self, data, query, generation) * 0
        scores[data.sections["doc_index"].to_numpy() == data.documents["path"].to_list().index(dense[-1])] = 5.0
        return scores

    monkeypatch.setattr(Searcher, "_bm25_sections", bm25_for_the_last)
    assert [r.path for r in searcher.search(query, mode="rrf").results][:2] != dense[:2]  # BM25 counts in rrf
    no_bm25 = settings_for("rrf").with_(bm25=0.0)
    assert [r.path for r in searcher.search(query, mode="rrf", settings=no_bm25).results] == dense
