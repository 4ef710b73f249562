"""Lookups the loaded retrieval index answers: each equals the plain loop it replaced."""

from __future__ import annotations

import numpy as np
import polars as pl

from engram_lab.index.retrieval_index import RetrievalData


def test_facts_of_a_subject_are_its_facts_ascending():
    rng = np.random.default_rng(3)
    data = object.__new__(RetrievalData)  # only the facts frame is read
    data.facts = pl.DataFrame({"s": rng.integers(0, 30, 500)})  # in no order, as a patch could leave them
    subjects = data.facts["s"].to_list()
    for entity in range(-1, 32):
        assert data.facts_of_subject(entity).tolist() == [f for f, s in enumerate(subjects) if s == entity]


def test_day_numbers_are_each_dates_ordinal_and_nan_where_none():
    import datetime as dt

    from engram_lab.index.retrieval_index import day_numbers

    dates = [dt.date(1, 1, 1), dt.date(1969, 12, 31), dt.date(1970, 1, 1), dt.date(2026, 12, 7), dt.date(9999, 12, 31), None]
    got = day_numbers(pl.Series(dates, dtype=pl.Date))
    assert np.array_equal(got, [np.nan if d is None else float(d.toordinal()) for d in dates], equal_nan=True)
    assert np.isnan(day_numbers(pl.Series([None, None]))).all()  # a column with no date at all (dtype Null)


def test_section_rows_are_the_rows_a_dictionary_of_every_chunk_gives():
    """Sorted by note, as every index is, they are found by binary search; in any other order, by the dictionary."""
    rng = np.random.default_rng(5)
    for size in (0, 1, 40, 600):
        docs = sorted(rng.choice(["a", "b", "é", "z/x", "n-1", "n-10", "n-2", "中"], size=size).tolist())
        ordinals = rng.integers(0, 3, size).tolist()
        keys = list(dict.fromkeys(zip(docs, ordinals, rng.integers(0, 2, size).tolist())))  # one row per key
        for order in ("sorted", "shuffled"):
            rows = keys if order == "sorted" else [keys[i] for i in rng.permutation(len(keys))]
            data = object.__new__(RetrievalData)  # only the sections frame is read
            data.sections = pl.DataFrame({"doc_id": [k[0] for k in rows], "ordinal": [k[1] for k in rows],
                                          "piece": [k[2] for k in rows]}, schema={"doc_id": pl.String, "ordinal": pl.Int64, "piece": pl.Int64})
            expected = {key: row for row, key in enumerate(rows)}
            probes = rows + [("a", 9, 0), ("q", 0, 0), ("", 0, 0)] + ([rows[0][:2] + (5,)] if rows else [])
            assert data.section_rows(probes) == [expected.get(key) for key in probes]
            assert data._sections_by_doc_id == (order == "sorted" or sorted(k[0] for k in rows) == [k[0] for k in rows])
