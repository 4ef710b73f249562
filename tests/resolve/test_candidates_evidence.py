"""Blocking proposes the right pairs (never all pairs), and the policy scores them as documented."""

from __future__ import annotations

import itertools
import random

from engram_lab.resolve import names as nm
from engram_lab.resolve import candidates
from engram_lab.resolve.candidates import TRIGRAM_MIN_COSINE, candidate_pairs, key_blocks, trigram_pairs
from engram_lab.resolve.evidence import AUTO_SAME, REVIEW, Expansions, score_pair
from tests.resolve.helpers import index_of, view_of


def _pair(view, a, b):
    x, y = index_of(view, *a), index_of(view, *b)
    return (x, y) if x < y else (y, x)


def _score(view, a, b):
    x, y = _pair(view, a, b)
    pairs = candidate_pairs(view)
    assert (x, y) in pairs, f"{a} / {b} was never proposed"
    return score_pair(view, x, y, pairs[(x, y)], Expansions(view))


VAULT = [
    ("d1", "World Health Organization", "Organization"), ("d2", "WHO", "Concept"),
    ("d1", "Marta Hall", "Person"), ("d3", "M. Hall", "Person"), ("d4", "Peter Hall", "Person"),
    ("d5", "Hall", "Concept"), ("d6", "AquaSense Ltd", "Organization"), ("d7", "AquaSense", "Concept"),
    ("d8", "Northern Estuary Research Institute", "Organization"), ("d9", "Nothern Estuary Research Institute", "Organization"),
    ("d10", "Northern Estuary Research Institute", "Organization"), ("d11", "Northern Estuary Research Institute", "Organization"),
    ("d1", "Jordan", "Person"), ("d2", "Jordan", "Place"), ("d3", "Phase 1", "Project"), ("d4", "Phase 2", "Project"),
    ("d5", "the company", "Organization"),
]


def test_each_rule_fires_with_its_documented_outcome():
    view = view_of(VAULT)
    assert _score(view, ("WHO", "Concept"), ("World Health Organization", "Organization")).score >= AUTO_SAME
    assert _score(view, ("AquaSense", "Concept"), ("AquaSense Ltd", "Organization")).rule == "loose-form"
    typo = _score(view, ("Northern Estuary Research Institute", "Organization"), ("Nothern Estuary Research Institute", "Organization"))
    assert typo.rule == "typo" and typo.verdict == "auto-same"


def test_initials_with_two_possible_full_names_wait_for_review():
    view = view_of(VAULT)  # M. Hall could be Marta Hall; Peter Hall has another initial
    assert _score(view, ("M. Hall", "Person"), ("Marta Hall", "Person")).verdict == "auto-same"
    crowded = view_of([*VAULT, ("d9", "Mike Hall", "Person")])
    evidence = _score(crowded, ("M. Hall", "Person"), ("Marta Hall", "Person"))
    assert evidence.ambiguous and evidence.verdict == "review"


def test_people_sharing_a_surname_are_never_merged():
    view = view_of(VAULT)
    pairs = candidate_pairs(view)
    marta_peter = _pair(view, ("Marta Hall", "Person"), ("Peter Hall", "Person"))
    if marta_peter in pairs:
        assert score_pair(view, *marta_peter, pairs[marta_peter], Expansions(view)).verdict != "auto-same"
    surname = _score(view, ("Hall", "Concept"), ("Marta Hall", "Person"))
    assert surname.rule == "surname" and surname.score < AUTO_SAME  # a surname alone never becomes an identity


def test_vetoes_kinds_numbers_and_local_references():
    view = view_of(VAULT)
    homonym = _score(view, ("Jordan", "Person"), ("Jordan", "Place"))
    assert homonym.score == 0.0 and not homonym.kinds_compatible and "veto" in homonym.reason
    assert _pair(view, ("Phase 1", "Project"), ("Phase 2", "Project")) not in candidate_pairs(view)  # dropped before scoring
    a, b = _pair(view, ("Phase 1", "Project"), ("Phase 2", "Project"))
    assert score_pair(view, a, b, {"trigram"}, Expansions(view)).score == 0.0
    company = index_of(view, "the company", "Organization")
    assert all(company not in pair for pair in candidate_pairs(view))


def test_same_name_in_one_note_with_a_typo_is_two_things():
    view = view_of([("d1", "Anderson Moor", "Place"), ("d1", "Andersen Moor", "Place")])
    evidence = _score(view, ("Anderson Moor", "Place"), ("Andersen Moor", "Place"))
    assert evidence.shared_docs == 1 and evidence.score < REVIEW


