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

import polars as pl

from engram_lab.resolve.entities import EntityView
from engram_lab.resolve.evidence import Expansions

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
    keys = view.name_keys.forms
    short_forms = [short_form(k) for k in zip(*(keys[c].to_list() for c in ("short_acronym", "short_initials", "short_surname")))]
    writing = [expansions.notes_writing.get(form, 0) for form in expansions.forms]  # the typo rule reads how many notes write the spelling
    rows = view.frame.select("name", "kind", pl.col("labels").list.sort(), "doc_ids", "neighbour_iris",
                             pl.Series("short_forms", short_forms, dtype=pl.String), pl.Series("writing", writing, dtype=pl.Int64))
    hashes = rows.hash_rows(seed=DIGEST_SEED).to_list()
    return {iri: f"{h:016x}" for iri, h in zip(view.iris, hashes)}


def moved_entities(conn: sqlite3.Connection, digests: dict[str, str]) -> tuple[set[str], set[str]]:
    """Entities new or changed since the last analysis recorded its digests, and entities gone since."""
    stored = dict(conn.execute("SELECT entity_iri, digest FROM analysed_entities").fetchall())
    return {iri for iri, digest in digests.items() if stored.get(iri) != digest}, set(stored) - set(digests)


def record_digests(conn: sqlite3.Connection, digests: dict[str, str], moved: set[str], gone: set[str]) -> None:
    """Remember what this analysis saw (inside the caller's transaction, with the judgments it made)."""
    conn.executemany("INSERT INTO analysed_entities VALUES (?, ?) ON CONFLICT(entity_iri) DO UPDATE SET digest = excluded.digest",
                     [(iri, digests[iri]) for iri in sorted(moved)])
    conn.executemany("DELETE FROM analysed_entities WHERE entity_iri = ?", [(iri,) for iri in sorted(gone)])
