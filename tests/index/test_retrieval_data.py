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
