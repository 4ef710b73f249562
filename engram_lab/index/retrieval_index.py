"""The retrieval index: passages, entities and facts with their vectors, and the typed edge list.

Built from the ledger (sections) and the Parquet tables (entities, relations,
mentions), published atomically with the ledger generation it reflects. Nodes of
the graph are entities and passages (one passage node per document; its
sections are what dense and BM25 seeding score).

After an edit the previous index is patched, not rebuilt: unchanged documents keep
their chunk rows, unchanged texts their vectors, and each kind's neighbour lists
(densities, synonym pairs) are patched for the rows that moved (``neighbour_lists``).
Entities and facts are patched from the last grouping (``grouping``), the edges made again from them (polars).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
import polars as pl

from engram_lab.extract.openie import IMPORT_PREFIX
from engram_lab.graph import vocabulary as v
from engram_lab.index.changes import DocumentChanges, chunks_of, document_changes, snapshot_signatures
from engram_lab.index.chunks import Chunk, section_chunks
from engram_lab.index.derived import GENERATION_FILE, current_if_fresh, index_dir
from engram_lab.index.embeddings import Embedder, EmbeddingCache
from engram_lab.index.grouping import group_entities, group_facts, links_of, patch_entities, patch_facts
from engram_lab.index.note_links import note_link_resolver
from engram_lab.index.neighbour_lists import NeighbourLists, build_neighbour_lists, patch_pairs
from engram_lab.index.progress import EMBED_ENTITIES, EMBED_FACTS, EMBED_SECTIONS, GROUPING, NEIGHBOURS, StageProgress
from engram_lab.index.publish import current_index_dir, publish_index
from engram_lab.index.recent import recall, remember
from engram_lab.index.row_vectors import RowVectors, load_vectors, save_vectors
from engram_lab.index.slot_lists import RowListsOnDisk, SlotLists, has_slot_lists, load_slot_lists, moved_slots, patch_slot_lists, save_slot_lists
from engram_lab.index.tables import TABLES_DIR, TableStore
from engram_lab.index.vector_reuse import kept_origin, match_rows, old_to_new, patch_vectors
from engram_lab.retrieve.csls import DEFAULT_K
from engram_lab.state.db import engram_dir, open_ledger
from engram_lab.state.document_rows import DocumentReads
from engram_lab.state.documents import DocumentTable
from engram_lab.vault.note_date import date_in_file_name

RETRIEVAL_INDEX = "retrieval"
INDEX_FORMAT = 16  # bump when the saved layout changes: older folders are rebuilt, not misread
READABLE_FORMATS = (15, INDEX_FORMAT)  # 15: neighbour lists over rows, read as lists over slots
# The walk's edge types, in the order a string sort would give; an Enum groups and sorts ~40 % faster than strings
# (the edges are rebuilt on every edit) and compares as one in filters (``pl.col("type") == "mention"``).
EDGE_TYPE = pl.Enum(["about", "hierarchy", "link", "mention", "relation", "synonym"])
SYNONYM_NEIGHBOURS = 32
SYNONYM_FLOOR = 0.75  # the lowest synonym threshold in use: pairs above it are kept (a patch assumes the same floor)
# Rows each list holds beyond the DEFAULT_K that densities read, so an edit that removes vectors seldom leaves a list
# too short to keep (``neighbour_lists``): a recomputed list is one pass over every vector of its kind.
LIST_SLACK = 6


@dataclass
class RetrievalData:
    """Everything search needs, in memory."""

    folder: Path
    model: str
    documents: pl.DataFrame  # doc_id, path, title, status, extractor, content_hash, signature, date (row i = passage node i)
    sections: pl.DataFrame  # passages: chunks of sections (index.chunks); doc_id, ordinal, piece, doc_index, cell_id, heading, heading_path, start, end, text
    entities: pl.DataFrame  # entity_iri, name, kind, labels (names and aliases), passages (count)
    facts: pl.DataFrame  # s, o (entity indices), subject, predicate, object (as written), text, doc_ids
    edges: pl.DataFrame  # src, dst (node indices), type (relation, hierarchy, mention, link, about), weight
    section_vectors: RowVectors  # rows of a store shared with earlier index folders (``row_vectors``)
    section_density: np.ndarray
    entity_vectors: RowVectors
    entity_density: np.ndarray
    fact_vectors: RowVectors
    fact_density: np.ndarray
    synonym_pairs: pl.DataFrame  # a, b (entity indices), cosine: nearest neighbours above the lowest threshold in use
    section_lists: SlotLists | RowListsOnDisk  # what the densities and synonym pairs come from, over the vectors' slots
    entity_lists: SlotLists | RowListsOnDisk  # (``as_slots``): kept for the next patch
    fact_lists: SlotLists | RowListsOnDisk
    name_labels: pl.Series | None = None  # ``labels_of`` the entity names, once made: the next patch's edges keep them

    def entity_labels(self) -> pl.Series:
        """``labels_of`` each entity's name (the about edges join them to the note titles)."""
        if self.name_labels is None:
            self.name_labels = labels_of(self.entities["name"])
        return self.name_labels

    @property
    def n_passages(self) -> int:
        return self.documents.height

    @property
    def n_entities(self) -> int:
        return self.entities.height

    def entity_node(self, index: int) -> int:
        return self.n_passages + index

    def ready_for_search(self) -> None:
        """Compute now what every search reads and each new index computes once (``Searcher.prepare``, beside an
        edit's analysis): the first search after an edit at 100,000 notes spent 0.55 s of its 0.8 s on them."""
        for name in SEARCH_READS:
            getattr(self, name)

    def section_rows(self, keys: Sequence[tuple[str, int, int]]) -> list[int | None]:
        """The passage row of each (doc_id, ordinal, piece), or None: each note's rows found by one binary search over
        the sections, which are sorted by note (a dictionary of every chunk took 0.12 s per new index at 100,000
        notes, for the few dozen keys a search looks up)."""
        doc_ids = self.sections["doc_id"]
        if not keys or not self._sections_by_doc_id:
            position = self._section_position
            return [position.get(key) for key in keys]
        wanted = pl.Series([key[0] for key in keys], dtype=pl.String)
        starts = doc_ids.search_sorted(wanted, side="left").to_numpy()
        ends = doc_ids.search_sorted(wanted, side="right").to_numpy()
        ordinals, pieces = self._ordinals_and_pieces
        return [next((row for row in range(start, end) if ordinals[row] == ordinal and pieces[row] == piece), None)
                for (_, ordinal, piece), start, end in zip(keys, starts.tolist(), ends.tolist())]

    @cached_property
    def _sections_by_doc_id(self) -> bool:
        return bool(self.sections["doc_id"].is_sorted())

    @cached_property
    def _ordinals_and_pieces(self) -> tuple[np.ndarray, np.ndarray]:
        return self.sections["ordinal"].to_numpy(), self.sections["piece"].to_numpy()

    @cached_property
    def _section_position(self) -> dict[tuple[str, int, int], int]:
        """(doc_id, ordinal, piece) -> passage row, for sections not sorted by note (none this version writes)."""
        keys = zip(self.sections["doc_id"].to_list(), self.sections["ordinal"].to_list(), self.sections["piece"].to_list())
        return dict(zip(keys, range(self.sections.height)))

    @cached_property
    def chunks_per_note(self) -> np.ndarray:
        """Per passage node (note or cell), how many chunks it was cut into: its length, for the walk's normalisation."""
        return np.bincount(self.sections["doc_index"].to_numpy(), minlength=self.n_passages).astype(np.float64)

    @cached_property
    def _sections_by_note(self) -> tuple[np.ndarray, np.ndarray]:
        doc_index = self.sections["doc_index"].to_numpy()
        order = np.argsort(doc_index, kind="stable")
        return order, np.searchsorted(doc_index[order], np.arange(self.n_passages + 1))

    def note_sections(self, note: int) -> np.ndarray:
        """The passage rows (chunks) of one note, in order."""
        order, bounds = self._sections_by_note
        return order[bounds[note]:bounds[note + 1]]

    @cached_property
    def note_days(self) -> np.ndarray:
        """Per note, its date (``vault.note_date``) as a day number, NaN when undated: questions about change compare them."""
        if "date" not in self.documents.columns:
            return np.full(self.n_passages, np.nan)
        return day_numbers(self.documents["date"])

    def note_year(self, note: int) -> int | None:
        day = self.note_days[note]
        return None if np.isnan(day) else dt.date.fromordinal(int(day)).year

    @cached_property
    def entity_position(self) -> Mapping[str, int]:
        """Entity IRI -> entity index: by binary search over the IRIs, which every grouping keeps sorted (a dictionary
        of 580,000 IRIs took 0.35 s of each new index at 100,000 notes, for the few a search looks up)."""
        iris = self.entities["entity_iri"]
        return SortedPositions(iris) if iris.is_sorted() else dict(zip(iris.to_list(), range(iris.len())))

    @cached_property
    def doc_paths(self) -> dict[str, str]:
        """Document id -> vault path, built once per loaded index."""
        return dict(zip(self.documents["doc_id"].to_list(), self.documents["path"].to_list()))

    @cached_property
    def _facts_by_subject(self) -> tuple[np.ndarray, np.ndarray]:
        """The facts' subjects sorted, and the fact of each (a stable sort: ascending within one subject)."""
        subjects = self.facts["s"].to_numpy()
        order = np.argsort(subjects, kind="stable")
        return subjects[order], order

    def facts_of_subject(self, entity: int) -> np.ndarray:
        """The facts ``entity`` is the subject of, ascending, so evidence lookups touch only those (a dictionary of
        every subject's facts took 0.05 s to build on each new index at 10,000 notes: once per edit)."""
        subjects, order = self._facts_by_subject
        return order[np.searchsorted(subjects, entity, "left") : np.searchsorted(subjects, entity, "right")]

    @cached_property
    def fact_sections(self) -> np.ndarray:
        """Per fact, the section row that states it (the last section of its cell starting at or before the
        fact's span), or -1 when its document has no section; a fact without a span maps to its cell's first section."""
        out = np.full(self.facts.height, -1, dtype=np.int64)
        if self.facts.is_empty() or self.sections.is_empty():
            return out
        keys = [pl.col("doc_id"), pl.col("cell_id").fill_null("")]
        sections = (self.sections.select(*keys, pl.col("start").fill_null(0), pl.int_range(pl.len()).alias("section"))
                    .sort("start"))
        facts = (self.facts.select(pl.col("evidence_doc").alias("doc_id"), pl.col("cell_id").fill_null(""),
                                   pl.col("start").fill_null(0), pl.int_range(pl.len()).alias("fact"))
                 .sort("start"))
        joined = facts.join_asof(sections, on="start", by=["doc_id", "cell_id"], strategy="backward",
                                check_sortedness=False)  # both sorted by start, hence within every group
        # A fact whose span starts before its cell's first section (frontmatter, say) belongs to that first section.
        first = sections.group_by(["doc_id", "cell_id"]).agg(pl.col("section").first().alias("first"))
        joined = joined.join(first, on=["doc_id", "cell_id"], how="left").with_columns(pl.coalesce("section", "first").alias("section"))
        found = joined.filter(pl.col("section").is_not_null())
        out[found["fact"].to_numpy()] = found["section"].to_numpy()
        return out

    @cached_property
    def facts_from_language_model(self) -> bool:
        """Whether most facts come from a language model (the LLM extractor or imported triples), not the heuristic one."""
        if self.facts.is_empty():
            return False
        extractor = self.documents.select(pl.col("doc_id").alias("evidence_doc"), "extractor")
        joined = self.facts.select("evidence_doc").join(extractor, on="evidence_doc", how="left")
        by_model = joined.filter((pl.col("extractor") == "llm") | pl.col("extractor").str.starts_with(IMPORT_PREFIX)).height
        return by_model * 2 > self.facts.height  # by a join: a loop over the facts took 0.09 s of each edit

    @cached_property
    def anchor_texts(self) -> list[str]:
        """Each fact as HippoRAG 2 embeds it (``anchor_fact_text``), made when the hipporag2 mode first asks: an edit
        wrote them for every fact (700,000 at 100,000 notes), for a mode only comparisons use."""
        return [anchor_fact_text(*triple) for triple in
                zip(self.facts["subject"].to_list(), self.facts["predicate"].to_list(), self.facts["object"].to_list())]

    @cached_property
    def entity_neighbours(self) -> NeighbourSets:
        """Entity adjacency over relation and hierarchy edges (entity indices), for bridge search."""
        part = self.edges.filter(pl.col("type").is_in(["relation", "hierarchy"]))
        return NeighbourSets(part["src"].to_numpy() - self.n_passages, part["dst"].to_numpy() - self.n_passages)


