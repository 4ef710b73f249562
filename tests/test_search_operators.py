"""Search operators: parsed from the query, applied as filters over ranked results (retrieval untouched)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pytest

from engram_lab.search_operators import OperatorError, filter_results, parse


@dataclass(frozen=True)
class Hit:
    rank: int
    path: str
    text: str


def test_parse_splits_words_from_operators():
    text, ops = parse('sensor drift path:meetings tag:#Equipment after:2026-03 before:"2026-06-01" "CT-200  firmware"')
    assert text == "sensor drift CT-200 firmware"  # the phrase's words still go to the retriever
    assert ops.paths == ("meetings",) and ops.tags == ("equipment",) and ops.phrases == ("CT-200 firmware",)
    assert (ops.after, ops.before) == (dt.date(2026, 3, 1), dt.date(2026, 6, 1))
    assert ops.active and ops.fetch(10) == 50


def test_unknown_keys_stay_words_and_plain_queries_are_untouched():
    assert parse("see http://x.org note:1") == ("see http://x.org note:1", parse("a")[1])
    assert not parse("plain words")[1].active and parse("plain words")[1].fetch(10) == 10


@pytest.mark.parametrize(("query", "message"), [
    ("drift after:2026-13", "after:2026-13 is not a date"),
    ("drift before:soon", "before:soon is not a date"),
    ("drift path:", "path: needs a value"),
    ("path:meetings tag:x", "add words to search for"),
])
def test_mistakes_are_one_clear_line(query, message):
    with pytest.raises(OperatorError) as info:
        parse(query)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_filters_by_path_tag_date_and_phrase(vault, write):
    write("meetings/2026-03-18-review.md", "---\ntags: [meeting, equipment/sensors]\n---\n# Review\n\nThe CT-200 firmware drifted.\n")
    write("meetings/2026-05-27-midterm.md", "---\ntags: [meeting]\n---\n# Midterm\n\nSampling is biweekly.\n")
    write("orgs/halden.md", "---\ndate: 2026-04-02\n---\n# Halden\n\nMakes the CT-200. #vendor\n")
    hits = [Hit(1, "orgs/halden.md", "Makes the CT-200."), Hit(2, "meetings/2026-03-18-review.md", "The CT-200 firmware drifted."),
            Hit(3, "meetings/2026-05-27-midterm.md", "Sampling is biweekly.")]

    def kept(query: str) -> list[str]:
        return [h.path for h in filter_results(vault, hits, parse(query)[1])]

    assert kept("x path:meetings") == ["meetings/2026-03-18-review.md", "meetings/2026-05-27-midterm.md"]
    assert kept("x tag:equipment") == ["meetings/2026-03-18-review.md"]  # a parent tag matches its children
    assert kept("x tag:vendor") == ["orgs/halden.md"]  # inline tags count
    assert kept("x after:2026-04") == ["orgs/halden.md", "meetings/2026-05-27-midterm.md"]  # frontmatter date, else the file name
    assert kept("x after:2026-04 before:2026-05") == ["orgs/halden.md"]
    assert kept('"ct-200   FIRMWARE"') == ["meetings/2026-03-18-review.md"]  # case and spaces do not matter
    assert [h.rank for h in filter_results(vault, hits, parse("x path:meetings")[1])] == [1, 2]  # renumbered
    assert filter_results(vault, hits, parse("x")[1]) == hits