def test_focus_limits_pairs_to_those_touching_it():
    view = view_of(VAULT)
    who = index_of(view, "WHO", "Concept")
    focused = candidate_pairs(view, focus={who})
    assert focused and all(who in pair for pair in focused)
    assert set(focused) <= set(candidate_pairs(view))


def _brute_force(names, threshold):
    grams = [nm.char_ngrams(n) for n in names]
    out = set()
    for a, b in itertools.combinations(range(len(names)), 2):
        if nm.is_local_reference(names[a]) or nm.is_local_reference(names[b]):
            continue
        cosine = len(grams[a] & grams[b]) / ((len(grams[a]) * len(grams[b])) ** 0.5)
        if cosine >= threshold - 1e-6:
            out.add((a, b))
    return out


def test_trigram_blocking_agrees_with_brute_force_when_nothing_is_pruned():
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(4, 7))) for _ in range(12)]
    names = sorted({" ".join(rng.sample(words, 2)) for _ in range(60)})
    view = view_of([(f"d{i}", n, "Concept") for i, n in enumerate(names)])
    ordered = view.names
    found = set(trigram_pairs(view))
    assert found == _brute_force(ordered, TRIGRAM_MIN_COSINE)


def test_a_focused_trigram_pass_finds_for_its_entities_what_the_full_pass_finds(monkeypatch):
    monkeypatch.setattr(candidates, "TRIGRAM_PER_ROW", 3)  # rows have more partners than are kept
    rng = random.Random(11)  # a shared suffix in over 20 names: its grams are pruned
    names = sorted({"".join(rng.choice("abcde") for _ in range(rng.randint(5, 7))) + rng.choice([" mill", ""])
                    for _ in range(160)})
    view = view_of([(f"d{i}", n, "Concept") for i, n in enumerate(names)])

    def merged(parts):  # type: ignore[no-untyped-def]
        out: dict = {}
        for part in parts:
            for pair, value in part.items():
                out[pair] = max(out.get(pair, 0.0), value)
        return out

    single = [trigram_pairs(view, {a}, min_cosine=0.3) for a in range(view.size)]
    assert max(len(found) for found in single) == 3
    assert trigram_pairs(view, min_cosine=0.3) == merged(single)
    for _ in range(3):
        focus = set(rng.sample(range(view.size), 15))
        assert trigram_pairs(view, focus, min_cosine=0.3) == merged(single[a] for a in focus)
    monkeypatch.setattr(candidates, "_CHUNK", 4)  # a focus joined a few entities at a time finds the same
    assert trigram_pairs(view, set(range(0, view.size, 2)), min_cosine=0.3) == merged(single[0::2])


def test_a_gram_in_more_names_than_the_cap_is_common_whatever_the_vault_size(monkeypatch):
    view = view_of([(f"d{i}", name, "Concept") for i, name in enumerate(["Qixolv", "Qixolw", "Qixolz", "Marrow"])])
    pair = _pair(view, ("Qixolv", "Concept"), ("Qixolw", "Concept"))
    assert pair in trigram_pairs(view, min_cosine=0.3)  # "qix", "ixo", "xol" are in three names: rare under 20
    monkeypatch.setattr(candidates, "TRIGRAM_MAX_DF", 3)  # a gram in exactly the cap's number of names is still rare
    assert pair in trigram_pairs(view, min_cosine=0.3)
    monkeypatch.setattr(candidates, "TRIGRAM_MAX_DF", 2)
    assert trigram_pairs(view, min_cosine=0.3) == {} == trigram_pairs(view, {pair[0]}, min_cosine=0.3)