_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()  # a polars Date counts days from it


def day_numbers(dates: pl.Series) -> np.ndarray:
    """Each date's ``toordinal()`` as a float, NaN where there is none: by column operations (a loop over every
    note's date took a tenth of a second per new index at 100,000 dated notes)."""
    days = dates.cast(pl.Date).cast(pl.Int64).cast(pl.Float64)  # days since 1970-01-01
    return (days + float(_EPOCH_ORDINAL)).fill_null(np.nan).to_numpy()


# The lazily computed parts of an index that a search reads (``ready_for_search``); the rest serve rarer paths.
SEARCH_READS = ("_sections_by_doc_id", "_ordinals_and_pieces", "chunks_per_note", "note_days", "entity_position", "doc_paths", "_facts_by_subject",
                "fact_sections", "facts_from_language_model", "entity_neighbours")


class SortedPositions(Mapping[str, int]):
    """Key -> its row in a sorted column of distinct strings, found by binary search. Each lookup crosses into polars
    (~0.1 ms), so keys found are remembered, and ``found`` looks many up in one search."""

    def __init__(self, keys: pl.Series) -> None:
        self._keys = keys
        self._rows: dict[str, int | None] = {}

    def found(self, keys: Iterable[str]) -> dict[str, int]:
        """The rows of those ``keys`` the column holds."""
        wanted = [key for key in dict.fromkeys(keys) if isinstance(key, str)]
        if not wanted or not self._keys.len():
            return {}
        at = np.minimum(self._keys.search_sorted(pl.Series(wanted, dtype=pl.String), side="left").to_numpy(), self._keys.len() - 1)
        hit = self._keys.gather(at).to_numpy() == np.asarray(wanted, dtype=object)
        return {key: int(row) for key, row, ok in zip(wanted, at.tolist(), hit.tolist()) if ok}

    def __getitem__(self, key: str) -> int:
        if not isinstance(key, str):
            raise KeyError(key)
        if key not in self._rows:
            self._rows[key] = self.found([key]).get(key)
        if (row := self._rows[key]) is None:
            raise KeyError(key)
        return row

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys.to_list())

    def __len__(self) -> int:
        return self._keys.len()


