"""The searcher on a small multi-hop vault, with a deterministic stand-in embedder for speed and clarity."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl
import pytest

from engram_lab.errors import EngramError
from engram_lab.indexer import index_vault
from engram_lab.retrieve.searcher import Searcher
from engram_lab.retrieve.settings import RetrievalSettings, settings_for


class BagOfWordsEmbedder:
    """Hashes words into 256 buckets: similar wording, similar vectors. Not a model, a test double."""

    name = "test-bow"
    dimension = 256

    def encode(self, texts):
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").replace(",", " ").split():
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


NOTES = {
    "film.md": "# Blue Harbour\n\nBlue Harbour is a film directed by Ana Ruiz.\n",
    "person.md": "# Ana Ruiz\n\nAna Ruiz was born in Porto Velho.\n",
    "city.md": "# Porto Velho\n\nPorto Velho is the capital of Rondonia.\n",
    "other.md": "# Green Valley\n\nGreen Valley is a film directed by Tom Hale.\n",
}


@pytest.fixture
def searcher(vault, write):
    for name, text in NOTES.items():
        write(name, text)
    index_vault(vault, progress=False)
    return Searcher(vault, embedder_factory=BagOfWordsEmbedder)


def test_full_mode_follows_the_chain(searcher):
    outcome = searcher.search("Where was the director of Blue Harbour born?", k=3)
    paths = [r.path for r in outcome.results]
    assert paths[0] == "film.md" and "person.md" in paths[:2]
    for result in outcome.results:  # provenance points at the exact text
        text = (searcher.vault / result.path).read_text()
        assert text[result.span[0] : result.span[1]] == result.text
    assert outcome.ranking is not None and outcome.ranking.seeds.facts
    assert "Relations:" in outcome.context and "[film.md, chars" in outcome.context  # evidence with provenance


def test_every_leg_can_be_switched_off(searcher):
    off = RetrievalSettings(lexical=0, entity_dense=0, fact_dense=0, bm25=0, passage_dense=0)
    assert searcher.search("Blue Harbour", k=3, settings=off).results == []
    only_lexical = off.with_(lexical=1.0)
    outcome = searcher.search("Ana Ruiz", k=3, settings=only_lexical)
    assert outcome.ranking.seeds.lexical and outcome.results[0].path in {"person.md", "film.md"}


def test_graph_off_and_dense_differ_from_full_only_in_walking(searcher):
    q = "Where was the director of Blue Harbour born?"
    assert searcher.search(q, k=4, mode="graph-off").ranking.reset is not None
    assert searcher.search(q, k=4, mode="dense").results[0].path == "film.md"


def test_auto_falls_back_to_keywords_before_any_graph_exists(vault, write):
    write("a.md", "# Alpha\n\nAlpha Corp makes sensors.\n")
    index_vault(vault, progress=False)
    loaded = []
    searcher = Searcher(vault, embedder_factory=lambda: loaded.append(1) or BagOfWordsEmbedder())
    outcome = searcher.search("Alpha sensors", k=20, mode="auto")
    assert loaded == [] and outcome.results[0].path == "a.md"
    assert outcome.context.startswith("[partial and possibly stale")


def test_auto_caps_results_and_loads_no_model(searcher, vault, write):
    searcher.search("film", k=3)  # builds the graph with the model
    fresh = Searcher(vault, embedder_factory=lambda: (_ for _ in ()).throw(AssertionError("auto loaded a model")))
    outcome = fresh.search("film directed by", k=50, mode="auto")
    assert 0 < len(outcome.results) <= 8


def test_bad_queries(searcher):
    with pytest.raises(EngramError, match="empty"):
        searcher.search("   ")
    with pytest.raises(EngramError, match="unknown search mode"):
        searcher.search("x", mode="telepathy")


def test_new_notes_show_up_after_the_next_index(searcher, vault, write):
    searcher.search("film", k=2)
    write("new.md", "# Red Canyon\n\nRed Canyon is a film directed by Ana Ruiz.\n")
    index_vault(vault, progress=False)
    assert "new.md" in [r.path for r in searcher.search("Red Canyon film", k=3).results]


def test_csls_follows_the_extractor_unless_set(searcher, vault, tmp_path):
    data = searcher._load_data(allow_stale=False)
    assert data.facts_from_language_model is False  # every fact came from the heuristic extractor
    assert RetrievalSettings().for_facts(False).csls is False and RetrievalSettings().for_facts(True).csls is True
    assert RetrievalSettings(csls=False).for_facts(True).csls is False  # an explicit choice wins

    from engram_lab.engine import Engine

    triples = ", ".join('{"passage": "%s", "extracted_entities": [], "extracted_triples": [%s]}' % (text.split("\n", 2)[2].strip(), spo)
                        for text, spo in [(NOTES["film.md"], '["Blue Harbour", "directed by", "Ana Ruiz"]'),
                                          (NOTES["person.md"], '["Ana Ruiz", "born in", "Porto Velho"]'),
                                          (NOTES["city.md"], '["Porto Velho", "capital of", "Rondonia"]')])
    path = tmp_path / "openie-test-model.json"
    path.write_text('{"docs": [%s]}' % triples)
    assert Engine(vault).import_openie(path).matched == 3
    imported = Searcher(vault, embedder_factory=BagOfWordsEmbedder)
    imported.search("Where was the director of Blue Harbour born?", k=3)
    assert imported.loaded_data.facts_from_language_model is True  # three of four notes' facts are imported


def test_a_note_is_joined_to_the_entity_its_title_names(searcher):
    data = searcher._load_data(allow_stale=False)
    about = data.edges.filter(pl.col("type") == "about")
    names = data.entities["name"].to_list()
    paths = data.documents["path"].to_list()
    pairs = {(paths[s], names[d - data.n_passages]) for s, d in zip(about["src"].to_list(), about["dst"].to_list())}
    assert {("person.md", "Ana Ruiz"), ("city.md", "Porto Velho"), ("film.md", "Blue Harbour")} <= pairs
    assert all(paths[s] != "other.md" or names[d - data.n_passages] == "Green Valley" for s, d in zip(about["src"].to_list(), about["dst"].to_list()))


def test_auto_reads_no_index_of_an_older_layout(searcher, vault):
    import json

    from engram_lab.index.retrieval_index import READABLE_FORMATS, published_retrieval_index

    searcher.search("Ana Ruiz", k=3)  # publishes the retrieval index
    folder = published_retrieval_index(vault)
    assert folder is not None
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps(meta | {"format": min(READABLE_FORMATS) - 1}))  # as an older version left it
    outcome = Searcher(vault, embedder_factory=BagOfWordsEmbedder).search("Ana Ruiz", k=3, mode="auto")
    assert outcome.ranking is None and outcome.results  # BM25 over the notes, not a misread graph
    assert outcome.context.startswith("[partial and possibly stale")


def test_every_fact_maps_to_the_section_that_states_it(vault, write):
    from tests.conftest import notebook_json

    write("long.md", "# Harbour notes\n\nIntro text.\n\n## Film\n\nBlue Harbour is a film directed by Ana Ruiz.\n\n"
                     "## City\n\nPorto Velho is the capital of Rondonia.\n")
    write("study.ipynb", notebook_json([
        {"cell_type": "markdown", "source": "# Study\n\nAna Ruiz was born in Porto Velho.\n"},
        {"cell_type": "code", "source": "print(1)"},
        {"cell_type": "markdown", "source": "## Later\n\nTom Hale was born in Lisbon.\n"},
    ]))
    index_vault(vault, progress=False)
    data = Searcher(vault, embedder_factory=BagOfWordsEmbedder)._load_data(allow_stale=False)
    assert data.facts.height >= 4 and data.facts["cell_id"].drop_nulls().len() > 0  # notebook cells too
    sections = data.fact_sections
    assert (sections >= 0).all()
    for fact, section in zip(data.facts.iter_rows(named=True), sections):
        row = data.sections.row(int(section), named=True)
        assert (row["doc_id"], row["cell_id"]) == (fact["evidence_doc"], fact["cell_id"])
        if fact["start"] is not None and fact["start"] >= row["start"]:
            assert fact["start"] < row["end"]  # inside the section, not merely after its start
    texts = {fact["text"]: data.sections["heading"][int(s)] for fact, s in zip(data.facts.iter_rows(named=True), sections)}
    assert any("Ana Ruiz" in t and h == "Film" for t, h in texts.items())
    assert any("Rondonia" in t and h == "City" for t, h in texts.items())


def test_fact_seeds_lean_towards_facts_stated_where_the_question_points(searcher):
    from engram_lab.retrieve.scoring import fact_scores

    data = searcher._load_data(allow_stale=False)
    flat = np.zeros(data.facts.height)
    section_cos = np.zeros(data.sections.height)
    film = data.sections["doc_id"].to_list().index(data.documents.filter(pl.col("path") == "film.md")["doc_id"][0])
    section_cos[film] = 0.8
    boosted = fact_scores(data, RetrievalSettings(fact_context=0.5), flat, section_cos)
    from_film = data.fact_sections == film
    assert from_film.any() and (~from_film).any()
    assert np.allclose(boosted[from_film], 0.4) and np.allclose(boosted[~from_film], 0.0)
    assert fact_scores(data, RetrievalSettings(fact_context=0.0), flat, section_cos) is flat


def test_results_carry_their_notes_date(vault, write):
    write("old.md", "---\ndate: 2015-03-01\n---\n# Range rule\n\nRanges are written with three dots.\n")
    write("2022-08-07 range syntax.md", "# Range syntax\n\nRanges are written with two dots and an equals sign.\n")
    write("undated.md", "# Loops\n\nLoops run over ranges.\n")
    index_vault(vault, progress=False)
    results = Searcher(vault, embedder_factory=BagOfWordsEmbedder).search("How are ranges written?", k=3).results
    dates = {r.path: r.date for r in results}
    assert dates == {"old.md": "2015-03-01", "2022-08-07 range syntax.md": "2022-08-07", "undated.md": None}
    assert [("date" in r.to_json()) for r in results if r.path == "undated.md"] == [False]
    assert next(r for r in results if r.path == "old.md").to_json()["date"] == "2015-03-01"


def test_graph_off_weighs_passages_and_mentioned_entities_on_one_scale(searcher):
    # Each part is scaled to a maximum of 1 and weighed by the passage share, so the few seeded entities cannot
    # outweigh the passage evidence just because the reset vector spreads the passages' share over every note.
    ranking = searcher.search("Where was the director of Blue Harbour born?", k=4, mode="graph-off").ranking
    n = ranking.doc_scores.size
    share = RetrievalSettings().passage_share
    own = ranking.reset[:n]
    assert ranking.doc_scores.max() <= 1 + 1e-9
    assert ranking.doc_scores[int(np.argmax(own))] >= share - 1e-9


def test_the_walk_may_add_notes_but_not_displace_the_passages_best(searcher):
    q = "film directed"  # the walk alone puts the other film's note first, the passages point at Blue Harbour's
    outcome = searcher.search(q, k=4)
    best = int(np.argmax(outcome.ranking.seeds.passages))
    unpinned = searcher.search(q, k=4, settings=RetrievalSettings(passage_best_first=False)).ranking
    assert int(np.argmax(unpinned.doc_scores)) != best
    assert int(np.argmax(outcome.ranking.doc_scores)) == best
    others = np.arange(unpinned.doc_scores.size) != best
    assert np.array_equal(outcome.ranking.doc_scores[others], unpinned.doc_scores[others])


def test_full_walks_float32_unsplit_auto_split_or_locally_and_a_tight_stop_float64(searcher, monkeypatch):
    import engram_lab.retrieve.scoring as scoring

    walks = []
    real, real_local = scoring.personalized_pagerank, scoring.local_pagerank

    def recorded(graph, reset, damping, tol, parallel=True):
        walks.append((graph.transition_t.dtype, parallel, tol))
        return real(graph, reset, damping, tol=tol, parallel=parallel)

    def recorded_local(graph, reset, damping, epsilon):
        walks.append((graph.transition_t.dtype, "local", epsilon))
        return real_local(graph, reset, damping, epsilon)

    monkeypatch.setattr(scoring, "personalized_pagerank", recorded)
    monkeypatch.setattr(scoring, "local_pagerank", recorded_local)
    question = "Where was the director of Blue Harbour born?"
    full = searcher.search(question, k=3, mode="full")
    auto = searcher.search(question, k=3, mode="auto")
    tight = searcher.search(question, k=3, settings=RetrievalSettings(ppr_tolerance=1e-10))
    local_full = searcher.search(question, k=3, settings=settings_for("full").with_(ppr_local_from=0))
    local_auto = searcher.search(question, k=3, settings=settings_for("auto").with_(ppr_local_from=0))
    assert walks == [(np.float32, False, 1e-4), (np.float32, True, 1e-3), (np.float64, False, 1e-10),
                     (np.float32, "local", 1e-7), (np.float32, "local", 1e-7)]
    # The local walk ranks as the whole one, scores within its bound.
    assert [r.path for r in local_full.results] == [r.path for r in full.results]
    assert [r.path for r in local_auto.results] == [r.path for r in auto.results]
    assert [r.score for r in local_full.results] == pytest.approx([r.score for r in full.results], abs=1e-4)
    assert [r.path for r in tight.results] == [r.path for r in full.results]  # the looser float32 stop ranks the same


def test_a_dense_leg_weighed_zero_reads_no_vectors(searcher, monkeypatch):
    from engram_lab.index.row_vectors import RowVectors

    products = []
    real = RowVectors.__matmul__

    def recorded(self, other):
        products.append(self.shape[0])
        return real(self, other)

    monkeypatch.setattr(RowVectors, "__matmul__", recorded)
    question = "Where was the director of Blue Harbour born?"
    default = searcher.search(question, k=3)  # entity labels weighed 0 by default
    data = searcher._data  # the index the search just read
    sections, entities, facts = data.section_vectors.shape[0], data.entity_vectors.shape[0], data.fact_vectors.shape[0]
    assert len({sections, entities, facts}) == 3  # the products below tell the three stores apart by their rows
    assert products == [sections, facts] and not default.ranking.seeds.entity_dense
    products.clear()
    labels = searcher.search(question, k=3, settings=RetrievalSettings(entity_dense=1.0))
    assert products == [sections, entities, facts] and labels.ranking.seeds.entity_dense
    products.clear()
    searcher.search(question, k=3, mode="dense")
    assert products == [sections]


def test_a_walk_built_for_an_overlay_since_moved_is_let_go(searcher):
    """A warm index run builds the walk for the overlay before its analysis; one that moved the overlay left a second,
    dead matrix beside the new one until the next run (a reviewer's probe: two walks after every such edit)."""
    import dataclasses


    searcher.search("Where was Ana Ruiz born?")
    data, settings = searcher.loaded_data, settings_for("full").for_facts(False)
    before = searcher._current_overlay()
    first = searcher._walk(data, settings, before)
    assert searcher._walk(data, settings, before) is first and len(searcher._walks) == 1
    moved = dataclasses.replace(before, generation=before.generation + 1)
    assert searcher._walk(data, settings, moved) is not first
    assert {key[3] for key in searcher._walks} == {moved.generation} and len(searcher._walks) == 1


def test_prepare_computes_every_part_a_search_reads(searcher):
    """A warm index run prepares the searcher beside its analysis; a part of the index a search computes on first use
    and prepare does not was paid by the first search after each edit (0.55 s at 100,000 notes)."""
    from functools import cached_property

    from engram_lab.index.retrieval_index import SEARCH_READS, RetrievalData

    lazy = [name for name, attr in vars(RetrievalData).items() if isinstance(attr, cached_property)]
    assert set(SEARCH_READS) <= set(lazy)
    searcher.prepare()
    data = searcher.loaded_data
    prepared = {name for name in lazy if name in vars(data)}
    assert set(SEARCH_READS) <= prepared
    for question in ("Where was Ana Ruiz born?", "films directed in Porto Velho", "Green Valley"):
        for mode in ("full", "auto", "graph-off"):
            searcher.search(question, k=3, mode=mode)
    assert searcher.loaded_data is data
    assert {name for name in lazy if name in vars(data)} == prepared
