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


def entity_digests(view: EntityView, expansions: Expansions) -> dict[str, str]:
    """Entity IRI -> digest of what the evidence of its pairs reads.

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
    rows = view.frame.select("name", "kind", pl.col("labels").list.sort(), "doc_ids", "neighbour_iris", short_forms, writing)
    hashes = rows.hash_rows(seed=DIGEST_SEED).to_list()
    return {iri: f"{h:016x}" for iri, h in zip(view.iris, hashes)}


class Recorded(NamedTuple):
    """What the ledger holds once the transaction that recorded it commits (``keep_recorded``)."""

    generation: int
    digests: dict[str, str]


# The digests each ledger holds, as this process last read or wrote them, with the counter ``record_digests``
# advances: an edit of the 100,000-note benchmark read all 580,000 rows back (1.7 s) to find the few that moved.
KEPT_LEDGERS = 4
_KEPT: LastFew[str, Recorded] = LastFew(KEPT_LEDGERS)


def stored_digests(conn: sqlite3.Connection) -> dict[str, str]:
    """Entity IRI -> digest the last analysis recorded (callers must not change the mapping)."""
    ledger_id, generation = read_meta(conn, LEDGER_ID), read_counter(conn, DIGESTS_GENERATION)
    kept = _KEPT.get(ledger_id) if ledger_id is not None else None
    if kept is not None and kept[0] == generation and not conn.in_transaction:
        return kept[1]
    return dict(conn.execute("SELECT entity_iri, digest FROM analysed_entities").fetchall())


def moved_entities(stored: dict[str, str], digests: dict[str, str]) -> tuple[set[str], set[str]]:
    """Entities new or changed since the last analysis recorded its digests (``stored``), and entities gone since."""
    return {iri for iri, digest in digests.items() if stored.get(iri) != digest}, set(stored) - set(digests)


def record_digests(conn: sqlite3.Connection, stored: dict[str, str], digests: dict[str, str], moved: set[str],
                   gone: set[str]) -> Recorded:
    """Remember what this analysis saw (inside the caller's transaction, with the judgments it made); ``stored``:
    what the ledger held before. Pass the result to ``keep_recorded`` once the transaction committed."""
    conn.executemany("INSERT INTO analysed_entities VALUES (?, ?) ON CONFLICT(entity_iri) DO UPDATE SET digest = excluded.digest",
                     [(iri, digests[iri]) for iri in sorted(moved)])
    conn.executemany("DELETE FROM analysed_entities WHERE entity_iri = ?", [(iri,) for iri in sorted(gone)])
    bump_counter(conn, DIGESTS_GENERATION)
    after = {iri: digest for iri, digest in stored.items() if iri not in gone}
    after.update((iri, digests[iri]) for iri in moved)
    return Recorded(read_counter(conn, DIGESTS_GENERATION), after)


def keep_recorded(conn: sqlite3.Connection, recorded: Recorded) -> None:
    """Keep a committed ``record_digests`` in this process for the next ``stored_digests`` (a rolled-back one
    must never be kept: its generation would be reused by the next writer)."""
    ledger_id = read_meta(conn, LEDGER_ID)
    if ledger_id is None:
        return
    _KEPT[ledger_id] = recorded
