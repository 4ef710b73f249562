"""BM25 over sections, and the atomic publication of index folders."""

from __future__ import annotations

import pytest

from engram_lab.index import keyword
from engram_lab.index.keyword import KeywordIndex
from engram_lab.index.publish import current_index_dir, publish_index

TEXTS = ["Salinity drift of the CT-200 sensor", "Nitrate peaks at Mill Reach", "the and of", "Sensor calibration with standard seawater"]
KEYS = [("d1", 0, 0, 0, 36), ("d1", 1, 0, 40, 67), ("d2", 0, 0, 0, 10), ("d3", 0, 0, 0, 40)]


def test_ranks_by_bm25_and_never_returns_zero_scores(tmp_path):
    index = KeywordIndex.build(TEXTS, KEYS)
    hits = index.search("sensor drift", k=10)
    assert [h.key for h in hits] == [KEYS[0], KEYS[3]]
    assert hits[0].score > hits[1].score > 0
    assert index.search("zebra", k=5) == []
    assert index.search("the of", k=5) == []


def test_save_and_load_round_trip(tmp_path):
    index = KeywordIndex.build(TEXTS, KEYS)
    index.save(tmp_path)
    loaded = KeywordIndex.load(tmp_path)
    assert [(h.key, round(h.score, 5)) for h in loaded.search("nitrate", 3)] == [(h.key, round(h.score, 5)) for h in index.search("nitrate", 3)]


def test_empty_and_stopword_only_corpora(tmp_path):
    for texts, keys in (([], []), (["a", "the"], [("x", 0, 0, 0, 1), ("y", 0, 0, 0, 3)])):
        index = KeywordIndex.build(texts, keys)
        index.save(tmp_path)
        assert KeywordIndex.load(tmp_path).search("anything", 3) == []


def test_query_terms_weigh_rare_and_unknown_words_most():
    index = KeywordIndex.build(TEXTS, KEYS)
    terms = dict(index.query_terms("The sensor of zebras"))
    assert set(terms) == {"sensor", "zebra"}  # stop words out, stemmed
    assert terms["zebra"] > terms["sensor"] > 0 and index.holds("sensor") and not index.holds("zebra")
    assert index.query_terms("   ") == []


def test_an_index_of_sections_from_an_older_version_is_rebuilt(vault, write):
    import json

    from engram_lab.index.derived import refresh_keyword_index
    from engram_lab.indexer import index_vault

    write("a.md", "# Alpha\nsalinity")
    index_vault(vault, progress=False)
    folder = refresh_keyword_index(vault)
    assert KeywordIndex.is_current(folder)
    saved = json.loads((folder / "keys.json").read_text())
    keyword._CURRENT.clear()  # answers are kept per file version: a rewrite within the clock's tick keeps its stamp
    (folder / "keys.json").write_text(json.dumps(saved | {"format": saved["format"] + 1}))  # a later version's
    assert not KeywordIndex.is_current(folder)
    keyword._CURRENT.clear()
    (folder / "keys.json").write_text(json.dumps([["d", 0]]))  # the layout before chunks
    assert not KeywordIndex.is_current(folder)
    rebuilt = refresh_keyword_index(vault)
    assert rebuilt != folder and KeywordIndex.load(rebuilt).search("salinity", 1)


def test_an_unreadable_keyword_index_is_built_again(vault, write):
    from engram_lab.index.derived import refresh_keyword_index
    from engram_lab.index.recent import forget
    from engram_lab.indexer import index_vault

    write("a.md", "# Alpha\nsalinity")
    index_vault(vault, progress=False)
    folder = refresh_keyword_index(vault)
    text = (folder / "keys.json").read_text()
    (folder / "keys.json").write_text(text[: len(text) // 2])  # torn after its opening: the format reads as current
    forget()
    write("b.md", "# Beta\nturbidity")
    index_vault(vault, progress=False)
    rebuilt = refresh_keyword_index(vault)
    assert rebuilt != folder and KeywordIndex.load(rebuilt).search("salinity", 1)


def test_version_numbers_are_one_token():
    texts = ["Stabilised in Rust 1.5", "Stabilised in Rust 1.13", "Rust 1.1 shipped"]
    index = KeywordIndex.build(texts, [("a", 0, 0, 0, 1), ("b", 0, 0, 0, 1), ("c", 0, 0, 0, 1)])
    assert [h.key[0] for h in index.search("what landed in 1.5", 5)] == ["a"]


def test_rows_holding_every_term():
    index = KeywordIndex.build(["alpha beta", "beta gamma", "alpha beta gamma", "delta"], [(f"d{i}", 0, 0, 0, 1) for i in range(4)])
    assert index.rows_holding(["beta"]).tolist() == [0, 1, 2]
    assert index.rows_holding(["alpha", "beta"]).tolist() == [0, 2]
    assert index.rows_holding(["gamma", "alpha", "gamma"]).tolist() == [2]
    assert index.rows_holding(["alpha", "zeta"]).tolist() == []
    assert index.rows_holding([]).tolist() == [0, 1, 2, 3]


def test_misaligned_keys_are_a_programming_error():
    with pytest.raises(ValueError):
        KeywordIndex.build(["a"], [])


def test_publish_swaps_pointer_and_keeps_the_old_for_its_readers(tmp_path):
    assert current_index_dir(tmp_path, "kw") is None
    first = publish_index(tmp_path, "kw", lambda f: (f / "x").write_text("1"))
    second = publish_index(tmp_path, "kw", lambda f: (f / "x").write_text("2"))
    assert current_index_dir(tmp_path, "kw") == second and first.exists()  # removed after a grace period (test_publish)


def test_failed_build_keeps_the_previous_index(tmp_path):
    good = publish_index(tmp_path, "kw", lambda f: (f / "x").write_text("1"))

    def crash(folder):
        (folder / "half").write_text("partial")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        publish_index(tmp_path, "kw", crash)
    assert current_index_dir(tmp_path, "kw") == good
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([good.name, "kw.current"])


def test_keyword_index_follows_the_ledger_generation(vault, write):
    from engram_lab.index.derived import current_if_fresh, refresh_keyword_index
    from engram_lab.indexer import index_vault

    write("a.md", "# Alpha\nsalinity")
    index_vault(vault, progress=False)
    assert current_if_fresh(vault, "keyword") is None  # the index run leaves vault-wide indexes to the next search
    first = refresh_keyword_index(vault)
    assert refresh_keyword_index(vault) == first  # nothing changed: nothing rebuilt
    write("b.md", "# Beta\nnitrate")
    index_vault(vault, progress=False)
    second = refresh_keyword_index(vault)
    assert second != first and KeywordIndex.load(second).search("nitrate", 1)
