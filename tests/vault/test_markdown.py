"""The Markdown reader: every element found, and every span pointing at the exact source text."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram_lab.vault.markdown import FrontmatterError, parse_markdown
from engram_lab.vault.model import Span

NOTE = """---
title: Sensor review
aliases: [SR, "Review of sensors"]
tags: [meeting, equipment]
date: 2026-03-18
author: Jonas Lindqvist
kind: Meeting
budget: 3100
---
# Sensor review 2026-03-18

Okafor met [[Halden Instruments|Halden]] about ![[drift-plot.png]] and [[Calibration#Drift correction]].
See [the protocol](../methods/sampling%20protocol.md#schedule), [web](https://example.org/a.md) and #equipment/sensors.
Inline `[[not a link]] #notatag` stays code. Issue #12 is no tag; neither is [x](#anchor).

## Decisions
- 2026-03-18 Decision: replace the CT-200.
  - [x] nested task done
1. ordered item

| Model | Vendor |
|:---|---:|
| CT-200 | Halden \\| Co |
| AS-5 | AquaSense |

Setext title
------------

```python
# not a heading [[NotALink]] #nottag
```
<!-- [[hidden]] #hidden -->
### Closing hashes ###
"""


@pytest.fixture(scope="module")
def model():
    return parse_markdown(NOTE, "meetings/review.md")


def test_frontmatter_keys_and_spans(model):
    fm = model.frontmatter
    assert fm is not None
    assert fm.data["title"] == "Sensor review"
    assert fm.data["aliases"] == ["SR", "Review of sensors"]
    assert fm.data["date"] == dt.date(2026, 3, 18)
    assert fm.data["budget"] == 3100
    assert fm.span.of(NOTE).startswith("---\ntitle:") and fm.span.of(NOTE).endswith("---")
    assert fm.key_spans["author"].of(NOTE) == "author: Jonas Lindqvist"


def test_heading_tree_with_spans(model):
    titles = [(h.level, h.text) for h in model.headings]
    assert titles == [(1, "Sensor review 2026-03-18"), (2, "Decisions"), (2, "Setext title"), (3, "Closing hashes")]
    for heading in model.headings:
        assert heading.text_span.of(NOTE) == heading.text
    assert model.headings[1].parent == 0
    assert model.headings[3].parent == 2
    assert model.heading_path(3) == ("Sensor review 2026-03-18", "Setext title", "Closing hashes")
    assert model.headings[2].span.of(NOTE) == "Setext title\n------------"


def test_wikilinks_all_forms(model):
    links = [(w.target, w.heading, w.label, w.embed) for w in model.wikilinks]
    assert links == [
        ("Halden Instruments", None, "Halden", False),
        ("drift-plot.png", None, None, True),
        ("Calibration", "Drift correction", None, False),
    ]
    assert [w.span.of(NOTE) for w in model.wikilinks] == [
        "[[Halden Instruments|Halden]]",
        "![[drift-plot.png]]",
        "[[Calibration#Drift correction]]",
    ]


def test_markdown_links_resolve_local_notes_only(model):
    by_label = {link.label: link for link in model.links}
    assert by_label["the protocol"].target == "methods/sampling protocol.md"
    assert by_label["the protocol"].span.of(NOTE) == "[the protocol](../methods/sampling%20protocol.md#schedule)"
    assert by_label["web"].target is None
    assert by_label["x"].target is None


def test_tags_skip_code_comments_numbers_and_anchors(model):
    assert [t.name for t in model.tags] == ["equipment/sensors"]
    assert model.tags[0].span.of(NOTE) == "#equipment/sensors"


def test_list_items(model):
    items = [(i.text, i.depth, i.ordered, i.checked) for i in model.list_items]
    assert items == [
        ("2026-03-18 Decision: replace the CT-200.", 0, False, None),
        ("nested task done", 2, False, True),
        ("ordered item", 0, True, None),
    ]
    for item in model.list_items:
        assert item.text_span.of(NOTE) == item.text
        assert model.headings[item.heading].text == "Decisions"


def test_table_cells_and_spans(model):
    (table,) = model.tables
    assert [c.text for c in table.header] == ["Model", "Vendor"]
    assert [[c.text for c in row] for row in table.rows] == [["CT-200", "Halden | Co"], ["AS-5", "AquaSense"]]
    assert table.rows[1][1].span.of(NOTE) == "AquaSense"
    assert table.span.of(NOTE).startswith("| Model") and table.span.of(NOTE).endswith("| AS-5 | AquaSense |")


def test_dated_lines_from_frontmatter_headings_and_items(model):
    dated = [(d.date.isoformat(), d.source) for d in model.dated_lines]
    assert dated == [("2026-03-18", "frontmatter"), ("2026-03-18", "heading"), ("2026-03-18", "list")]
    assert model.dated_lines[0].span.of(NOTE) == "date: 2026-03-18"
    assert model.dated_lines[2].span.of(NOTE).startswith("- 2026-03-18 Decision")


def test_crlf_and_bom_keep_offsets():
    text = "\ufeff---\r\ntitle: X\r\n---\r\n# Head\r\n\r\nSee [[Other]] #tag\r\n"
    model = parse_markdown(text)
    assert model.frontmatter is not None and model.frontmatter.data == {"title": "X"}
    assert model.headings[0].text_span.of(text) == "Head"
    assert model.wikilinks[0].span.of(text) == "[[Other]]"
    assert model.tags[0].span.of(text) == "#tag"


def test_invalid_calendar_date_is_not_a_dated_line():
    model = parse_markdown("- 2026-02-30 not a date\n- 2026-02-28 a date\n")
    assert [d.date for d in model.dated_lines] == [dt.date(2026, 2, 28)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\ntitle: x\nbad: a: b\n---\nbody\n", "malformed YAML frontmatter at line 3: mapping values"),
        ("---\ntitle: [unclosed\n---\nbody\n", "malformed YAML frontmatter at line 3"),
        ("---\n- a\n- b\n---\n", "must be a mapping"),
        ("---\ntitle: x\nno end\n", "never closed"),
    ],
)
def test_bad_frontmatter_is_a_clear_error(text, message):
    with pytest.raises(FrontmatterError, match=message):
        parse_markdown(text)


def test_frontmatter_not_read_when_not_allowed():
    model = parse_markdown("---\ntitle: x\n---\n", allow_frontmatter=False)
    assert model.frontmatter is None


def test_empty_frontmatter_is_empty_mapping():
    assert parse_markdown("---\n---\n# A\n").frontmatter.data == {}


_md_pieces = st.sampled_from(
    ["# H", "## Sub", "text", "[[Link]]", "[[A#B|c]]", "![[e]]", "#tag", "- item", "1. one", "| a | b |", "|---|---|",
     "```", "`code`", "[l](x.md)", "2026-01-02", "---", "===", "", "  ", "<!-- c -->", "\r"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_md_pieces, max_size=30), st.text(max_size=40))
def test_any_text_parses_and_spans_stay_in_bounds(pieces, noise):
    text = "\n".join(pieces) + noise
    try:
        model = parse_markdown(text)
    except FrontmatterError:
        return  # text starting with '---' may be malformed frontmatter; that is reported, not a crash
    spans: list[Span] = [h.span for h in model.headings] + [w.span for w in model.wikilinks] + [t.span for t in model.tags]
    spans += [i.span for i in model.list_items] + [t.span for t in model.tables]
    for span in spans:
        assert 0 <= span.start <= span.end <= len(text)
    for heading in model.headings:
        assert heading.text_span.of(text) == heading.text
    for tag in model.tags:
        assert tag.span.of(text) == "#" + tag.name


def test_link_reference_definitions_are_links_and_plain_bracket_lines_are_not():
    text = ("See [RFC 7] and [local].\n\n[RFC 7]: https://example.org/text/0007-x.md \"RFC 7\"\n"
            "  [local]: <../other note.md>\n[Note]: this is important, not a definition\n```\n[code]: inside.md\n```\n")
    links = parse_markdown(text, "sub/a.md").links
    assert [(link.label, link.target) for link in links] == [("RFC 7", None), ("local", "other note.md")]
    assert links[0].href == "https://example.org/text/0007-x.md"
    assert links[1].span.of(text) == "  [local]: <../other note.md>"
