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
