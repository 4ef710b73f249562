"""Name forms and string similarity; Jaro-Winkler checked against textbook values."""

from __future__ import annotations

import pytest

from engram_lab.resolve import names as nm


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("martha", "marhta", 0.9611), ("dwayne", "duane", 0.84), ("dixon", "dicksonx", 0.8133), ("abc", "abc", 1.0), ("abc", "xyz", 0.0),
])
def test_jaro_winkler_matches_published_values(a, b, expected):
    assert nm.jaro_winkler(a, b) == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("kitten", "sitting", 3), ("brian", "brain", 1), ("hall", "hal", 1), ("same", "same", 0), ("ab", "abcdefgh", 3),
])
def test_edit_distance_counts_a_swap_once_and_caps(a, b, distance):
    assert nm.edit_distance(a, b) == distance


def test_loose_form_folds_what_never_distinguishes():
    assert nm.loose("Dr. Amara Okafor") == "amara okafor"
    assert nm.loose("AquaSense Ltd.") == nm.loose("aquasense") == "aquasense"
    assert nm.loose("The Vessel River Authority") == "vessel river authority"
    assert nm.loose("Zoë Ngata") == "zoe ngata"


def _fold_by_normalising(text: str) -> str:
    """``fold`` without its ASCII shortcut: the Unicode route every text took before."""
    import re
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(re.sub(r"[\W_]+", " ", plain).split())


def test_fold_takes_ascii_the_short_way_to_the_same_form():
    import random
    import string

    rng = random.Random(7)
    texts = ["".join(rng.choice(string.printable) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    texts += ["Dr. Amara O'Kafor", "text/0116-no_module-shadowing.md", "  AquaSense\tLtd.  ", "", "___", "ß Straße", "Zoë"]
    for text in texts:
        assert nm.fold(text) == _fold_by_normalising(text), repr(text)
    assert nm.fold("Zoë Ngata") == "zoe ngata" and nm.fold("Straße") == "strasse"  # the Unicode route still runs


def test_acronyms_and_initials():
    assert nm.acronym_of("World Health Organization") == "who"
    assert nm.acronym_of("Northern Estuary Research Institute") == "neri"
    assert nm.acronym_of("Salinity") is None
    assert nm.as_acronym("N.E.R.I.") == "neri" and nm.as_acronym("Neri") is None
    assert nm.initials_key("M. Hall") == nm.initials_key("Marta Hall") == "m hall"
    assert nm.is_initialled("M. Hall") and not nm.is_initialled("Marta Hall")


@pytest.mark.parametrize("text", ["the company", "The project", "our team", "it", "she", ""])
def test_local_references(text):
    assert nm.is_local_reference(text)


def test_names_are_not_local_references():
    assert not nm.is_local_reference("Apollo Project") and not nm.is_local_reference("Marta Hall")


def _textbook_osa(a: str, b: str) -> int:
    """The optimal-string-alignment recurrence, uncapped, as a reference."""
    d = [[i + j if i == 0 or j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def test_edit_distance_equals_the_textbook_recurrence_capped():
    import random

    rng = random.Random(5)
    for _ in range(3000):
        a = "".join(rng.choice("abcd é") for _ in range(rng.randint(0, 9)))
        b = "".join(rng.choice("abcd é") for _ in range(rng.randint(0, 9))) if rng.random() < 0.5 else a[::-1][:7] + "ab"
        for limit in (2, 3, 5):
            assert nm.edit_distance(a, b, limit) == min(_textbook_osa(a, b), limit), (a, b, limit)
