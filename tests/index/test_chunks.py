"""Sections cut into passages of bounded length: every word kept once, in order, at the most natural break."""

from __future__ import annotations


import pytest

from engram_lab.index.chunks import chunk_spans, section_chunks
from engram_lab.indexer import index_vault
from engram_lab.state.db import open_ledger
from engram_lab.state.documents import DocumentTable


def words_of(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [w for a, b in spans for w in text[a:b].split()]


def test_a_short_text_is_one_chunk():
    assert chunk_spans("one two three", max_words=5) == [(0, 13)]
    assert chunk_spans("   \n ", max_words=5) == []


def test_paragraphs_are_packed_and_never_split_when_they_fit():
    paragraphs = [" ".join(f"p{i}w{j}" for j in range(4)) for i in range(5)]
    text = "\n\n".join(paragraphs)
    spans = chunk_spans(text, max_words=9)
    assert [text[a:b] for a, b in spans] == ["\n\n".join(paragraphs[0:2]), "\n\n".join(paragraphs[2:4]), paragraphs[4]]


def test_a_long_paragraph_breaks_at_sentence_ends_then_at_words():
    sentence = "Alpha beta gamma delta."
    long_sentence = " ".join(f"w{i}" for i in range(25)) + "."
    text = f"{sentence} {sentence} {long_sentence} {sentence}"
    spans = chunk_spans(text, max_words=10)
    pieces = [text[a:b] for a, b in spans]
    assert pieces[0] == f"{sentence} {sentence}"  # two whole sentences packed
    assert all(len(p.split()) <= 10 for p in pieces)
    assert words_of(text, spans) == text.split()  # nothing lost, nothing repeated, in order


@pytest.mark.parametrize("seed", range(5))
def test_random_texts_keep_every_word_once(seed):
    import random

    rng = random.Random(seed)
    parts = []
    for _ in range(rng.randint(1, 40)):
        words = [rng.choice(["a", "bb", "ccc", "end.", "x!", "y?"]) for _ in range(rng.randint(1, 60))]
        parts.append(" ".join(words))
    text = rng.choice(["\n\n", "\n", " "]).join(parts)
    spans = chunk_spans(text, max_words=17)
    assert words_of(text, spans) == text.split()
    assert all(len(text[a:b].split()) <= 17 for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))


def test_max_words_must_be_positive():
    with pytest.raises(ValueError):
        chunk_spans("text", max_words=0)


def test_chunk_offsets_point_into_the_note(vault, write):
    body = "\n\n".join(" ".join(f"word{i}x{j}" for j in range(150)) + "." for i in range(3))
    write("long.md", f"---\ntitle: Long\n---\n# Heading\n\n{body}\n\n## Short\n\nA short section.\n")
    index_vault(vault, progress=False)
    conn = open_ledger(vault)
    try:
        sections = DocumentTable(conn).sections()
    finally:
        conn.close()
    chunks = section_chunks(sections)
    text = (vault / "long.md").read_text()
    assert len(chunks) == len(sections) + 2  # 450 words in one section: three chunks
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text.split()) <= 200
    assert [c.piece for c in chunks if c.heading == "Heading"] == [0, 1, 2]
    assert chunks[-1].text == "## Short\n\nA short section."  # a section holds its heading line
