"""Polars tables of the relational layer, persisted as Parquet under ``.engram/tables/``.

Each table is split into 64 bucket files by document id, so re-indexing one
note rewrites one small file per table rather than the whole table. Every file
is written to a temporary name and renamed into place (atomic), and a document's
rows always live in exactly one bucket, so a reader sees each document whole.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from engram_lab.extract.model import EntityRef, Extraction
from engram_lab.extract.segment import Segment
from engram_lab.graph import vocabulary as v
from engram_lab.graph.quads import predicate_node

TABLES_DIR = "tables"
BUCKETS = 64

SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "documents": {"doc_id": pl.String, "path": pl.String, "iri": pl.String, "title": pl.String, "kind": pl.String,
                  "status": pl.String, "author": pl.String, "extractor": pl.String, "extractor_version": pl.String,
                  "model": pl.String, "content_hash": pl.String, "llm_calls": pl.Int32, "prompt_tokens": pl.Int64,
                  "completion_tokens": pl.Int64, "llm_seconds": pl.Float64, "warnings": pl.List(pl.String), "date": pl.Date},
    "segments": {"doc_id": pl.String, "segment": pl.Int32, "piece": pl.Int32, "cell_id": pl.String, "start": pl.Int64,
                 "end": pl.Int64, "heading_path": pl.List(pl.String), "text": pl.String},
    "entities": {"doc_id": pl.String, "entity_iri": pl.String, "name": pl.String, "kind": pl.String,
                 "aliases": pl.List(pl.String), "mentions": pl.Int32},
    "mentions": {"doc_id": pl.String, "entity_iri": pl.String, "cell_id": pl.String, "start": pl.Int64, "end": pl.Int64,
                 "surface": pl.String},
    "relations": {"doc_id": pl.String, "subject_iri": pl.String, "subject": pl.String, "predicate": pl.String,
                  "predicate_iri": pl.String, "object_iri": pl.String, "object": pl.String, "cell_id": pl.String,
                  "start": pl.Int64, "end": pl.Int64, "label": pl.String, "date": pl.Date},
    "statements": {"doc_id": pl.String, "kind": pl.String, "text": pl.String, "date": pl.Date, "cell_id": pl.String,
                   "start": pl.Int64, "end": pl.Int64, "about": pl.List(pl.String)},
}


@dataclass
class DocumentRows:
    """One document's rows in every table."""

    rows: dict[str, list[dict[str, object]]] = field(default_factory=lambda: {name: [] for name in SCHEMAS})


def document_rows(doc: dict[str, object], segments: list[Segment], extraction: Extraction | None) -> DocumentRows:
    """Rows for one document; ``extraction`` None (a note pending review) leaves the graph tables empty."""
    doc_id = str(doc["doc_id"])
    out = DocumentRows()
    out.rows["documents"].append(doc)
    for segment in segments:
        for index, piece in enumerate(segment.pieces):
            out.rows["segments"].append({"doc_id": doc_id, "segment": segment.ordinal, "piece": index, "cell_id": piece.cell_id,
                                         "start": piece.span.start, "end": piece.span.end,
                                         "heading_path": list(piece.heading_path), "text": piece.text})
    if extraction is None:
        return out
    entities: dict[str, dict[str, object]] = {}
    for mention in extraction.entities:
        iri = v.entity_iri(mention.name, mention.kind)
        entry = entities.setdefault(iri, {"doc_id": doc_id, "entity_iri": iri, "name": mention.name, "kind": mention.kind, "aliases": [], "mentions": 0})
        entry["aliases"] = list(dict.fromkeys([*entry["aliases"], *mention.aliases]))  # type: ignore[misc]
        if mention.span is not None:
            entry["mentions"] = int(entry["mentions"]) + 1  # type: ignore[call-overload]
            out.rows["mentions"].append({"doc_id": doc_id, "entity_iri": iri, "cell_id": mention.cell_id,
                                         "start": mention.span.start, "end": mention.span.end, "surface": mention.surface})
    out.rows["entities"] = list(entities.values())
    for r in extraction.relations:
        out.rows["relations"].append({
            "doc_id": doc_id, "subject_iri": v.entity_iri(r.subject.name, r.subject.kind), "subject": r.subject.name,
            "predicate": r.predicate, "predicate_iri": predicate_node(r.predicate).value,
            "object_iri": v.entity_iri(r.object.name, r.object.kind) if isinstance(r.object, EntityRef) else None,
            "object": r.object.name if isinstance(r.object, EntityRef) else r.object,
            "cell_id": r.cell_id, "start": r.span.start if r.span else None, "end": r.span.end if r.span else None,
            "label": r.label, "date": r.date,
        })
    for s in extraction.statements:
        out.rows["statements"].append({"doc_id": doc_id, "kind": s.kind, "text": s.text, "date": s.date, "cell_id": s.cell_id,
                                       "start": s.span.start if s.span else None, "end": s.span.end if s.span else None,
                                       "about": [v.entity_iri(a.name, a.kind) for a in s.about]})
    return out


