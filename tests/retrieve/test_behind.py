"""A retrieval index behind the notes: a search answers from it plus keyword hits for the changed notes, and says so;
with none usable it builds one and says why. Never a silent rebuild."""

from __future__ import annotations

import json

import polars as pl

from engram_lab.engine import Engine
from engram_lab.index.retrieval_index import READABLE_FORMATS, published_retrieval_index
from engram_lab.indexer import index_vault
from engram_lab.retrieve.behind import ChangedNotes, changed_notes, choose_index, merge_keyword_hits
from engram_lab.retrieve.results import SearchResult
from engram_lab.retrieve.searcher import Searcher
from engram_lab.state.documents import DocumentRow
from tests.retrieve.test_searcher import NOTES, BagOfWordsEmbedder


def _result(doc: str, score: float) -> SearchResult:
    return SearchResult(0, f"{doc}.md", None, doc, score, (0, 1), None, (), "x", "indexed")


def _row(doc: str, content_hash: str, path: str | None = None) -> DocumentRow:
    return DocumentRow(doc_id=doc, path=path or f"{doc}.md", iri=f"urn:engram:doc:{doc}", kind="markdown", title=doc,
                       content_hash=content_hash, size=1, mtime_ns=1, status="indexed", extractor="heuristic",
                       extractor_version="1", error=None, indexed_at=None, updated_at="")


def test_changed_notes_compares_text_path_status_and_extractor():
    published = pl.DataFrame({"doc_id": ["a", "b", "c"], "path": ["a.md", "b.md", "c.md"], "status": ["indexed"] * 3,
                              "content_hash": ["1", "2", "3"], "extractor": ["heuristic"] * 3})
    changes = changed_notes(published, [_row("a", "1"), _row("b", "2b"), _row("d", "4"), _row("c", "3", "moved.md")])
    assert changes.current == {"b", "d", "c"} and changes.stale == {"b", "c"}
    assert not changed_notes(published, [_row("a", "1"), _row("b", "2"), _row("c", "3")])


def test_changed_notes_take_their_keyword_place_and_stale_ones_go():
    ranked = [_result("a", 0.9), _result("b", 0.5), _result("c", 0.3)]
    keyword = [_result("n", 12.0), _result("a", 8.0), _result("b", 4.0)]
    merged = merge_keyword_hits(ranked, keyword, ChangedNotes(frozenset({"n", "b"}), frozenset({"b"})), k=3)
    assert [(r.doc_id, r.rank, r.score) for r in merged] == [("n", 1, 0.9), ("a", 2, 0.9), ("b", 3, 0.3)]  # b: its new text, at its keyword place


def _indexed(vault, write) -> Engine:
    for name, text in NOTES.items():
        write(name, text)
    engine = Engine(vault, embedder_factory=BagOfWordsEmbedder)
    engine.index(progress=False)
    return engine


def test_full_answers_from_the_published_index_plus_keywords_when_behind(vault, write):
    engine = _indexed(vault, write)
    published = published_retrieval_index(vault)
    write("person.md", "# Ana Ruiz\n\nAna Ruiz grew up in Lisbon and studied film in Madrid.\n")
    (vault / "other.md").unlink()
    index_vault(vault, progress=False)  # the ledger moves on; the retrieval index is not rebuilt
    searcher = Searcher(vault, embedder_factory=BagOfWordsEmbedder)
    outcome = searcher.search("Where did Ana Ruiz study film?", k=4)
    assert published_retrieval_index(vault) == published  # the search built nothing
    assert len([n for n in outcome.notes if "behind the notes" in n]) == 1
    paths = [r.path for r in outcome.results]
    assert "person.md" in paths and "other.md" not in paths and len(paths) == len(set(paths))
    for result in outcome.results:  # spans of changed notes come from the ledger, so they point at today's text
        text = (vault / result.path).read_text()
        assert text[result.span[0] : result.span[1]] == result.text
    assert searcher.search("Where did Ana Ruiz study film?", k=4, mode="auto").notes == []  # auto keeps its own header

    engine.index(progress=False)  # brought up to date: no line any more
    assert Searcher(vault, embedder_factory=BagOfWordsEmbedder).search("Ana Ruiz", k=3).notes == []


def test_a_search_builds_only_when_no_index_is_usable_and_says_why(vault, write):
    for name, text in NOTES.items():
        write(name, text)
    index_vault(vault, progress=False)
    assert choose_index(vault, BagOfWordsEmbedder.name, 0).why_build == "no retrieval index was built for this vault yet"
    outcome = Searcher(vault, embedder_factory=BagOfWordsEmbedder).search("Blue Harbour", k=2)
    assert outcome.notes == ["built the retrieval index first (no retrieval index was built for this vault yet); "
                             "`engram index` builds it ahead of searches"]

    class OtherModel(BagOfWordsEmbedder):
        name = "another-model"

    outcome = Searcher(vault, embedder_factory=OtherModel).search("Blue Harbour", k=2)
    assert "holds vectors of test-bow, not another-model" in outcome.notes[0]

    folder = published_retrieval_index(vault)
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps(meta | {"format": min(READABLE_FORMATS) - 1}))
    outcome = Searcher(vault, embedder_factory=OtherModel).search("Blue Harbour", k=2)
    assert "written by an older version" in outcome.notes[0]
