"""The retrieval index patched after random edits, deletions and renames equals one rebuilt from nothing:
chunk rows, vectors, densities, synonym pairs, entities, facts, edges and the walk's matrix."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from engram_lab.index import retrieval_index
from engram_lab.index.recent import forget
from engram_lab.index.retrieval_index import RETRIEVAL_INDEX, SortedPositions, labels_of, load, published_retrieval_index, refresh_retrieval_index
from engram_lab.index.slot_lists import RowListsOnDisk
from engram_lab.indexer import index_vault
from engram_lab.retrieve.graph import adjacency
from engram_lab.retrieve.settings import RetrievalSettings
from tests.index.test_bm25 import rebuilt_beside
from tests.index.vault_edits import random_change, seed_vault
from tests.retrieve.test_searcher import BagOfWordsEmbedder

FRAMES = ("documents", "sections", "entities", "facts", "edges", "synonym_pairs")
ARRAYS = ("section_vectors", "section_density", "entity_vectors", "entity_density", "fact_vectors", "fact_density")


def assert_same_index(patched: retrieval_index.RetrievalData, rebuilt: retrieval_index.RetrievalData, history: list[str]) -> None:
    for name in FRAMES:
        assert_frame_equal(getattr(patched, name), getattr(rebuilt, name), check_exact=False, rel_tol=1e-5)
    for name in ARRAYS:
        np.testing.assert_allclose(getattr(patched, name), getattr(rebuilt, name), rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} after {history}")
    assert isinstance(patched.entity_position, SortedPositions)  # entities stay sorted by IRI: looked up by bisection
    assert patched.entity_labels().equals(labels_of(patched.entities["name"]))  # as kept from patch to patch
    edges = RetrievalSettings().edges
    difference = adjacency(patched, edges, 0.5) - adjacency(rebuilt, edges, 0.5)
    assert difference.nnz == 0 or abs(difference).max() < 1e-5, history


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_a_patched_retrieval_index_equals_a_rebuilt_one(vault, monkeypatch, seed):
    rng = random.Random(seed)
    seed_vault(vault, rng, notes=10)
    index_vault(vault, progress=False)
    embedder = BagOfWordsEmbedder()
    refresh_retrieval_index(vault, embedder)
    building = {"allowed": False}
    build = retrieval_index.build_neighbour_lists

    def guarded(*args, **kwargs):  # type: ignore[no-untyped-def]
        assert building["allowed"], "neighbours rebuilt, not patched"
        return build(*args, **kwargs)

    monkeypatch.setattr(retrieval_index, "build_neighbour_lists", guarded)
    history: list[str] = []
    for _ in range(6):
        history.append(random_change(vault, rng))
        index_vault(vault, progress=False)
        patched_folder = refresh_retrieval_index(vault, embedder)
        building["allowed"] = True
        rebuilt_folder = rebuilt_beside(vault, RETRIEVAL_INDEX, lambda v: refresh_retrieval_index(v, embedder))
        building["allowed"] = False
        assert_same_index(load(patched_folder), load(rebuilt_folder), history)  # as this process built them
        forget()
        patched, rebuilt = load(patched_folder), load(rebuilt_folder)  # as a new process reads them
        assert_same_index(patched, rebuilt, history)


KILLED_MID_PATCH = """
import os, sys
from pathlib import Path
import numpy as np
from engram_lab.index import retrieval_index
from tests.retrieve.test_searcher import BagOfWordsEmbedder
written = []
real_save = np.save
def save_then_die(path, array, *args, **kwargs):
    real_save(path, array, *args, **kwargs)
    written.append(path)
    if len(written) == 3:  # part of the new folder on disk, the pointer not yet moved: as a kill would leave it
        os._exit(9)
retrieval_index.np.save = save_then_die
retrieval_index.refresh_retrieval_index(Path(sys.argv[1]), BagOfWordsEmbedder())
"""


def test_a_patch_killed_midway_leaves_the_last_published_index_in_service(vault):
    rng = random.Random(7)
    seed_vault(vault, rng)
    index_vault(vault, progress=False)
    embedder = BagOfWordsEmbedder()
    before = refresh_retrieval_index(vault, embedder)
    random_change(vault, rng)
    index_vault(vault, progress=False)
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_PATCH, str(vault)], cwd=Path(__file__).parents[2])
    assert killed.returncode == 9
    forget()
    assert published_retrieval_index(vault) == before
    load(before)  # whole and readable
    patched = load(refresh_retrieval_index(vault, embedder))  # the next run patches from it
    forget()
    rebuilt = load(rebuilt_beside(vault, RETRIEVAL_INDEX, lambda v: refresh_retrieval_index(v, embedder)))
    assert_same_index(patched, rebuilt, ["killed mid-patch"])


def test_an_index_saved_with_string_edge_types_loads_with_the_enum(vault):
    """Folders written before the edge types were an Enum are read, not rebuilt."""
    seed_vault(vault, random.Random(3), notes=4)
    index_vault(vault, progress=False)
    folder = refresh_retrieval_index(vault, BagOfWordsEmbedder())
    current = load(folder)
    current.edges.cast({"type": pl.String}).write_parquet(folder / "edges.parquet")
    forget()
    assert_frame_equal(load(folder).edges, current.edges)


def test_an_index_of_format_15_with_lists_over_rows_is_read_and_patched(vault, monkeypatch):
    """Folders written before the lists named store slots hold them over rows: read as lists over slots, not rebuilt."""
    rng = random.Random(8)
    seed_vault(vault, rng, notes=8)
    index_vault(vault, progress=False)
    embedder = BagOfWordsEmbedder()
    folder = refresh_retrieval_index(vault, embedder)
    data = load(folder)
    for kind in ("section", "entity", "fact"):
        rows = getattr(data, f"{kind}_lists").rows_view(getattr(data, f"{kind}_vectors").rows).whole()
        np.save(folder / f"{kind}_lists.indices.npy", rows.indices)
        np.save(folder / f"{kind}_lists.cosines.npy", rows.cosines)
        for old in folder.glob(f"{kind}_lists.base.*"):
            old.unlink()
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps(meta | {"format": 15}))
    forget()
    assert isinstance(load(folder).entity_lists, RowListsOnDisk)  # a search's load maps them, converts nothing
    history = [random_change(vault, rng), random_change(vault, rng)]
    index_vault(vault, progress=False)
    with monkeypatch.context() as guard:
        guard.setattr(retrieval_index, "build_neighbour_lists", lambda *a, **k: pytest.fail("neighbours rebuilt, not patched"))
        patched = load(refresh_retrieval_index(vault, embedder))
    rebuilt = load(rebuilt_beside(vault, RETRIEVAL_INDEX, lambda v: refresh_retrieval_index(v, embedder)))
    assert_same_index(patched, rebuilt, history)


def test_synonym_pairs_read_back_exactly_as_built(vault):
    """Written as int32 rows and float32 cosines (each a float32 list entry's), read back as int64 and float64."""
    seed_vault(vault, random.Random(9), notes=8)
    index_vault(vault, progress=False)
    folder = refresh_retrieval_index(vault, BagOfWordsEmbedder())
    built = load(folder).synonym_pairs
    forget()
    assert built.height > 0
    assert_frame_equal(load(folder).synonym_pairs, built, check_exact=True)