def bucket_of(doc_id: str) -> int:
    return int(doc_id[:4], 16) % BUCKETS if doc_id[:4].isalnum() else sum(map(ord, doc_id)) % BUCKETS


def _empty(table: str) -> pl.DataFrame:
    return pl.DataFrame(schema=SCHEMAS[table])


class TableStore:
    def __init__(self, base: Path) -> None:
        self.base = base

    def _file(self, table: str, bucket: int) -> Path:
        return self.base / table / f"bucket-{bucket:02d}.parquet"

    def apply(self, changed: dict[str, DocumentRows | None]) -> None:
        """Replace the rows of each changed document (None: remove it), bucket by bucket."""
        by_bucket: dict[int, dict[str, DocumentRows | None]] = {}
        for doc_id, rows in changed.items():
            by_bucket.setdefault(bucket_of(doc_id), {})[doc_id] = rows
        for bucket, docs in by_bucket.items():
            for table in SCHEMAS:
                path = self._file(table, bucket)
                old = _conform(pl.read_parquet(path), table) if path.exists() else _empty(table)
                kept = old.filter(~pl.col("doc_id").is_in(list(docs)))
                new_rows = [row for rows in docs.values() if rows is not None for row in rows.rows[table]]
                fresh = pl.DataFrame(new_rows, schema=SCHEMAS[table], orient="row") if new_rows else _empty(table)
                write_parquet_atomic(pl.concat([kept, fresh], how="vertical"), path)

    def document_paths(self) -> tuple[dict[str, str], list[int]]:
        """Doc id -> path as the documents table records them, and the buckets whose file cannot be read."""
        paths: dict[str, str] = {}
        unreadable: list[int] = []
        files = sorted((self.base / "documents").glob("bucket-*.parquet"))
        try:  # one multi-threaded read: this runs at the start of every index run, even one with nothing to do
            frame = pl.read_parquet(files, columns=["doc_id", "path"]) if files else None
            return (dict(zip(frame["doc_id"].to_list(), frame["path"].to_list())) if frame is not None else {}), []
        except (OSError, pl.exceptions.PolarsError):
            pass  # some file is damaged: find which, bucket by bucket
        for bucket in range(BUCKETS):
            path = self._file("documents", bucket)
            if not path.exists():
                continue
            try:
                frame = pl.read_parquet(path, columns=["doc_id", "path"])
            except (OSError, pl.exceptions.PolarsError):
                unreadable.append(bucket)
                continue
            paths.update(zip(frame["doc_id"].to_list(), frame["path"].to_list()))
        return paths, unreadable

    def drop_bucket(self, bucket: int) -> None:
        """Remove one bucket from every table (its notes must then be written again)."""
        for table in SCHEMAS:
            self._file(table, bucket).unlink(missing_ok=True)

    def remove_leftovers(self) -> list[str]:
        """Delete temporary files of writes killed before their rename; call only while holding the write lock."""
        removed = []
        for tmp in self.base.glob("*/.bucket-*.tmp"):
            tmp.unlink(missing_ok=True)
            removed.append(tmp.name)
        return removed

    def read(self, table: str) -> pl.DataFrame:
        buckets = self.read_buckets(table)
        return pl.concat(list(buckets.values()), how="vertical") if buckets else _empty(table)

    def read_buckets(self, table: str) -> dict[Path, pl.DataFrame]:
        """Each bucket's frame, in file order (``read`` is their concatenation). A bucket no write touched since the
        last read in this process is the same frame object."""
        return {f: _read_bucket(f, table) for f in sorted((self.base / table).glob("bucket-*.parquet"))}