def test_blocking_is_far_from_all_pairs():
    rng = random.Random(3)
    first = ["Ana", "Ben", "Carla", "Dmitri", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas"]
    last = [f"{rng.choice('BCDFGHKLMNPRST')}{rng.choice('aeiou')}{rng.choice('lmnrst')}{rng.choice('aeiou')}{rng.choice('kmnrs')}" for _ in range(300)]
    names = sorted({f"{f} {s}" for f in first for s in last})
    view = view_of([(f"d{i}", n, "Person") for i, n in enumerate(names)])
    total = view.size * (view.size - 1) // 2
    assert len(candidate_pairs(view)) < total // 50


def test_one_edit_blocking_finds_typos_trigrams_would_miss():
    crowd = [(f"d{i}", f"Amara {last}", "Person") for i, last in enumerate(
        ["Okafor", "Lindqvist", "Raman", "Novak", "Mensah", "Tanaka", "Costa", "Haddad", "Ferreira", "Silva"] * 3)]
    view = view_of([*crowd, ("x1", "Amara Gallagher", "Person"), ("x2", "Amara Gallageer", "Person"),
                    ("x3", "Amara Gallagher", "Person"), ("x4", "Amara Gallagher", "Person")])
    evidence = _score(view, ("Amara Gallagher", "Person"), ("Amara Gallageer", "Person"))
    assert "one-edit" in evidence.sources and evidence.verdict == "auto-same"


def test_one_letter_apart_without_a_second_sign_waits_for_review():
    """Two names each written once, one letter apart, are as likely two names as one typo."""
    view = view_of([("d1", "Hansen Institute", "Organization"), ("d2", "Jansen Institute", "Organization")])
    evidence = _score(view, ("Hansen Institute", "Organization"), ("Jansen Institute", "Organization"))
    assert evidence.rule == "typo" and evidence.verdict == "review"
    assert "neither spelling is rare" in evidence.reason


def test_a_rare_spelling_beside_a_common_one_merges():
    common = [(f"d{i}", "Northern Estuary Research Institute", "Organization") for i in range(3)]
    view = view_of([*common, ("x", "Nothern Estuary Research Institute", "Organization")])
    evidence = _score(view, ("Northern Estuary Research Institute", "Organization"), ("Nothern Estuary Research Institute", "Organization"))
    assert evidence.verdict == "auto-same"
    even = view_of([*common[:2], ("x", "Nothern Estuary Research Institute", "Organization")])  # 2 notes against 1: no sign
    assert _score(even, ("Northern Estuary Research Institute", "Organization"),
                  ("Nothern Estuary Research Institute", "Organization")).verdict == "review"


def test_a_spelling_is_counted_over_every_kind_it_was_given():
    """The extractor may type one name differently from note to note; the notes writing the spelling still add up."""
    rows = [("d1", "Amara Haddad", "Person"), ("d2", "Amara Haddad", "Concept"), ("d3", "Amara Haddad", "Concept"),
            ("x", "Amara Hoddad", "Concept")]
    view = view_of(rows)
    assert _score(view, ("Amara Haddad", "Person"), ("Amara Hoddad", "Concept")).verdict == "auto-same"


def test_a_shared_neighbour_is_the_second_sign_a_typo_needs():
    rows = [("d1", "Hansen Institute", "Organization"), ("d2", "Jansen Institute", "Organization"),
            ("d1", "Port Kalomi", "Place"), ("d2", "Port Kalomi", "Place")]
    view = view_of(rows, relations=[("d1", "Hansen Institute", "Organization", "Port Kalomi", "Place"),
                                     ("d2", "Jansen Institute", "Organization", "Port Kalomi", "Place")])
    evidence = _score(view, ("Hansen Institute", "Organization"), ("Jansen Institute", "Organization"))
    assert evidence.shared_neighbours == 1 and evidence.verdict == "auto-same"


def test_given_names_one_letter_apart_are_not_merged_automatically():
    view = view_of([("d1", "Marta Ivanova", "Person"), ("d2", "Martha Ivanova", "Person")])
    evidence = _score(view, ("Marta Ivanova", "Person"), ("Martha Ivanova", "Person"))
    assert evidence.verdict == "review" and "given names" in evidence.reason


def test_an_acronym_with_two_expansions_waits_even_when_written_alongside():
    view = view_of([("d1", "National Ocean Agency", "Organization"), ("d1", "NOA", "Organization"),
                    ("d2", "Nordic Ocean Agency", "Organization")])
    evidence = _score(view, ("NOA", "Organization"), ("National Ocean Agency", "Organization"))
    assert evidence.ambiguous and evidence.verdict == "review"


def test_a_misspelt_expansion_does_not_make_an_acronym_ambiguous():
    view = view_of([("d1", "Northern Estuary Research Institute", "Organization"), ("d2", "NERI", "Organization"),
                    ("d3", "Nothern Estuary Research Institute", "Organization")])
    evidence = _score(view, ("NERI", "Organization"), ("Northern Estuary Research Institute", "Organization"))
    assert not evidence.ambiguous and evidence.verdict == "auto-same"


def test_focused_blocking_finds_exactly_the_pairs_of_a_full_pass_that_touch_the_focus():
    view = view_of(VAULT)
    everything = key_blocks(view)
    for i in range(view.size):
        assert key_blocks(view, {i}) == {pair: keys for pair, keys in everything.items() if i in pair}


class _NumbersIgnored:
    """Every name's numbers the same: blocking as it was before numbers split blocks."""

    def __getitem__(self, row: int) -> tuple[str, ...]:
        return ()


def test_blocking_never_pairs_names_differing_in_a_number_and_loses_no_other_pair():
    numbered = [*VAULT, ("d1", "note-07304", "Concept"), ("d2", "note-09304", "Concept"), ("d3", "note-07304", "Concept"),
                ("d4", "Phase 1 Hall", "Project"), ("d5", "Phase 2 Hall", "Project"), ("d6", "Phase 1 Hal", "Project"),
                ("d7", "RFC 1234", "Concept"), ("d8", "RFC 1235", "Concept"), ("d9", "RFC 123", "Concept")]
    view = view_of(numbered)
    numbers = candidates.NumbersInNames(view.names)
    for focus in [None, *({i} for i in range(view.size))]:
        unsplit = key_blocks(view, focus, _NumbersIgnored())
        expected = {pair: keys for pair, keys in unsplit.items() if numbers[pair[0]] == numbers[pair[1]]}
        assert expected and len(expected) < len(unsplit) or focus is not None
        assert key_blocks(view, focus) == expected
    pairs = candidate_pairs(view)
    assert _pair(view, ("Phase 1 Hall", "Project"), ("Phase 1 Hal", "Project")) in pairs  # same numbers: still a typo pair
    assert _pair(view, ("note-07304", "Concept"), ("note-09304", "Concept")) not in pairs
    assert all(numbers[a] == numbers[b] for a, b in pairs)


def test_a_block_too_large_stays_skipped_whatever_the_numbers_in_its_names(monkeypatch):
    """The block's size is its ambiguity: splitting it by numbers must not make its parts small enough to pair."""
    view = view_of([("d1", "Report 1 Alpha", "Concept"), ("d2", "Review 1 Alpha", "Concept"), ("d3", "Report 2 Alpha", "Concept")])
    pair = _pair(view, ("Report 1 Alpha", "Concept"), ("Review 1 Alpha", "Concept"))  # initials "r alpha": all three
    assert key_blocks(view)[pair] == {"initials"}
    monkeypatch.setattr(candidates, "MAX_BLOCK", 2)
    assert pair not in key_blocks(view)


def test_an_embedding_neighbour_differing_in_a_number_is_not_a_candidate():
    view = view_of([("d1", "Phase 1 Hall", "Project"), ("d2", "Phase 2 Hall", "Project"), ("d3", "Mill Reach", "Place"),
                    ("d4", "Mill Reach Trust", "Organization")])
    phases = _pair(view, ("Phase 1 Hall", "Project"), ("Phase 2 Hall", "Project"))
    mills = _pair(view, ("Mill Reach", "Place"), ("Mill Reach Trust", "Organization"))
    pairs = candidate_pairs(view, embedding_pairs={phases: 0.97, mills: 0.9})
    assert phases not in pairs and "embedding" in pairs[mills]
    assert candidate_pairs(view, {phases[0]}, {phases: 0.97, mills: 0.9}) == {}  # focused: the same


def test_notes_writing_a_spelling_are_looked_up_as_asked_or_many_at_once():
    """A mapping of every spelling was built per edit for the typo rule's few pairs; lookups must give the same."""
    from engram_lab.resolve.evidence import Expansions

    view = view_of([("d1", "Amara Haddad", "Person"), ("d2", "Amara Haddad", "Concept"), ("d2", "Amara Haddad", "Person"),
                    ("d3", "Port Kalomi", "Place")])
    writing = Expansions(view).writing
    whole = dict(zip(writing["form"].to_list(), writing["notes"].to_list()))
    one = Expansions(view)
    assert [one.notes_writing(form) for form in ("amara haddad", "port kalomi", "nobody")] == [
        whole["amara haddad"], whole["port kalomi"], 0] == [2, 1, 0]
    many = Expansions(view)
    many.know_writing(["port kalomi", "nobody", "amara haddad"])
    assert many._writing_known == {"amara haddad": 2, "port kalomi": 1, "nobody": 0}
