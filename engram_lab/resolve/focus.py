"""Which entities an incremental analysis must score again: those whose evidence inputs moved.

A pair's evidence reads the two entities' names, kinds, aliases, notes and
relation neighbours, how many notes write its spelling (under any kind), and how
many long names a short form (acronym, initials, a surname alone) could stand for
across the vault. Each entity gets a digest of
exactly that; the ledger keeps the digests of the last analysis, so an edit, a
deleted note that shared an entity, or a second expansion of an acronym written
in another note all bring the entities they touch back into focus. Without this,
an incremental run and a fresh index could disagree on a pair nobody edited.
Blocking-size limits and trigram rarity are vault-wide and not tracked (a full
``engram resolve --rescan`` covers them).
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import NamedTuple

import polars as pl

from engram_lab.last_few import LastFew
from engram_lab.resolve.entities import EntityView
from engram_lab.resolve.evidence import Expansions
from engram_lab.state.db import DIGESTS_GENERATION, LEDGER_ID, bump_counter, read_counter, read_meta

DIGEST_SEED = 18  # fixed: the digests are compared across processes


def entity_digests(view: EntityView, expansions: Expansions) -> pl.DataFrame:
    """Per entity (``entity_iri``), a digest (``digest``, UInt64) of what the evidence of its pairs reads; digests are
    compared as frames, not dictionaries (building and comparing 88,000 entries took 0.15 s of each edit).

    A short form's count of long names is carried by what it is computed from (the long forms and their kinds),
    not computed here: counting compares names pairwise, and the digests are taken over every entity on every run.
    The rows are hashed by polars in one pass (an edit of a 10,000-note vault digests 88,000 entities; a hash of
    each row's text took 1-3 s). Polars does not promise the same hash across its versions: after an upgrade
    every entity reads as moved once, and that analysis scores every pair, as a full pass does.
    """
    inputs: dict[tuple[str, str], str] = {}

    def count_inputs(table: str, key: str | None) -> str:
        if key is None:
            return "-"
        if (table, key) not in inputs:
            forms = expansions.count_inputs(getattr(expansions, table), key)
            inputs[(table, key)] = hashlib.sha256(repr(forms).encode("utf-8")).hexdigest()[:20]
        return inputs[(table, key)]

    joined: dict[tuple[str | None, str | None, str | None], str] = {}

    def short_form(keys: tuple[str | None, str | None, str | None]) -> str:
        if keys not in joined:
            acronym, initials, surname = keys
            joined[keys] = " ".join((count_inputs("acronym", acronym), count_inputs("initials", initials),
                                     count_inputs("surname", surname)))
        return joined[keys]

    # Only the short side of a pair reads a count, and it is in every such pair: its digest carries it.
    shorts = view.name_keys.forms.select("short_acronym", "short_initials", "short_surname")
    written = shorts.unique().filter(pl.any_horizontal(pl.all().is_not_null()))  # the few entities written as short forms
    inputs_of = written.with_columns(short_forms=pl.Series([short_form(k) for k in written.iter_rows()], dtype=pl.String))
    short_forms = (shorts.join(inputs_of, on=list(shorts.columns), how="left", nulls_equal=True, maintain_order="left")
                   ["short_forms"].fill_null(short_form((None, None, None))))
    writing = expansions.notes_writing_rows(view.name_keys.forms["form"])  # the typo rule reads how many notes write the spelling
    rows = view.frame.select("name", "kind", _sorted_lists(view.frame["labels"]), "doc_ids", "neighbour_iris", short_forms, writing)
    return pl.DataFrame({"entity_iri": view.frame["entity_iri"], "digest": rows.hash_rows(seed=DIGEST_SEED)})


def _sorted_lists(lists: pl.Series) -> pl.Series:
    """``lists.list.sort()``, by one sort of the elements of the lists of two or more: most entities have one label,
    and ``list.sort`` took 50-80 ms of each edit at 10,000 notes (~10 us a list)."""
    multi = (lists.list.len() > 1).fill_null(False)
    if not multi.any():
        return lists
    name = lists.name
    rows = lists.to_frame().with_row_index("row")
    many = rows.filter(multi).explode(name).sort("row", name).group_by("row", maintain_order=True).agg(pl.col(name))
    return pl.concat([rows.filter(~multi), many]).sort("row")[name]


DIGESTS_SCHEMA = {"entity_iri": pl.String, "digest": pl.UInt64}


class Recorded(NamedTuple):
    """What the ledger holds once the transaction that recorded it commits (``keep_recorded``)."""

    generation: int
    digests: pl.DataFrame  # entity_iri, digest


# The digests each ledger holds, as this process last read or wrote them, with the counter ``record_digests``
# advances: an edit of the 100,000-note benchmark read all 580,000 rows back (1.7 s) to find the few that moved.
KEPT_LEDGERS = 4
_KEPT: LastFew[str, Recorded] = LastFew(KEPT_LEDGERS)


def stored_digests(conn: sqlite3.Connection) -> pl.DataFrame:
    """The digests the last analysis recorded, as ``entity_digests`` gives them (callers must not change the frame)."""
    ledger_id, generation = read_meta(conn, LEDGER_ID), read_counter(conn, DIGESTS_GENERATION)
    kept = _KEPT.get(ledger_id) if ledger_id is not None else None
    if kept is not None and kept[0] == generation and not conn.in_transaction:
        return kept[1]
    rows = conn.execute("SELECT entity_iri, digest FROM analysed_entities").fetchall()  # the ledger keeps them as hex
    return pl.DataFrame({"entity_iri": [iri for iri, _ in rows], "digest": [int(digest, 16) for _, digest in rows]},
                        schema=DIGESTS_SCHEMA)


def moved_entities(stored: pl.DataFrame, digests: pl.DataFrame) -> tuple[set[str], set[str]]:
    """Entities new or changed since the last analysis recorded its digests (``stored``), and entities gone since."""
    now = digests.join(stored, on="entity_iri", how="left", suffix="_stored")
    moved = now.filter(pl.col("digest_stored").is_null() | (pl.col("digest") != pl.col("digest_stored")))
    return set(moved["entity_iri"].to_list()), set(stored.join(digests, on="entity_iri", how="anti")["entity_iri"].to_list())


def record_digests(conn: sqlite3.Connection, stored: pl.DataFrame, digests: pl.DataFrame, moved: set[str] | None,
                   gone: set[str]) -> Recorded:
    """Remember what this analysis saw (inside the caller's transaction, with the judgments it made); ``stored``:
    what the ledger held before; ``moved`` None: every entity of ``digests``. Pass the result to ``keep_recorded``
    once the transaction committed."""
    written = digests if moved is None else digests.filter(pl.col("entity_iri").is_in(sorted(moved)))
    written = written.sort("entity_iri")
    conn.executemany("INSERT INTO analysed_entities VALUES (?, ?) ON CONFLICT(entity_iri) DO UPDATE SET digest = excluded.digest",
                     [(iri, f"{digest:016x}") for iri, digest in zip(written["entity_iri"].to_list(), written["digest"].to_list())])
    conn.executemany("DELETE FROM analysed_entities WHERE entity_iri = ?", [(iri,) for iri in sorted(gone)])
    bump_counter(conn, DIGESTS_GENERATION)
    left = stored.join(written, on="entity_iri", how="anti").filter(~pl.col("entity_iri").is_in(sorted(gone)))
    return Recorded(read_counter(conn, DIGESTS_GENERATION), pl.concat([left, written.select(list(DIGESTS_SCHEMA))]))


def keep_stored_digests(conn: sqlite3.Connection) -> None:
    """Read the recorded digests now and keep them for the next ``stored_digests`` (a long-lived process warming up:
    its first edit then reads none). The generation is read first, so rows a writer committed in between are kept
    under the older generation, which the next read does not match."""
    ledger_id = read_meta(conn, LEDGER_ID)
    if ledger_id is not None:
        generation = read_counter(conn, DIGESTS_GENERATION)
        _KEPT[ledger_id] = Recorded(generation, stored_digests(conn))


def keep_recorded(conn: sqlite3.Connection, recorded: Recorded) -> None:
    """Keep a committed ``record_digests`` in this process for the next ``stored_digests`` (a rolled-back one
    must never be kept: its generation would be reused by the next writer)."""
    ledger_id = read_meta(conn, LEDGER_ID)
    if ledger_id is None:
        return
    _KEPT[ledger_id] = recorded