# Bucket frames last read in this process, by file: an edit rewrites one bucket per table (a new file, so a new
# inode), and a long-lived process (kernel, server) then rereads that bucket alone, not the whole table.
_BUCKETS: dict[Path, tuple[tuple[int, int, int], pl.DataFrame]] = {}
_CACHED_BUCKETS = 4096  # every table of a few vaults; past it the cache starts over


def _read_bucket(path: Path, table: str) -> pl.DataFrame:
    stat = path.stat()
    key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
    cached = _BUCKETS.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    frame = _conform(pl.read_parquet(path), table)
    if len(_BUCKETS) >= _CACHED_BUCKETS:
        _BUCKETS.clear()
    _BUCKETS[path] = (key, frame)
    return frame


def rewritten_docs(old: pl.DataFrame, new: pl.DataFrame) -> set[str]:
    """The documents whose rows differ between two versions of one bucket, in content or in order, gone ones
    included: what a grouping kept from ``old`` must redo. ``apply`` keeps the rows of untouched documents in their
    order and appends the rewritten ones, so the documents of ``new`` that stand as they were form a prefix of its
    documents, each with the same rows as in ``old`` and in the same order; everything after the first one that does
    not is rewritten (conservative: a note rewritten with identical rows at the same place counts as unchanged,
    which it is)."""
    def per_doc(frame: pl.DataFrame) -> pl.DataFrame:
        return (frame.select("doc_id", hash=frame.hash_rows(seed=18)).with_row_index("position")
                .group_by("doc_id", maintain_order=True)
                .agg(pl.col("position").first(), pl.col("hash"),
                     together=pl.col("position").last() - pl.col("position").first() + 1 == pl.len()))

    before, after = per_doc(old), per_doc(new)
    joined = after.join(before, on="doc_id", how="left", suffix="_old", maintain_order="left")
    # (rows of one document interleaved with another's, which ``apply`` never writes, never count as standing)
    same = (pl.col("hash") == pl.col("hash_old")).fill_null(False) & pl.col("together") & pl.col("together_old").fill_null(False)
    in_order = pl.col("position_old") > pl.col("position_old").shift(1).fill_null(-1)
    standing = joined.with_columns(keep=(same & in_order.fill_null(False)).cast(pl.Int8).cum_prod() == 1)
    rewritten = set(standing.filter(~pl.col("keep"))["doc_id"].to_list())
    return rewritten | (set(before["doc_id"].to_list()) - set(after["doc_id"].to_list()))


def _conform(frame: pl.DataFrame, table: str) -> pl.DataFrame:
    """A bucket written before a column was added gets it as nulls, so old and new buckets concatenate."""
    schema = SCHEMAS[table]
    if list(frame.columns) == list(schema):
        return frame
    return frame.select([pl.col(c) if c in frame.columns else pl.lit(None, dtype=t).alias(c) for c, t in schema.items()])


def write_parquet_atomic(frame: pl.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    frame.write_parquet(tmp)
    os.replace(tmp, path)
