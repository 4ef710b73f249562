"""The scale runs' stand-in for the model: deterministic, unit length, wording-sensitive, never named as the model."""

from __future__ import annotations

import numpy as np

from benchmarks.hashed_embedder import HashedWords
from engram_lab.index.embeddings import DEFAULT_MODEL


def test_vectors_are_unit_length_and_the_same_in_every_instance():
    texts = ["Salinity near Port Kalo", "salinity NEAR port kalo!", "", "Nitrate at the Rumi Council"]
    first, again = HashedWords().encode(texts), HashedWords().encode(texts)
    assert first.shape == (4, HashedWords.dimension) and first.dtype == np.float32
    np.testing.assert_array_equal(first, again)
    assert np.allclose(np.linalg.norm(first[[0, 1, 3]], axis=1), 1.0) and not first[2].any()
    assert first[0] @ first[1] > 0.99 and abs(first[0] @ first[3]) < 0.6


def test_it_is_never_taken_for_the_model():
    assert HashedWords().name != DEFAULT_MODEL and HashedWords()() is not None
