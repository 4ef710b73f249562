"""The keys derived from labels are remembered by labels: a remembered row is used only while its labels match,
and a damaged memo costs a derivation, never a wrong key."""

from __future__ import annotations

import random

import polars as pl
import pytest

from engram_lab.resolve import name_keys as nk
from engram_lab.resolve.candidates import candidate_pairs
from engram_lab.resolve.evidence import Expansions
from engram_lab.resolve.focus import entity_digests
from tests.resolve.helpers import view_of

VAULT = [("d1", "World Health Organization", "Organization"), ("d2", "WHO", "Concept"), ("d1", "Marta Hall", "Person"),
         ("d3", "M. Hall", "Person"), ("d4", "Hall", "Concept"), ("d5", "Northern Estuary Research Institute", "Organization"),
         ("d6", "Nothern Estuary Research Institute", "Organization"), ("d7", "the company", "Organization"),
         ("d8", "Acme Robotics", "Organization")]


def _view(memo=None, aliases=None):
    view = view_of(VAULT, aliases=aliases)
    view.memo = memo
    return view


@pytest.fixture
def derivations(monkeypatch):
    """Counts the entities derived (not read from the memo)."""
    seen: list[str] = []
    real = nk.derive

    def counting(name, labels):
        seen.append(name)
        return real(name, labels)

    monkeypatch.setattr(nk, "derive", counting)
    return seen


def _everything(view):
    expansions = Expansions(view)
    return (candidate_pairs(view), view.name_keys.forms.to_dicts(), expansions.acronym, expansions.initials,
            expansions.surname, entity_digests(view, expansions).to_dicts())


def test_keys_from_the_memo_are_those_derived_afresh(tmp_path, derivations):
    memo = tmp_path / nk.MEMO_FILE
    first = _everything(_view(memo))
    assert memo.exists() and len(derivations) == len(VAULT)
    derivations.clear()
    assert _everything(_view(memo)) == first == _everything(_view())
    assert sorted(derivations) == sorted(n for _, n, _ in VAULT)  # the in-memory view derived all; the memo-backed one none


def test_an_entity_whose_labels_changed_is_derived_again(tmp_path, derivations):
    memo = tmp_path / nk.MEMO_FILE
    _everything(_view(memo))
    derivations.clear()
    aliased = _view(memo, aliases={"Acme Robotics": ["AR"]})  # a new alias: an acronym key it did not have
    assert _everything(aliased) == _everything(_view(aliases={"Acme Robotics": ["AR"]}))
    assert derivations[0] == "Acme Robotics" and derivations.count("Acme Robotics") == 2  # memo-backed: it alone
    assert len(derivations) == 1 + len(VAULT)
    keys = aliased.name_keys.keys
    assert keys.filter((pl.col("kind") == "acronym_short") & (pl.col("key") == "ar")).height == 1


def test_the_memo_is_rewritten_only_after_many_derivations(tmp_path, monkeypatch):
    memo = tmp_path / nk.MEMO_FILE
    _view(memo).name_keys
    written = memo.read_bytes()
    _view(memo, aliases={"Acme Robotics": ["AR"]}).name_keys
    assert memo.read_bytes() == written  # one derived row: not worth a write
    monkeypatch.setattr(nk, "REWRITE_AFTER", 1)
    _view(memo, aliases={"Acme Robotics": ["AR"]}).name_keys
    stored = pl.read_parquet(memo)
    assert stored.filter(pl.col("entity_iri").str.contains("acme"))["labels"].to_list() == [["Acme Robotics", "AR"]]


@pytest.mark.parametrize("damage", [b"not a parquet file", None])
def test_a_damaged_or_foreign_memo_is_derived_again(tmp_path, derivations, damage):
    memo = tmp_path / nk.MEMO_FILE
    if damage is None:
        pl.DataFrame({"entity_iri": ["x"], "keys": [1]}).write_parquet(memo)  # another schema
    else:
        memo.write_bytes(damage)
    assert _everything(_view(memo)) == _everything(_view())
    assert len(derivations) == 2 * len(VAULT)


def test_a_local_reference_has_no_blocking_key_or_trigram():
    view = _view()
    row = view.index[next(iri for iri, name in zip(view.iris, view.names) if name == "the company")]
    assert view.name_keys.of_rows([row]).height == 0 and _all(view.name_keys).filter(pl.col("row") == row).height == 0
    assert view.name_keys.forms["form"][row] == "company"


def _deletions_by_the_book(form, min_length=5):
    """Each long word with one letter deleted, the other words as they are, rejoined: the definition, written plainly."""
    words, keys = form.split(), set()
    for w, word in enumerate(words):
        if len(word) >= min_length:
            keys |= {" ".join([*words[:w], word[:c] + word[c + 1:], *words[w + 1:]]) + f"#{w}" for c in range(len(word))}
            keys.add(" ".join(words) + f"#{w}")
    return keys


def test_deletion_keys_are_the_definition():
    rng = random.Random(7)
    forms = [" ".join("".join(rng.choice("abcde") for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(1, 4)))
             for _ in range(3000)]
    assert all(nk.deletion_keys(form) == _deletions_by_the_book(form) for form in forms)
    assert nk.deletion_keys("hall marta") == {"hall mrta#1", "hall mata#1", "hall mara#1", "hall mart#1", "hall arta#1",
                                              "hall marta#1"}