def positions_of(positions: Mapping[str, int], keys: Iterable[str]) -> dict[str, int]:
    """The rows of those ``keys`` that ``positions`` holds: one search where it is a ``SortedPositions``."""
    if isinstance(positions, SortedPositions):
        return positions.found(keys)
    return {key: positions[key] for key in keys if key in positions}


class NeighbourSets(Mapping[int, set[int]]):
    """Node -> its neighbours over the edges a[i] - b[i] in both directions, each set made when asked for and filled
    in edge order (the bridge search walks sets in their iteration order, so this equals adding both ends edge by
    edge, order included); nodes iterate in order of first appearance. Every set made up front took 0.08 s of the
    first search after each edit at 10,000 notes, for the few nodes a search visits."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        size = 2 * len(a)
        nodes, others = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
        nodes[0::2], nodes[1::2], others[0::2], others[1::2] = a, b, b, a
        # By node, ties in edge order: a sort of keys made unique by the position (a stable argsort took twice as long,
        # and each new index after an edit makes these sets); each node's first entry then gives its first appearance.
        order = np.sort(nodes * max(size, 1) + np.arange(size)) % max(size, 1)
        self._nodes, self._others = nodes[order], others[order]
        starts = np.flatnonzero(np.r_[True, self._nodes[1:] != self._nodes[:-1]]) if size else np.zeros(0, dtype=np.int64)
        self._keys = self._nodes[starts][np.argsort(order[starts], kind="stable")]

    def __getitem__(self, node: int) -> set[int]:
        lo, hi = np.searchsorted(self._nodes, [node, node + 1])
        if lo == hi:
            raise KeyError(node)
        return set(self._others[lo:hi].tolist())

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, (int, np.integer)):
            return False
        lo, hi = np.searchsorted(self._nodes, [node, node + 1])
        return bool(hi > lo)

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys.tolist())

    def __len__(self) -> int:
        return int(self._keys.size)


_SECTION_SCHEMA = {"doc_id": pl.String, "ordinal": pl.Int64, "piece": pl.Int64, "doc_index": pl.Int64, "cell_id": pl.String,
                   "heading": pl.String, "heading_path": pl.String, "start": pl.Int64, "end": pl.Int64, "text": pl.String}


def _chunk_rows(chunks: list[Chunk]) -> pl.DataFrame:
    return pl.DataFrame(
        {"doc_id": [c.doc_id for c in chunks], "ordinal": [c.ordinal for c in chunks], "piece": [c.piece for c in chunks],
         "doc_index": [0] * len(chunks), "cell_id": [c.cell_id for c in chunks], "heading": [c.heading for c in chunks],
         "heading_path": [" > ".join(c.heading_path) for c in chunks], "start": [c.start for c in chunks],
         "end": [c.end for c in chunks], "text": [c.text for c in chunks]},
        schema=_SECTION_SCHEMA,
    )


def _section_frame(vault: Path, previous: RetrievalData | None,
                   reads: DocumentReads | None = None) -> tuple[pl.DataFrame, pl.DataFrame, int, DocumentChanges | None]:
    """Documents and chunk rows as the ledger holds them now, and the changes they were patched by from ``previous``
    (only the changed documents' sections read and chunked), or None when they were read whole."""
    conn = open_ledger(vault)
    try:
        table = DocumentTable(conn)
        snapshot = (reads or DocumentReads()).take(table)
        generation, rows = snapshot.generation, snapshot.rows
        now = snapshot_signatures(snapshot)
        changes: DocumentChanges | None = None
        if previous is not None and "signature" in previous.documents.columns:
            before = dict(zip(previous.documents["doc_id"].to_list(), previous.documents["signature"].to_list()))
            changes = document_changes(before, now)
            if not changes.worth_patching(len(rows)):
                changes = None
        chunks = chunks_of(table, changes.changed) if changes is not None else section_chunks(table.sections())
    finally:
        conn.close()
    documents = pl.DataFrame(
        {"doc_id": [r.doc_id for r in rows], "path": [r.path for r in rows], "title": [r.title or r.path for r in rows],
         "status": [r.status for r in rows], "extractor": [r.extractor for r in rows],
         "content_hash": [r.content_hash for r in rows], "signature": list(now.values())},  # in row order
        schema={"doc_id": pl.String, "path": pl.String, "title": pl.String, "status": pl.String, "extractor": pl.String,
                "content_hash": pl.String, "signature": pl.String},
    )
    frame = _chunk_rows(chunks)
    if changes is not None and previous is not None:
        kept = previous.sections.filter(~pl.col("doc_id").is_in(list(changes.touched)))
        frame = pl.concat([kept, frame], how="vertical").sort(["doc_id", "ordinal", "piece"], maintain_order=True)
    position = pl.DataFrame({"doc_id": documents["doc_id"], "doc_index": pl.int_range(documents.height, eager=True)})
    frame = frame.drop("doc_index").join(position, on="doc_id", how="left", maintain_order="left").select(list(_SECTION_SCHEMA))
    return documents, frame, generation, changes


def _with_dates(documents: pl.DataFrame, stored: pl.DataFrame) -> pl.DataFrame:
    """Each note's date (``vault.note_date``, stored when it was indexed; else the date in its file name)."""
    dates = stored.select("doc_id", "date").unique("doc_id", keep="last")
    joined = documents.join(dates, on="doc_id", how="left", maintain_order="left")
    from_name = _file_name_dates(joined["path"])
    return joined.with_columns(pl.col("date").fill_null(pl.Series(from_name, dtype=pl.Date)))


def _file_name_dates(paths: pl.Series) -> list[dt.date | None]:
    """The date in each path's file name (``date_in_file_name``, remembered per path)."""
    return [date_in_file_name(path) for path in paths.to_list()]


@lru_cache(maxsize=1 << 18)
def _plain(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text.lower()).split())


