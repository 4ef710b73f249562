"""Documents of both kinds: notes and notebooks, titles, metadata, sections."""

from __future__ import annotations

import pytest

from engram_lab.errors import DocumentError
from engram_lab.vault import document_sections, parse_document
from tests.conftest import notebook_json


def test_notebook_markdown_cells_are_parts_with_their_ids():
    text = notebook_json(
        [
            {"cell_type": "markdown", "id": "intro", "source": ["---\n", "title: NB\n", "author: Raman\n", "---\n", "# Intro\n", "See [[Stations]]."]},
            {"cell_type": "code", "source": "x = 1  # [[NotALink]]"},
            {"cell_type": "markdown", "id": "later", "source": "## Later\n\n---\n\nText 2026-01-02 #tag"},
        ]
    )
    doc = parse_document(text, "nb/explore.ipynb", "notebook")
    assert [p.cell_id for p in doc.parts] == ["intro", "later"]
    assert doc.title == "NB" and doc.author == "Raman"
    assert doc.parts[0].model.wikilinks[0].span.of(doc.parts[0].model.text) == "[[Stations]]"
    assert doc.parts[1].model.frontmatter is None  # '---' in a later cell is a rule
    assert doc.tags == ["tag"]


def test_notebook_without_cell_ids_gets_positional_ids():
    text = '{"cells": [{"cell_type": "code", "source": ""}, {"cell_type": "markdown", "source": "# A"}], "nbformat": 4, "nbformat_minor": 4, "metadata": {}}'
    doc = parse_document(text, "old.ipynb", "notebook")
    assert [p.cell_id for p in doc.parts] == ["idx-1"]
    assert doc.title == "A"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"cells": [', "not a valid notebook: JSON error at line 1"),
        ('{"nbformat": 4}', "no 'cells' list"),
        ('{"cells": [{"cell_type": "markdown", "source": 5}]}', "neither text nor a list"),
        ('{"cells": ["x"]}', "cell 0 is not an object"),
    ],
)
def test_invalid_notebooks_name_the_file_and_problem(text, message):
    with pytest.raises(DocumentError, match=message) as info:
        parse_document(text, "bad.ipynb", "notebook")
    assert str(info.value).startswith("bad.ipynb: ")


def test_title_fallbacks():
    assert parse_document("# First\n# Second\n", "x/y.md", "markdown").title == "First"
    assert parse_document("no heading", "x/my-note.md", "markdown").title == "my-note"
    assert parse_document("---\ntitle: T\n---\n# H\n", "a.md", "markdown").title == "T"


def test_metadata_lists_are_normalised():
    doc = parse_document("---\naliases: NERI, Northern Inst\ntags: [a, '#b']\n---\ntext #c #a\n", "o.md", "markdown")
    assert doc.aliases == ["NERI", "Northern Inst"]
    assert doc.tags == ["a", "b", "c"]


def test_malformed_yaml_names_the_file():
    with pytest.raises(DocumentError, match=r"^n\.md: malformed YAML frontmatter"):
        parse_document("---\na: b: c\n---\n", "n.md", "markdown")


def test_sections_follow_headings_and_spans_match_source():
    text = "---\ntitle: T\n---\nPreamble.\n\n# One\nBody one.\n\n## Two\nBody two.\n\n# Empty\n"
    doc = parse_document(text, "s.md", "markdown")
    sections = document_sections(doc)
    assert [(s.heading, s.heading_path) for s in sections] == [
        (None, ()),
        ("One", ("One",)),
        ("Two", ("One", "Two")),
        ("Empty", ("Empty",)),
    ]
    for section in sections:
        assert section.span.of(text) == section.text
    assert sections[0].text == "Preamble."
    assert sections[2].text == "## Two\nBody two."


def test_notebook_sections_never_cross_cells():
    text = notebook_json([{"cell_type": "markdown", "id": "a", "source": "# A\nx"}, {"cell_type": "markdown", "id": "b", "source": "more"}])
    sections = document_sections(parse_document(text, "n.ipynb", "notebook"))
    assert [(s.cell_id, s.text) for s in sections] == [("a", "# A\nx"), ("b", "more")]
