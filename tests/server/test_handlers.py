"""The server's index job, without a server: the stage an index run is in is what the sidebar polls."""

from __future__ import annotations

import time

from engram_lab.engine import Engine
from engram_lab.index.progress import MATRICES
from engram_lab.server.handlers import IndexJob
from tests.retrieve.test_searcher import NOTES, BagOfWordsEmbedder


def test_the_index_job_names_its_stage_and_leaves_the_searcher_warm(vault, write):
    for name, text in NOTES.items():
        write(name, text)
    engine = Engine(vault, embedder_factory=BagOfWordsEmbedder)
    job = IndexJob()
    assert job.state["stage"] is None
    job.start(engine)
    deadline = time.monotonic() + 60
    while job.state["running"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.state["error"] is None and len(job.state["report"]["added"]) == len(NOTES)
    assert job.state["stage"] == MATRICES and job.state["done"] == job.state["total"]  # the last stage it went through
    assert engine.searcher.loaded_data is not None  # loaded by the job: the sidebar's first search loads nothing