def anchor_fact_text(subject: str, predicate: str, obj: str) -> str:
    """A fact as HippoRAG 2 embeds it: the lower-cased triple written as a Python tuple (hipporag2 mode only).

    On musique-dev with GPT-3.5 triples this form brings the anchor to Recall@5 0.695 (0.655 with
    "subject predicate object"); our own modes keep "subject predicate object", which measured
    better for them with the heuristic extractor (BENCHMARKS.md). HippoRAG strips every non-ASCII
    character; we keep letters of any script so that non-English vaults keep their names.
    """
    return str((_plain(subject), _plain(predicate), _plain(obj)))


def passage_text(title: str, text: str) -> str:
    """What a section is embedded as: its note's title and its text (the title once, not twice)."""
    stripped = text.lstrip("# ").strip()
    if stripped.startswith(title):
        return f"{title}\n{stripped[len(title):].strip()}"
    return f"{title}\n{text}"


def synonym_frame(lists: SlotLists, rows: np.ndarray, threshold: float, previous: RetrievalData | None = None,
                  origin: np.ndarray | None = None, changed: np.ndarray | None = None) -> pl.DataFrame:
    """Entity pairs (a < b) among each other's nearest neighbours with cosine >= ``threshold`` (``lists`` over the
    slots of the entities' vectors, entity i's at ``rows[i]``); patched from ``previous``'s (built at the same
    threshold) when ``lists`` were patched from its lists, entity i keeping previous entity ``origin[i]``'s vector,
    and ``changed`` are the slots whose lists the patch changed."""
    view = lists.rows_view(rows)
    if previous is None or origin is None or changed is None:
        a, b, cosine = view.whole().pairs_above(threshold)
    else:
        old = previous.synonym_pairs
        moved = np.zeros(rows.size, dtype=bool)
        moved[view.slot_row[changed]] = True
        a, b, cosine = patch_pairs((old["a"].to_numpy(), old["b"].to_numpy(), old["cosine"].to_numpy()), previous.n_entities,
                                   origin, moved, view.of, threshold)
    return pl.DataFrame({"a": a, "b": b, "cosine": cosine}, schema={"a": pl.Int64, "b": pl.Int64, "cosine": pl.Float64})


def _passage_texts(documents: pl.DataFrame, sections: pl.DataFrame) -> list[str]:
    titles = dict(zip(documents["doc_id"].to_list(), documents["title"].to_list()))
    return [passage_text(titles[d], t) for d, t in zip(sections["doc_id"].to_list(), sections["text"].to_list())]


