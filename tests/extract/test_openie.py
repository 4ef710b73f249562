"""Matching imported OpenIE passages to the notes that hold them."""

from __future__ import annotations

import itertools

from engram_lab.extract.openie import OpenIERecord, match_passages

NOTES = {
    "person.md": "# Ana Ruiz\n\nAna Ruiz was born in Porto Velho.\n",
    "again.md": "# Ana Ruiz again\n\nAna Ruiz was born in Porto Velho. Mia Lund was born in Oslo.\n",
    "city.md": "# Porto Velho\n\nPorto Velho is the capital of Rondonia.\n",
}


def _record(passage: str) -> OpenIERecord:
    return OpenIERecord(passage, (), ())


def test_a_passage_inside_several_notes_goes_to_the_shortest_free_one_in_any_order():
    short = _record("Ana Ruiz was born in Porto Velho.")
    long = _record("Ana Ruiz was born in Porto Velho. Mia Lund was born in Oslo.")
    for records in itertools.permutations([short, long]):
        for notes in (NOTES, dict(reversed(list(NOTES.items())))):
            matched, unmatched = match_passages(list(records), notes)
            assert matched == {"person.md": short, "again.md": long} and unmatched == []


def test_exact_text_wins_and_strangers_stay_unmatched():
    exact = _record("Porto Velho\nPorto Velho is the capital of Rondonia.")
    stranger = _record("Oslo is the capital of Norway.")
    duplicate = _record("Porto Velho is the capital of Rondonia.")
    matched, unmatched = match_passages([exact, stranger, duplicate], NOTES)
    assert matched == {"city.md": exact}
    assert unmatched == [stranger, duplicate]
