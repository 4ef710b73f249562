"""Segmentation limits and the kind compatibility table."""

from __future__ import annotations

from engram_lab.extract.kinds import CORE_KINDS, canonical_kind, compatible, incompatible_pairs
from engram_lab.extract.segment import MAX_SEGMENTS, segment_document
from engram_lab.vault import parse_document
from tests.conftest import notebook_json


def pieces_match_source(segments, texts):
    for segment in segments:
        for piece in segment.pieces:
            assert piece.span.of(texts[piece.cell_id]) == piece.text


def test_many_headings_merge_into_at_most_16_segments():
    text = "\n".join(f"# H{i}\ntext {i}" for i in range(40))
    segments = segment_document(parse_document(text, "a.md", "markdown"))
    assert len(segments) == MAX_SEGMENTS
    assert [p.text for s in segments for p in s.pieces] == [f"# H{i}\ntext {i}" for i in range(40)]
    pieces_match_source(segments, {None: text})


def test_long_section_splits_on_paragraphs():
    text = "# A\n\n" + "\n\n".join(f"paragraph {i} " + "word " * 100 for i in range(12))
    segments = segment_document(parse_document(text, "a.md", "markdown"), max_chars=1200)
    assert 1 < len(segments) <= MAX_SEGMENTS
    assert all(len(p.text) <= 1200 for s in segments for p in s.pieces)
    pieces_match_source(segments, {None: text})


def test_notebook_segments_follow_cells():
    text = notebook_json([{"cell_type": "markdown", "id": "a", "source": "# A\nx"}, {"cell_type": "markdown", "id": "b", "source": "y"}])
    doc = parse_document(text, "n.ipynb", "notebook")
    segments = segment_document(doc)
    assert [[p.cell_id for p in s.pieces] for s in segments] == [["a"], ["b"]]


def test_kinds_and_vetoes():
    assert len(CORE_KINDS) == 11
    assert not compatible("Person", "Organization")
    assert all(not compatible("Time", k) for k in CORE_KINDS if k != "Time")
    assert compatible("Concept", "Person") and compatible("Person", "Person")
    assert compatible("Sensor", "Concept") and not compatible("Sensor", "Person")
    assert ("Person", "Organization") in incompatible_pairs()
    assert canonical_kind("organisation") == "Organization" and canonical_kind("sensor", ("Sensor",)) == "Sensor"
    assert canonical_kind(3) is None