def build_retrieval_data(vault: Path, embedder: Embedder, folder: Path,
                         progress: StageProgress | None = None,
                         previous: RetrievalData | None = None, reads: DocumentReads | None = None) -> tuple[RetrievalData, int]:
    """The data, and the ledger generation it was read at; ``progress`` is told each stage (grouping, embeddings,
    neighbours).

    ``previous``: the last published index (same model and layout), patched when few documents moved.
    """
    if progress is not None:
        progress.stage(GROUPING, 1)
    documents, sections, generation, changes = _section_frame(vault, previous, reads)
    tables = TableStore(engram_dir(vault) / TABLES_DIR)
    documents = _with_dates(documents, tables.read("documents"))
    indexed = set(documents.filter(pl.col("status") == "indexed")["doc_id"].to_list())

    raw_entities = tables.read("entities").filter(pl.col("doc_id").is_in(list(indexed)))
    all_relations = tables.read("relations").filter(pl.col("doc_id").is_in(list(indexed)))
    kept_from: dict[str, np.ndarray] = {}
    if changes is not None and previous is not None:
        patched, regrouped = patch_entities(previous.entities, raw_entities, changes.touched)
        entities, kept_from["entity"] = patched
        facts, kept_from["fact"] = patch_facts(previous.facts, previous.entities, all_relations, patched, changes.touched, regrouped)
    else:
        entities = group_entities(raw_entities)
        facts = group_facts(all_relations, entities)
    links = links_of(all_relations)
    if progress is not None:
        progress.advance()

    vectors, origins = {}, {}
    cache = EmbeddingCache(engram_dir(vault) / "vectors" / "cache.sqlite")
    try:
        for kind, stage in (("section", EMBED_SECTIONS), ("entity", EMBED_ENTITIES), ("fact", EMBED_FACTS)):
            def embed(part: list[str], stage: str = stage) -> np.ndarray:
                return _embed_stage(cache, embedder, part, stage, progress)

            if changes is None or previous is None:
                texts = _passage_texts(documents, sections) if kind == "section" else _texts(kind, entities, facts)
                vectors[kind], origins[kind] = RowVectors.of(embed(texts)), None
            elif kind == "section":
                origins[kind] = _section_origin(previous, documents, sections, changes.touched)
                vectors[kind] = patch_vectors(origins[kind], lambda rows: _passage_texts(documents, sections[rows]),
                                              previous.section_vectors, embed)
            else:
                texts_of, old_column = _texts_at(_text_column(kind, entities, facts)), _text_column(kind, previous.entities, previous.facts)
                origins[kind] = kept_origin(kept_from[kind], old_column.len(), texts_of, _texts_at(old_column))
                vectors[kind] = patch_vectors(origins[kind], texts_of, getattr(previous, f"{kind}_vectors"), embed)
    finally:
        cache.close()

    mentions, name_labels = None, None
    if changes is not None and previous is not None:
        mentions = patched_mentions(previous, documents, entities, raw_entities, changes.touched, kept_from["entity"])
        name_labels = patched_labels(previous.entity_labels(), kept_from["entity"], entities["name"])
    edges = _edges(documents, facts, raw_entities, links, entities, mentions, name_labels)
    if progress is not None:
        progress.stage(NEIGHBOURS, sum(len(v) for v in vectors.values()))
    tick = progress.advance if progress is not None else None
    lists, changed = {}, {}
    for kind, k in (("section", DEFAULT_K + LIST_SLACK), ("entity", max(SYNONYM_NEIGHBOURS, DEFAULT_K + LIST_SLACK)),
                    ("fact", DEFAULT_K + LIST_SLACK)):
        origin, kind_vectors = origins[kind], vectors[kind]
        if origin is None or previous is None:
            built = build_neighbour_lists(kind_vectors.dense(), k, on_block=tick)
            lists[kind], changed[kind] = SlotLists.of_rows(built, kind_vectors.rows, kind_vectors.stored), None
        else:  # densities read DEFAULT_K rows; synonym pairs every entry above the floor
            lists[kind], changed[kind] = patch_slot_lists(
                getattr(previous, f"{kind}_lists").as_slots(), getattr(previous, f"{kind}_vectors").rows, kind_vectors, depth=DEFAULT_K,
                floor=SYNONYM_FLOOR if kind == "entity" else None, k=k)
            if tick is not None:
                tick(len(kind_vectors))
    data = RetrievalData(
        folder=folder, model=embedder.name, documents=documents, sections=sections,
        entities=entities, facts=facts,
        edges=edges,
        section_vectors=vectors["section"], section_density=lists["section"].densities(vectors["section"].rows),
        entity_vectors=vectors["entity"], entity_density=lists["entity"].densities(vectors["entity"].rows),
        fact_vectors=vectors["fact"], fact_density=lists["fact"].densities(vectors["fact"].rows),
        synonym_pairs=synonym_frame(lists["entity"], vectors["entity"].rows, SYNONYM_FLOOR, previous, origins["entity"],
                                    changed["entity"]),
        section_lists=lists["section"], entity_lists=lists["entity"], fact_lists=lists["fact"], name_labels=name_labels,
    )
    return data, generation


def _texts(kind: str, entities: pl.DataFrame, facts: pl.DataFrame) -> list[str]:
    """What an entity (its name) or a fact (subject predicate object) is embedded as, in row order."""
    return _text_column(kind, entities, facts).to_list()


def _text_column(kind: str, entities: pl.DataFrame, facts: pl.DataFrame) -> pl.Series:
    return entities["name"] if kind == "entity" else facts["text"]


def _texts_at(column: pl.Series) -> Callable[[np.ndarray], list[str]]:
    """The texts of ``column``'s rows, for the few rows an index patch asks about."""
    return lambda rows: column.gather(rows).to_list()


def _section_origin(previous: RetrievalData, documents: pl.DataFrame, sections: pl.DataFrame, touched: frozenset[str]) -> np.ndarray:
    """Per chunk row now, the previous row embedding the same text, or -1. A note no change touched has the same
    chunks under the same title, matched by position; the touched notes' chunks are matched by text among their
    previous chunks, so an edit keeps the vectors of the sections it left alone. Only the touched notes' texts are
    built (every chunk's text, twice, was a pass over all rows per edit)."""
    keys = ["doc_id", "ordinal", "piece"]
    moved = pl.col("doc_id").is_in(sorted(touched))
    old = previous.sections.select(keys).with_row_index("old")
    new = sections.select(*keys, moved.alias("moved"))
    by_position = new.join(old.filter(~moved), on=keys, how="left", maintain_order="left")
    origin = by_position["old"].cast(pl.Int64).fill_null(-1).to_numpy().copy()
    origin[new["moved"].to_numpy()] = -1
    touched_new = np.flatnonzero(new["moved"].to_numpy())
    touched_old = previous.sections.with_row_index("old").filter(moved)
    if touched_new.size and touched_old.height:
        before = _passage_texts(previous.documents, touched_old)
        match = match_rows(before, _passage_texts(documents, sections[touched_new]))
        old_rows = touched_old["old"].cast(pl.Int64).to_numpy()
        origin[touched_new] = np.where(match >= 0, old_rows[np.maximum(match, 0)], -1)
    return origin


