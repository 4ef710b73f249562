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
