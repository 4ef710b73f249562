"""BM25 from term counts: the same scores as bm25s (comparison), and a patched index equal to a rebuilt one."""

from __future__ import annotations

import random

import bm25s
import numpy as np
import pytest

from engram_lab.index import keyword
from engram_lab.index.bm25 import TermCounts
from engram_lab.index.derived import KEYWORD_INDEX, index_dir, refresh_keyword_index
from engram_lab.index.keyword import KeywordIndex, tokenize
from engram_lab.index.recent import forget
from engram_lab.indexer import index_vault
from tests.index.vault_edits import WORDS, random_change, seed_vault

TEXTS = ["Salinity drift of the CT-200 sensor", "Nitrate peaks at Mill Reach and nitrate again", "the and of",
         "Sensor calibration with standard seawater", "Version 1.5 of the sensor firmware", ""]
QUERIES = ["sensor drift", "nitrate nitrate", "seawater calibration 1.5", "zebra", "mill reach sensor"]


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_bm25s_on_the_same_tokens(query):
    tokens = tokenize(TEXTS)
    reference = bm25s.BM25()
    reference.index(tokens, show_progress=False)
    query_tokens = [t for t in tokenize([query])[0] if t in reference.vocab_dict]
    expected = reference.get_scores(query_tokens) if query_tokens else np.zeros(len(TEXTS))
    np.testing.assert_allclose(TermCounts.from_tokens(tokens).scores(tokenize([query])[0]), expected, rtol=1e-5, atol=1e-6)


def test_patched_counts_equal_counts_built_from_the_result():
    tokens = tokenize(TEXTS)
    keep = np.array([True, False, True, True, False, True])
    new = tokenize(["Nitrate in the harbour", "Calibration drift drift"])
    rows = [t for t, k in zip(tokens, keep) if k] + new
    order = np.array([4, 0, 1, 5, 2, 3])
    patched = TermCounts.from_tokens(tokens).patched(keep, new, order)
    rebuilt = TermCounts.from_tokens([rows[i] for i in order])
    for query in [*QUERIES, "harbour nitrate"]:
        np.testing.assert_allclose(patched.scores(tokenize([query])[0]), rebuilt.scores(tokenize([query])[0]), rtol=1e-6)
        for term in tokenize([query])[0]:
            assert patched.frequency(term) == rebuilt.frequency(term)


def rebuilt_beside(vault, name: str, refresh):  # type: ignore[no-untyped-def]
    """What ``refresh(vault)`` builds from nothing for the ledger as it is now; the patched folder stays in service,
    so the next patch starts from a patch (chains of patches are what is tested)."""
    pointer = index_dir(vault) / f"{name}.current"
    patched = pointer.read_text()
    pointer.unlink()
    try:
        return refresh(vault)
    finally:
        pointer.write_text(patched)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_patched_index_equals_a_rebuilt_one_after_random_changes(vault, monkeypatch, seed):
    rng = random.Random(seed)
    seed_vault(vault, rng)
    index_vault(vault, progress=False)
    refresh_keyword_index(vault)
    building = {"allowed": False}
    build = KeywordIndex.build.__func__

    def guarded(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
        assert building["allowed"], "rebuilt, not patched"
        return build(cls, *args, **kwargs)

    monkeypatch.setattr(keyword.KeywordIndex, "build", classmethod(guarded))
    history = []
    for _ in range(6):
        history.append(random_change(vault, rng))
        index_vault(vault, progress=False)
        patched_folder = refresh_keyword_index(vault)
        building["allowed"] = True
        rebuilt_folder = rebuilt_beside(vault, KEYWORD_INDEX, refresh_keyword_index)
        building["allowed"] = False
        forget()  # read back from disk, as a new process would
        patched, rebuilt = KeywordIndex.load(patched_folder), KeywordIndex.load(rebuilt_folder)
        assert patched.keys == rebuilt.keys, history
        assert patched.documents == rebuilt.documents, history
        for query in [" ".join(rng.sample(WORDS, 3)) for _ in range(4)] + ["Ana Ruiz Porto"]:
            np.testing.assert_allclose(patched.scores(query), rebuilt.scores(query), rtol=1e-6, err_msg=str(history))
            assert dict(patched.query_terms(query)) == pytest.approx(dict(rebuilt.query_terms(query))), history
            assert [h.key for h in patched.search(query, 5)] == [h.key for h in rebuilt.search(query, 5)], history