def _embed_stage(cache: EmbeddingCache, embedder: Embedder, texts: list[str], stage: str,
                 progress: StageProgress | None) -> np.ndarray:
    """``texts`` embedded through the cache, as one named stage of the progress display (counted in distinct texts)."""
    if progress is None:
        return cache.embed(embedder, texts)
    progress.stage(stage, len(set(texts)))
    return cache.embed(embedder, texts, on_done=progress.advance)


def _edges(documents: pl.DataFrame, facts: pl.DataFrame, raw_entities: pl.DataFrame, links: pl.DataFrame,
           entities: pl.DataFrame, mentions: pl.DataFrame | None = None, name_labels: pl.Series | None = None) -> pl.DataFrame:
    """The walk's typed edges, one row per (src, dst, type) with the count as weight; a document's node is its row of
    ``documents``, an entity's its row of ``entities`` after them. Column operations, not a loop over rows: an edit
    rebuilds them from 70,000 facts and 350,000 mentions on the 10,000-note benchmark. ``mentions``: the mention
    edges with their weights, when the caller patched them (``patched_mentions``); else joined from
    ``raw_entities``. ``name_labels``: ``labels_of(entities["name"])``, when the caller has them."""
    n_pass = documents.height
    typed = facts.filter((pl.col("s") != pl.col("o")) & (pl.col("predicate_iri") != v.LINKS_TO.value)).select(
        (pl.col("s").cast(pl.Int64) + n_pass).alias("src"), (pl.col("o").cast(pl.Int64) + n_pass).alias("dst"),  # (an empty
        # frame of facts may carry them as strings)
        pl.when(pl.col("predicate_iri") == v.IS_A.value).then(_typed("hierarchy")).otherwise(_typed("relation")).alias("type"))
    doc_rows = _doc_rows(documents)
    entity_rows = _entity_rows(entities, n_pass)
    if mentions is None:
        mentions = _mentions(raw_entities, doc_rows, entity_rows)
    # About: a note and the entities its title names (the note is their page), whatever kind each was given.
    named = entity_rows.select((labels_of(entities["name"]) if name_labels is None else name_labels).alias("label"), "dst")
    titles = pl.DataFrame({"label": labels_of(documents["title"]), "src": pl.int_range(n_pass, eager=True, dtype=pl.Int64)})
    about = titles.join(named, on="label").select("src", "dst", _typed("about"))
    # Note links: a wikilink names a note (title, file stem or path); a Markdown link gives its path or a web copy's
    # address. Each distinct target is resolved once, then joined back to every link that writes it.
    resolve = note_link_resolver(documents["title"].to_list(), documents["path"].to_list())
    targets = links.select("doc_id", target=pl.col("object").fill_null(""))
    distinct = targets["target"].unique().to_list()
    answers = pl.DataFrame({"target": distinct, "dst": [resolve(target) for target in distinct]},
                           schema={"target": pl.String, "dst": pl.Int64})
    link_rows = (targets.join(doc_rows, on="doc_id").join(answers, on="target")
                 .filter(pl.col("dst").is_not_null() & (pl.col("dst") != pl.col("src")))
                 .select("src", "dst", _typed("link")))
    # Each part made with the Enum (casting 1.1 million strings to it took 0.3 s per edit at 100,000 notes), then the
    # repeats summed on the sorted rows (a group-by over all 1.9 million took 0.2-0.4 s; the sort, 25 ms).
    parts = [_weighted(part) for part in (typed, about, link_rows)] + [mentions.cast(_EDGE_SCHEMA)]
    return _summed(pl.concat(parts).sort(["type", "src", "dst"]))


_EDGE_SCHEMA = {"src": pl.Int64, "dst": pl.Int64, "type": EDGE_TYPE, "weight": pl.Float64}


def _weighted(part: pl.DataFrame) -> pl.DataFrame:
    """Edge rows, each of weight 1 (summed with its repeats by ``_summed``)."""
    return part.with_columns(pl.lit(1.0, dtype=pl.Float64).alias("weight")).cast(_EDGE_SCHEMA)


def _doc_rows(documents: pl.DataFrame) -> pl.DataFrame:
    return documents.select(pl.col("doc_id").cast(pl.String), pl.int_range(pl.len(), dtype=pl.Int64).alias("src"))


def _entity_rows(entities: pl.DataFrame, n_pass: int) -> pl.DataFrame:
    return entities.select(pl.col("entity_iri").cast(pl.String), pl.int_range(n_pass, n_pass + pl.len(), dtype=pl.Int64).alias("dst"))


def _mentions(raw_entities: pl.DataFrame, doc_rows: pl.DataFrame, entity_rows: pl.DataFrame) -> pl.DataFrame:
    """A note and each entity it names, once per row of the entities table (weight 1 each)."""
    return _weighted(raw_entities.select("doc_id", "entity_iri").join(doc_rows, on="doc_id").join(entity_rows, on="entity_iri")
                     .select("src", "dst", _typed("mention")))


