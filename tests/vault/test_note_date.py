import datetime as dt

import pytest

from engram_lab.vault import parse_document
from engram_lab.vault.note_date import date_in_file_name, note_date


def date_of(text: str, path: str = "n.md") -> dt.date | None:
    return note_date(parse_document(text, path, "markdown"))


def test_frontmatter_wins_over_the_file_name_and_the_opening():
    text = "---\ndate: 2026-03-18\n---\n# Review\n\n- Start Date: 2015-05-21\n"
    assert date_of(text, "meetings/2026-01-02-review.md") == dt.date(2026, 3, 18)


def test_file_name_then_a_dated_line_in_the_opening():
    assert date_of("# Review\n\n- Start Date: 2015-05-21\n", "2026-01-02 review.md") == dt.date(2026, 1, 2)
    assert date_of("- Feature Name: x\n- Start Date: 2015-05-21\n\n# Summary\n\nText.\n\n# Motivation\n") == dt.date(2015, 5, 21)
    assert date_of("# 2024-06-01 stand-up\n\nNotes.\n") == dt.date(2024, 6, 1)


def test_a_date_deep_in_the_body_is_not_the_notes_date():
    assert date_of("# Plan\n\nIntro.\n\n## History\n\n- 2019-02-03 first draft\n") is None


@pytest.mark.parametrize("name", ["2026-13-40-x.md", "notes.md", "12026-01-01.md"])
def test_no_date_or_an_impossible_one_in_a_file_name(name):
    assert date_in_file_name(name) is None