def test_a_long_lived_process_reads_the_memo_once_and_keeps_what_it_derived(tmp_path, derivations):
    memo = tmp_path / nk.MEMO_FILE
    first = _everything(_view(memo))
    memo.unlink()  # the kept table serves the next pass, file or not
    assert _everything(_view(memo)) == first
    assert len(derivations) == len(VAULT)
    _view(memo, aliases={"Acme Robotics": ["AR"]}).name_keys
    _view(memo, aliases={"Acme Robotics": ["AR"]}).name_keys
    assert derivations[len(VAULT):] == ["Acme Robotics"]  # derived once, then kept
    nk._KEPT.clear()  # as a new process: it reads the file (absent here), and derives
    _view(memo).name_keys
    assert len(derivations) == 2 * len(VAULT) + 1


@pytest.mark.parametrize("seed", range(4))
def test_keys_kept_in_a_long_lived_process_equal_keys_derived_afresh_over_many_edits(tmp_path, monkeypatch, seed):
    monkeypatch.setattr(nk, "MAX_PIECES", 3)  # some edits scatter the rows past it: those are gathered, not sliced
    monkeypatch.setattr(nk, "DERIVE_CHUNK", 2)  # what an edit derives again comes in chunks too
    rng = random.Random(seed)
    memo = tmp_path / nk.MEMO_FILE
    pool = [("d9", name, "Organization") for name in ("Acme Corp", "ACME", "Mill Reach Trust", "MRT", "Hall Marta")]
    for _ in range(12):
        entities = [row for row in VAULT + pool if rng.random() < 0.8]
        aliases = {name: rng.sample(["AR", "WHO", "Hall", "NERI"], rng.randint(0, 2)) for _, name, _ in entities if rng.random() < 0.3}
        kept, fresh = view_of(entities, aliases=aliases), view_of(entities, aliases=aliases)
        kept.memo = memo
        assert _all(kept.name_keys).to_dicts() == _all(fresh.name_keys).to_dicts()
        assert kept.name_keys.starts.tolist() == fresh.name_keys.starts.tolist()
        assert kept.name_keys.forms.to_dicts() == fresh.name_keys.forms.to_dicts()
        assert kept.name_keys.gram_counts().tolist() == fresh.name_keys.counts(pl.col("kind") == nk.GRAM).tolist()


@pytest.mark.parametrize("sliced", [nk.SLICED_ROWS, 0])
def test_the_keys_of_some_entities_are_their_rows_of_the_whole_table(monkeypatch, sliced):
    monkeypatch.setattr(nk, "SLICED_ROWS", sliced)  # 0: always the one filter
    keys = _view().name_keys
    for rows in ([], [0], [2, 5], [5, 2, 2], list(range(len(VAULT)))):
        want = _all(keys).filter(pl.col("row").is_in(sorted(set(rows))))
        assert keys.of_rows(rows).to_dicts() == want.to_dicts() and keys.of_rows(rows).schema == want.schema
    assert keys.of_rows([3])["row"].unique().to_list() == [3] and keys.of_rows([3]).height > 1


def _all(keys):
    return keys.where(pl.lit(True))


def test_key_rows_know_their_entity_and_counts_follow_the_rows():
    keys = _view().name_keys
    rows = _all(keys)
    assert rows.height == keys.keys.height and rows["row"].is_sorted()
    for entity in range(len(keys.starts) - 1):
        mine = keys.keys[int(keys.starts[entity]) : int(keys.starts[entity + 1])]
        assert rows.filter(pl.col("row") == entity).select("kind", "key").to_dicts() == mine.to_dicts()
    grams = keys.counts(pl.col("kind") == nk.GRAM)
    assert grams.tolist() == [rows.filter((pl.col("row") == e) & (pl.col("kind") == nk.GRAM)).height for e in range(len(grams))]
    assert grams.sum() > 0 and 0 in grams.tolist()  # the local reference has none
    assert keys.grams is not None and keys.gram_counts().tolist() == grams.tolist()  # kept along, not counted


def test_exploding_a_memo_table_counts_empty_and_missing_key_lists_as_none():
    table = pl.DataFrame({"kinds": [["exact", "gram"], [], None, ["loose"]], "keys": [["a", "ab"], [], None, ["b"]]},
                         schema={"kinds": pl.List(pl.String), "keys": pl.List(pl.String)})
    exploded = nk._explode(table)
    assert exploded.starts.tolist() == [0, 2, 2, 2, 3]
    assert exploded.keys.to_dicts() == [{"kind": "exact", "key": "a"}, {"kind": "gram", "key": "ab"}, {"kind": "loose", "key": "b"}]
    keys = nk.NameKeys(pl.DataFrame(), exploded.keys, exploded.starts)
    assert keys.counts(pl.lit(True)).tolist() == [2, 0, 0, 1] and keys.counts(pl.col("kind") == nk.GRAM).tolist() == [1, 0, 0, 0]
    assert exploded.grams.tolist() == [1, 0, 0, 0] and keys.gram_counts().tolist() == [1, 0, 0, 0]
    assert keys.of_rows([3, 1])["row"].to_list() == [3]


def test_keys_derived_a_few_entities_at_a_time_are_those_derived_at_once(tmp_path, monkeypatch):
    at_once = _view().name_keys
    monkeypatch.setattr(nk, "DERIVE_CHUNK", 2)
    chunked = _view(tmp_path / nk.MEMO_FILE).name_keys
    assert _all(chunked).to_dicts() == _all(at_once).to_dicts() and chunked.starts.tolist() == at_once.starts.tolist()
    assert chunked.forms.to_dicts() == at_once.forms.to_dicts()
    assert pl.read_parquet(tmp_path / nk.MEMO_FILE).height == len(VAULT)  # every chunk written to the memo