def patched_mentions(previous: RetrievalData, documents: pl.DataFrame, entities: pl.DataFrame, raw_entities: pl.DataFrame,
                     touched: frozenset[str], entity_kept_from: np.ndarray) -> pl.DataFrame:
    """The mention edges (weighted) of ``documents`` and ``entities``, from ``previous``'s: an untouched note names
    what it named, so its edges are renumbered; the touched notes' are joined again from their rows of the entities
    table (joining all 1.1 million rows took 0.3 s of each edit at 100,000 notes). An entity grouped again
    (``entity_kept_from`` -1) is found by its IRI in both groupings."""
    old = previous.edges.filter(pl.col("type") == "mention")
    n_old, n_pass = previous.n_passages, documents.height
    doc_map = (previous.documents.select("doc_id", pl.col("doc_id").is_in(sorted(touched)).alias("touched"))
               .join(documents.select("doc_id").with_row_index("new"), on="doc_id", how="left", maintain_order="left")
               .select(pl.when(pl.col("touched")).then(None).otherwise(pl.col("new")).cast(pl.Int64).fill_null(-1))
               .to_series().to_numpy())
    entity_map = old_to_new(entity_kept_from, previous.n_entities).astype(np.int64)
    regrouped = np.flatnonzero(entity_kept_from < 0)
    if regrouped.size:
        iris = entities["entity_iri"].gather(regrouped)
        old_rows = previous.entities["entity_iri"].search_sorted(iris, side="left").to_numpy()
        found = old_rows < previous.n_entities
        found[found] = previous.entities["entity_iri"].gather(old_rows[found]).to_numpy() == iris.filter(pl.Series(found)).to_numpy()
        entity_map[old_rows[found]] = regrouped[found]
    src = doc_map[old["src"].to_numpy()]
    dst = entity_map[old["dst"].to_numpy() - n_old]
    keep = (src >= 0) & (dst >= 0)
    kept = pl.DataFrame({"src": src[keep], "dst": dst[keep] + n_pass, "weight": old["weight"].to_numpy()[keep]}).with_columns(_typed("mention"))
    fresh = _mentions(raw_entities.filter(pl.col("doc_id").is_in(sorted(touched))), _doc_rows(documents), _entity_rows(entities, n_pass))
    return pl.concat([kept.select(list(_EDGE_SCHEMA)).cast(_EDGE_SCHEMA), fresh])


def _typed(edge_type: str) -> pl.Expr:
    return pl.lit(edge_type, dtype=EDGE_TYPE).alias("type")


def _summed(frame: pl.DataFrame) -> pl.DataFrame:
    """Each distinct (src, dst, type) of ``frame`` (sorted) once, with its rows' weights summed."""
    if not frame.height:
        return frame
    keys = ("src", "dst", "type")
    repeat = np.ones(frame.height - 1, dtype=bool)  # row i + 1 has row i's key
    for name in keys:
        values = frame[name].to_physical().to_numpy()
        repeat &= values[1:] == values[:-1]
    starts = np.flatnonzero(np.concatenate([[True], ~repeat]))
    weights = np.add.reduceat(frame["weight"].to_numpy(), starts)
    return frame[starts].with_columns(pl.Series("weight", weights, dtype=pl.Float64))


@lru_cache(maxsize=1 << 20)  # a name outside ASCII, each edit: folding again took 2 s for every name at 100,000 notes
def _label(text: str) -> str:
    return v.normalise_label(text)


_NOT_ASCII = r"[^\x00-\x7F]"


def labels_of(texts: pl.Series) -> pl.Series:
    """``normalise_label`` of each text: as column operations for ASCII texts (where it is lower case, every run of
    characters but letters and digits one hyphen, none at the ends), by the function for the rest. The function
    on every entity name and title, even through a cache, took 0.3 s of each edit at 100,000 notes."""
    texts = texts.cast(pl.String)
    labels = texts.str.to_lowercase().str.replace_all(r"[^a-z0-9]+", "-").str.strip_chars("-")
    other = np.flatnonzero(texts.str.contains(_NOT_ASCII).fill_null(False).to_numpy())
    if other.size:
        labels = labels.scatter(other, [_label(text) for text in texts.gather(other).to_list()])
    return labels


def patched_labels(previous: pl.Series, kept_from: np.ndarray, names: pl.Series) -> pl.Series:
    """``labels_of(names)``, the rows kept from a previous grouping (``kept_from``) taking their label from
    ``previous`` (a kept entity keeps its name): labelling all 580,000 names took 0.15 s of each 100,000-note edit."""
    labels = previous.gather(np.maximum(kept_from, 0)) if previous.len() else pl.Series(["" for _ in kept_from], dtype=pl.String)
    fresh = np.flatnonzero(kept_from < 0)
    return labels.scatter(fresh, labels_of(names.gather(fresh))) if fresh.size else labels


def warm_edges(data: RetrievalData) -> None:
    """Fold every name outside ASCII, make the link resolver and read every file name's date now, as the next edit's
    typed edges and dates would (a long-lived process starting up: its first edit then costs what the others do)."""
    data.entity_labels()
    labels_of(data.documents["title"])
    note_link_resolver(data.documents["title"].to_list(), data.documents["path"].to_list())
    _file_name_dates(data.documents["path"])  # remembered per path, for the next edit's dates


_FRAMES = ("documents", "sections", "entities", "facts", "edges")
_PAIRS = {"a": pl.Int64, "b": pl.Int64, "cosine": pl.Float64}  # synonym pairs, one .npy per column: 1.3 million rows at
# 10,000 notes took 0.17 s to write as Parquet on every edit
# As written: entity rows fit int32 and each cosine is a float32 list entry's, so half the bytes lose nothing (3.3
# million pairs at 100,000 notes: 79 -> 40 MB per edit); read back as ``_PAIRS``.
_PAIRS_ON_DISK = {"a": np.int32, "b": np.int32, "cosine": np.float32}
FRAME_COMPRESSION = "lz4"  # against zstd: 40 % less time to write (each edit), a third to read, files 1.5 x larger
_VECTORS = ("section_vectors", "entity_vectors", "fact_vectors")
_ARRAYS = ("section_density", "entity_density", "fact_density")
_LISTS = ("section_lists", "entity_lists", "fact_lists")


