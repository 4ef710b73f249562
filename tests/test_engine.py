"""Engine.index builds every index a search reads, so the first search afterwards builds nothing and says nothing."""

from __future__ import annotations

from engram_lab.engine import Engine
from engram_lab.index import progress as p
from engram_lab.index.derived import ledger_counters
from engram_lab.index.retrieval_index import fresh_retrieval_index
from tests.retrieve.test_searcher import NOTES, BagOfWordsEmbedder


class CountingEmbedder(BagOfWordsEmbedder):
    """Records every text it is asked to encode."""

    encoded: list[str] = []
    loads = 0

    def __init__(self):
        CountingEmbedder.loads += 1

    def encode(self, texts):
        CountingEmbedder.encoded.extend(texts)
        return super().encode(texts)


def _engine(vault, write) -> Engine:
    for name, text in NOTES.items():
        write(name, text)
    CountingEmbedder.encoded = []
    return Engine(vault, embedder_factory=CountingEmbedder)


def test_index_builds_the_retrieval_index_naming_each_stage(vault, write):
    engine = _engine(vault, write)
    heard: list[str] = []
    engine.index(progress=False, on_stage=lambda stage, done, total: heard.append(stage))
    stages = list(dict.fromkeys(heard))
    assert stages == [p.READ_NOTES, p.KEYWORDS, p.GROUPING, p.EMBED_SECTIONS, p.EMBED_ENTITIES, p.EMBED_FACTS, p.NEIGHBOURS, p.ANALYSIS]
    assert fresh_retrieval_index(vault, CountingEmbedder.name, ledger_counters(vault).sections) is not None

    CountingEmbedder.encoded = []
    outcome = engine.query("Where was the director of Blue Harbour born?", k=3)
    assert outcome.notes == [] and CountingEmbedder.encoded == ["Where was the director of Blue Harbour born?"]
    assert outcome.results[0].path == "film.md"


def test_a_warm_index_run_also_builds_the_matrices(vault, write):
    engine = _engine(vault, write)
    heard: list[str] = []
    engine.index(progress=False, on_stage=lambda stage, done, total: heard.append(stage), warm=True)
    assert heard[-1] == p.MATRICES and engine.searcher.loaded_data is not None and engine.searcher._walks