def save(data: RetrievalData, generation: int, folder: Path) -> None:
    """Write ``data`` to ``folder``; its vectors then point at what was written (memory-mapped, not held twice), and
    its lists at their base there and their delta."""
    for vectors_name, lists_name in zip(_VECTORS, _LISTS):
        vectors = getattr(data, vectors_name)
        saved = save_vectors(vectors, folder, vectors_name)
        setattr(data, vectors_name, saved)
        setattr(data, lists_name, save_slot_lists(getattr(data, lists_name).as_slots(), folder, lists_name,
                                                  moved_slots(vectors, saved), saved.stored))
    for name in _FRAMES:
        getattr(data, name).write_parquet(folder / f"{name}.parquet", compression=FRAME_COMPRESSION)
    for column, dtype in _PAIRS_ON_DISK.items():
        np.save(folder / f"synonym_pairs.{column}.npy", data.synonym_pairs[column].to_numpy().astype(dtype))
    for name in _ARRAYS:
        np.save(folder / f"{name}.npy", getattr(data, name))
    (folder / "meta.json").write_text(json.dumps({"format": INDEX_FORMAT, "model": data.model, "dimension": data.entity_vectors.dimension}))
    (folder / GENERATION_FILE).write_text(str(generation))


def load(folder: Path) -> RetrievalData:
    if (built := recall(folder, RetrievalData)) is not None:
        return built
    meta = json.loads((folder / "meta.json").read_text())
    frames = {name: pl.read_parquet(folder / f"{name}.parquet") for name in _FRAMES}
    frames["edges"] = frames["edges"].cast({"type": EDGE_TYPE})  # a no-op but for folders written with string types
    frames["synonym_pairs"] = _read_pairs(folder)
    arrays = {name: np.load(folder / f"{name}.npy") for name in _ARRAYS}
    arrays |= {name: load_vectors(folder, name) for name in _VECTORS}
    lists = {name: _read_lists(folder, name, arrays[vectors_name]) for vectors_name, name in zip(_VECTORS, _LISTS)}
    data = RetrievalData(folder=folder, model=meta["model"], **frames, **arrays, **lists)
    remember(folder, data)  # the next edit patches it without reading the folder again
    return data


def _read_pairs(folder: Path) -> pl.DataFrame:
    return pl.DataFrame({column: np.load(folder / f"synonym_pairs.{column}.npy") for column in _PAIRS}, schema=_PAIRS)


def synonym_pairs_and_entities(folder: Path) -> tuple[pl.DataFrame, pl.Series] | None:
    """The synonym pairs of the index in ``folder`` and its entity IRIs (row order), without loading the rest;
    None when it has none (an older layout)."""
    if (built := recall(folder, RetrievalData)) is not None:
        return built.synonym_pairs, built.entities["entity_iri"]
    try:
        return _read_pairs(folder), pl.read_parquet(folder / "entities.parquet", columns=["entity_iri"])["entity_iri"]
    except (FileNotFoundError, pl.exceptions.ComputeError):
        return None


def _read_lists(folder: Path, name: str, vectors: RowVectors) -> SlotLists | RowListsOnDisk:
    """The lists of ``vectors`` saved as ``name``: over slots, or (a folder of format 15) over rows."""
    if has_slot_lists(folder, name):
        return load_slot_lists(folder, name, vectors.stored)
    rows = NeighbourLists(np.load(folder / f"{name}.indices.npy", mmap_mode="r"), np.load(folder / f"{name}.cosines.npy", mmap_mode="r"))
    return RowListsOnDisk(rows, vectors.rows, vectors.stored)


def _meta(folder: Path) -> dict[str, object]:
    try:
        return json.loads((folder / "meta.json").read_text())
    except (OSError, ValueError):
        return {}


def index_model(folder: Path) -> str | None:
    """The embedding model whose vectors the index in ``folder`` holds."""
    model = _meta(folder).get("model")
    return model if isinstance(model, str) else None


def layout_is_current(folder: Path) -> bool:
    """Whether this version reads the index in ``folder`` (an older layout is rebuilt, never misread)."""
    return _meta(folder).get("format") in READABLE_FORMATS


def published_retrieval_index(vault: Path, known: Path | None = None) -> Path | None:
    """The last published retrieval index, however stale, if this version can read it (for ``auto``).

    ``known``: a folder already loaded and checked, so a search does not reread its metadata.
    """
    folder = current_index_dir(index_dir(vault), RETRIEVAL_INDEX)
    if folder is None or folder == known:
        return folder
    return folder if layout_is_current(folder) else None


def fresh_retrieval_index(vault: Path, model: str, generation: int | None = None) -> Path | None:
    """The published retrieval index when it reflects the ledger's ``generation`` with ``model``'s vectors, else None."""
    fresh = current_if_fresh(vault, RETRIEVAL_INDEX, generation)
    if fresh is not None:
        meta = _meta(fresh)
        if meta.get("format") in READABLE_FORMATS and meta.get("model") == model:
            return fresh
    return None


def refresh_retrieval_index(vault: Path, embedder: Embedder, generation: int | None = None,
                            progress: StageProgress | None = None, reads: DocumentReads | None = None,
                            on_built: Callable[[RetrievalData], None] | None = None) -> Path:
    """The current retrieval index folder, patched from the last published one when the ledger moved on (rebuilt
    when there is none of this layout and model, or many notes changed). ``reads``: as ``refresh_keyword_index``'s.
    ``on_built(data)``: called with a new index once built, before its files are written (the object ``load``
    then gives for its folder)."""
    fresh = fresh_retrieval_index(vault, embedder.name, generation)
    if fresh is not None:
        return fresh
    last = published_retrieval_index(vault)
    previous = load(last) if last is not None and index_model(last) == embedder.name else None

    def write(folder: Path) -> None:
        data, built_at = build_retrieval_data(vault, embedder, folder, progress=progress, previous=previous, reads=reads)
        if on_built is not None:
            on_built(data)
        save(data, built_at, folder)
        remember(folder, data)

    return publish_index(index_dir(vault), RETRIEVAL_INDEX, write)