def test_the_matrices_are_built_beside_the_analysis_and_the_search_uses_them(vault, write, monkeypatch):
    import threading

    from engram_lab.retrieve.searcher import Searcher

    engine = _engine(vault, write)
    engine.index(progress=False)
    calls: list[tuple[str, str, bool]] = []  # (method, thread, whether the analysis had finished)
    real_prepare, real_built, real_analyse = Searcher.prepare, Searcher.prepare_built, Engine._analyse
    analysed = threading.Event()

    def prepare(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(("prepare", threading.current_thread().name, analysed.is_set()))
        return real_prepare(self, *args, **kwargs)

    def prepare_built(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(("prepare_built", threading.current_thread().name, analysed.is_set()))
        return real_built(self, *args, **kwargs)

    def analyse(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        result = real_analyse(self, *args, **kwargs)
        analysed.set()
        return result

    monkeypatch.setattr(Searcher, "prepare", prepare)
    monkeypatch.setattr(Searcher, "prepare_built", prepare_built)
    monkeypatch.setattr(Engine, "_analyse", analyse)
    write("city.md", "# Porto Velho\n\nPorto Velho lies on the Madeira River. Ana Ruiz was born in Porto Velho.\n")
    engine.index(progress=False, warm=True)
    assert [c[:2] for c in calls] == [("prepare_built", "engram-prepare_0"), ("prepare", threading.main_thread().name)]
    assert calls[-1][2]  # the last prepare came after the analysis
    walks = dict(engine.searcher._walks)
    assert any(key[3] == ledger_counters(vault).overlay for key in walks)  # for the overlay the analysis left
    assert walks and engine.query("Madeira River").results[0].path == "city.md"
    assert engine.searcher._walks == walks  # the search found the walk built: it built none of its own


def test_a_walk_built_before_the_index_was_published_serves_its_searches(vault, write, monkeypatch):
    """When the analysis leaves the overlay as it was, the walk ``prepare_built`` made for the new index (before its
    files were written) is the one the prepare after the analysis and the search use: built once."""
    import engram_lab.retrieve.searcher as searcher_module

    engine = _engine(vault, write)
    engine.index(progress=False, warm=True)
    built: list[int] = []
    real = searcher_module.adjacency
    monkeypatch.setattr(searcher_module, "adjacency", lambda *a, **k: built.append(1) or real(*a, **k))
    overlay = ledger_counters(vault).overlay
    write("film.md", NOTES["film.md"] + "\nIt rained all week.\n")
    engine.index(progress=False, warm=True)
    assert ledger_counters(vault).overlay == overlay  # the edit moved no judgment
    data = engine.searcher.loaded_data
    assert data is not None and "rained" in " ".join(data.sections["text"].to_list())
    assert engine.query("Where was the director of Blue Harbour born?").results[0].path == "film.md"
    assert built == [1]


def test_a_failure_preparing_beside_the_analysis_is_raised_by_the_prepare_after_it(vault, write, monkeypatch):
    import pytest

    from engram_lab.errors import EngramError
    from engram_lab.retrieve.searcher import Searcher

    engine = _engine(vault, write)
    monkeypatch.setattr(Searcher, "prepare", lambda self, *a, **k: (_ for _ in ()).throw(EngramError("broken index")))
    with pytest.raises(EngramError, match="broken index"):
        engine.index(progress=False, warm=True)


def test_the_first_warm_run_with_nothing_to_analyse_reads_the_analysis_state_once(vault, write, monkeypatch):
    """A long-lived process's start-up pays for what the first edit's focused pass would otherwise read."""
    import engram_lab.engine as engine_module

    _engine(vault, write).index(progress=False)
    warmed: list[object] = []
    real = engine_module.warm_analysis
    monkeypatch.setattr(engine_module, "warm_analysis", lambda vault: (warmed.append(vault), real(vault)))
    edges: list[object] = []
    real_edges = engine_module.warm_edges
    monkeypatch.setattr(engine_module, "warm_edges", lambda data: (edges.append(data), real_edges(data)))
    engine = Engine(vault, embedder_factory=CountingEmbedder)
    engine.index(progress=False)
    assert warmed == [] and edges == []  # a one-off run (the CLI) keeps nothing
    engine.index(progress=False, warm=True)
    engine.index(progress=False, warm=True)
    assert warmed == [vault] and len(edges) == 1
    write("city.md", "# Porto Velho\n\nPorto Velho lies on the Madeira River.\n")
    engine.index(progress=False, warm=True)
    assert warmed == [vault] and engine.query("Madeira River").results[0].path == "city.md"


def test_an_edit_embeds_only_the_changed_texts(vault, write):
    engine = _engine(vault, write)
    engine.index(progress=False)
    first = set(CountingEmbedder.encoded)
    CountingEmbedder.encoded = []
    write("city.md", "# Porto Velho\n\nPorto Velho is the capital of Rondonia.\n\nIt lies on the Madeira River.\n")
    engine.index(progress=False)
    again = set(CountingEmbedder.encoded)
    assert again and not again & first  # only texts never embedded before
    assert all("Blue Harbour" not in text and "Green Valley" not in text for text in again)


def test_an_index_run_with_nothing_changed_loads_no_model(vault, write):
    engine = _engine(vault, write)
    engine.index(progress=False)
    CountingEmbedder.loads = 0
    Engine(vault, embedder_factory=CountingEmbedder).index(progress=False)
    assert CountingEmbedder.loads == 0  # the index is current for this model's name: nothing to load
    write("new.md", "# Red Canyon\n\nRed Canyon is a film.\n")
    Engine(vault, embedder_factory=CountingEmbedder).index(progress=False)
    assert CountingEmbedder.loads == 1


def test_an_edit_reads_no_document_row_whole_and_both_derived_indexes_share_one_read(vault, write, monkeypatch):
    import engram_lab.indexer as indexer_module
    import engram_lab.state.document_rows as rows_module
    from engram_lab.state.documents import DocumentTable

    engine = _engine(vault, write)
    engine.index(progress=False)
    write("city.md", "# Porto Velho\n\nPorto Velho lies on the Madeira River.\n")
    whole: list[int] = []
    real = DocumentTable.all
    monkeypatch.setattr(DocumentTable, "all", lambda self: whole.append(1) or real(self))
    taken: list[int] = []
    real_rows = rows_module.all_document_rows
    monkeypatch.setattr(rows_module, "all_document_rows", lambda conn: taken.append(1) or real_rows(conn))
    monkeypatch.setattr(indexer_module, "all_document_rows", rows_module.all_document_rows)
    engine.index(progress=False)
    assert not whole  # the rows this process read before, patched from the ledger's log
    assert len(taken) == 2  # the run's comparison with the files, and one read shared by the keyword and retrieval indexes
    assert engine.query("Madeira River", mode="keyword").results[0].path == "city.md"
    assert engine.query("Madeira River").results[0].path == "city.md"


def test_the_first_edit_after_loading_the_indexes_patches_them_without_reading_them_again(vault, write, monkeypatch):
    """A warm start (or a search) loads the published indexes; the first edit used to read them from disk again to
    patch them (at 100,000 notes, ~0.6 s of that edit alone)."""
    import engram_lab.index.keyword as keyword_module
    import engram_lab.index.retrieval_index as retrieval_module
    from engram_lab.index.recent import forget

    engine = _engine(vault, write)
    engine.index(progress=False)
    forget()  # a new process: nothing it built is kept
    engine = Engine(vault, embedder_factory=CountingEmbedder)
    engine.index(progress=False, warm=True)  # loads the retrieval index from disk
    engine.query("Porto Velho")  # and a search, the keyword index
    reads: list[str] = []
    real_pairs, real_counts = retrieval_module._read_pairs, keyword_module.TermCounts.load
    monkeypatch.setattr(retrieval_module, "_read_pairs", lambda folder: reads.append("retrieval") or real_pairs(folder))
    monkeypatch.setattr(keyword_module.TermCounts, "load", lambda folder: reads.append("keyword") or real_counts(folder))
    write("city.md", "# Porto Velho\n\nPorto Velho lies on the Madeira River.\n")
    engine.index(progress=False, warm=True)
    assert reads == []
    assert engine.query("Madeira River").results[0].path == "city.md"


def test_a_warm_start_fills_what_the_first_edit_would_compute_for_itself(vault, write, monkeypatch):
    """The first edit after start-up was the slow one of every run (the p95 of a short run): it worked out the
    resolution state, its digest and every file name's date that later edits find kept."""
    import engram_lab.resolve.overlay as overlay_module
    from engram_lab.index.recent import forget
    from engram_lab.vault.note_date import date_in_file_name

    _engine(vault, write).index(progress=False)
    forget()
    date_in_file_name.cache_clear()
    engine = Engine(vault, embedder_factory=CountingEmbedder)
    engine.index(progress=False, warm=True)
    worked_out: list[int] = []
    real = overlay_module.resolve_state
    monkeypatch.setattr(overlay_module, "resolve_state", lambda *a: worked_out.append(1) or real(*a))
    misses, overlay = date_in_file_name.cache_info().misses, ledger_counters(vault).overlay
    write("lanterns.md", "# Lantern log\n\nZephyrine quartz lanterns were seen at Kestrel Moor.\n")
    engine.index(progress=False, warm=True)
    assert ledger_counters(vault).overlay == overlay  # no judgment moved: the state need not be worked out again
    assert worked_out == [] and date_in_file_name.cache_info().misses == misses + 1  # the new note's own date only
    assert engine.query("Zephyrine quartz lanterns").results[0].path == "lanterns.md"


def test_a_warm_start_ends_with_a_full_collection_and_only_the_first(vault, write, monkeypatch):
    """Start-up's kept objects left in the young generations were walked by every young collection of the first edit
    (at 100,000 notes that edit took 13 s against 9 s for the others; one collection after the warm start: 0.3 s)."""
    import engram_lab.engine as engine_module

    _engine(vault, write).index(progress=False)
    collected: list[int] = []
    monkeypatch.setattr(engine_module.gc, "collect", lambda *a: collected.append(1) or 0)
    engine = Engine(vault, embedder_factory=CountingEmbedder)
    engine.index(progress=False)
    assert collected == []  # a one-off run (the CLI) exits soon enough
    engine.index(progress=False, warm=True)
    assert collected == [1]
    write("city.md", "# Porto Velho\n\nPorto Velho lies on the Madeira River.\n")
    engine.index(progress=False, warm=True)
    assert collected == [1]


def _resolution_outcome(vault) -> tuple[object, ...]:
    """What an analysis leaves: decisions in force, the review queue, the supersession candidates and the overlay graph."""
    from engram_lab.graph import vocabulary as v
    from engram_lab.graph.store import STORE_DIR, GraphStore
    from engram_lab.state.db import engram_dir, ledger_connection
    from engram_lab.state.decisions import DecisionLedger
    from engram_lab.state.review import ReviewQueue

    with ledger_connection(vault) as conn:
        decisions = sorted((d.subject, d.object, d.verdict, d.actor, d.active) for d in DecisionLedger(conn).all())
        queue = sorted(ReviewQueue(conn).keys())
        candidates = sorted((c.earlier, c.later) for c in ReviewQueue(conn).candidates())
    store = GraphStore(engram_dir(vault) / STORE_DIR)
    try:
        overlay = sorted(str(q) for q in store.quads(v.OVERLAY_GRAPH))
    finally:
        store.close()
    return decisions, queue, candidates, overlay


RESOLVING = {
    "a.md": "# Northern Estuary Research Institute\n\nThe Northern Estuary Research Institute (NERI) studies tides.\n\n"
            "## Decisions\n- 2026-01-14 Decision: deploy CT-200 sensors at every station.\n",
    "b.md": "# Tides\n\nNERI measured the tides. Ana Ruiz leads the Nothern Estuary Research Institute.\n",
    "c.md": "# Sensor review\n\n## Decisions\n- 2026-03-18 Decision: replace the CT-200 sensors with AS-5 probes.\n",
    "e.md": "# Boats\n\nThe survey boat Heron carries the CT-200.\n",
    "f.md": "# Weather\n\nStorms close the estuary in March.\n",
}


def test_an_edits_analysis_reads_the_tables_beside_the_build_and_decides_as_it_would_after_it(tmp_path, monkeypatch):
    """A focused pass takes its reads of the tables from a thread started when the notes were indexed, and reads
    none itself; what it decides (judgments, queue, candidates, overlay) is what the same pass decides reading them
    itself. A first run, a full run and a run with nothing changed read nothing beside the build."""
    import threading

    from engram_lab.resolve import run

    outcomes, threads = [], []
    real = run.read_inputs
    for beside in (True, False):
        threads.clear()
        vault = tmp_path / f"vault-{beside}"
        vault.mkdir()
        for name, text in RESOLVING.items():
            (vault / name).write_text(text, encoding="utf-8")
        engine = Engine(vault, embedder_factory=CountingEmbedder)
        recording = lambda v: threads.append(threading.current_thread().name) or real(v)  # noqa: E731
        monkeypatch.setattr("engram_lab.engine.read_inputs", recording)
        monkeypatch.setattr(run, "read_inputs", recording)  # the pass's own read, when it makes one
        engine.index(progress=False)
        assert threads == ["MainThread"]  # a first run: the analysis reads after the build
        before = _resolution_outcome(vault)
        if not beside:
            monkeypatch.setattr(Engine, "_reads_beside", lambda self, report, full: None)
        (vault / "d.md").write_text("# Staff\n\nTom Hale joined NERI. Tom Hale works for the Northern Estuary Research "
                                    "Institute.\n\n## Decisions\n- 2026-04-02 Decision: replace the AS-5 probes at every "
                                    "station with CT-200 sensors.\n", encoding="utf-8")
        (vault / "b.md").write_text(RESOLVING["b.md"] + "The N.E.R.I. board met.\n", encoding="utf-8")
        engine.index(progress=False, warm=True)
        outcomes.append(_resolution_outcome(vault))
        assert outcomes[-1][1:3] != before[1:3]  # the edit's pass queued or found something new
        assert threads == ["MainThread", "engram-analysis_0" if beside else "MainThread"]
        if beside:
            engine.index(progress=False)  # nothing changed
            (vault / "f.md").write_text(RESOLVING["f.md"] + "Floods follow.\n", encoding="utf-8")
            engine.index(progress=False, full=True)
            assert threads[2:] == ["MainThread"]  # the full pass read the tables itself, after the build
        monkeypatch.undo()
    assert outcomes[0] == outcomes[1] and all(outcomes[0][1:3])  # pairs queued and candidates found


def test_reads_beside_the_build_are_dropped_when_another_writer_indexed_meanwhile(vault, write, monkeypatch):
    """Tables read before another process indexed more notes are not analysed under the generation that process
    reached: the pass reads the tables again, and records the generation of what it read."""
    import threading

    from engram_lab.indexer import index_vault
    from engram_lab.resolve import run
    from engram_lab.state.db import ANALYSED_GENERATION, open_ledger, read_counter

    engine = _engine(vault, write)
    for name, text in RESOLVING.items():
        write(name, text)
    engine.index(progress=False)
    threads: list[str] = []
    real_read, real_build = run.read_inputs, Engine._build_search_indexes
    recording = lambda v: threads.append(threading.current_thread().name) or real_read(v)  # noqa: E731
    monkeypatch.setattr("engram_lab.engine.read_inputs", recording)
    monkeypatch.setattr(run, "read_inputs", recording)

    def build_while_another_indexes(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        real_build(self, *args, **kwargs)
        write("late.md", "# Late\n\nTom Hale joined the Northern Estuary Research Institute.\n")
        index_vault(vault, progress=False)  # another process, between the reads and the analysis

    monkeypatch.setattr(Engine, "_build_search_indexes", build_while_another_indexes)
    write("b.md", RESOLVING["b.md"] + "The N.E.R.I. board met.\n")
    engine.index(progress=False)
    assert threads == ["engram-analysis_0", "MainThread"]  # read beside the build, then again by the pass
    conn = open_ledger(vault)
    try:
        assert read_counter(conn, ANALYSED_GENERATION) == ledger_counters(vault).sections
    finally:
        conn.close()
