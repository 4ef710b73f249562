"""The collector runs rarely inside bulk work and the caller's thresholds come back, however the block ends."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

from engram_lab.collector import BULK_THRESHOLDS, fewer_collections


@pytest.fixture(autouse=True)
def known_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_thresholds_raised_inside_and_restored_after_nesting_and_errors():
    with fewer_collections():
        assert gc.get_threshold() == BULK_THRESHOLDS
        with fewer_collections():
            assert gc.get_threshold() == BULK_THRESHOLDS
        assert gc.get_threshold() == BULK_THRESHOLDS  # the inner block leaving does not end the outer one's setting
    assert gc.get_threshold() == (700, 10, 10)
    with pytest.raises(ValueError), fewer_collections():
        raise ValueError("a failed index run")
    assert gc.get_threshold() == (700, 10, 10)


def test_as_a_decorator_each_call_is_its_own_block():
    @fewer_collections()
    def work() -> tuple[int, int, int]:
        return gc.get_threshold()

    assert work() == BULK_THRESHOLDS and work() == BULK_THRESHOLDS
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_blocks_in_threads_restore_once_the_last_leaves():
    inside, release = threading.Event(), threading.Event()

    def search() -> None:
        with fewer_collections():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=search)
    thread.start()
    inside.wait(5)
    with fewer_collections():
        pass
    assert gc.get_threshold() == BULK_THRESHOLDS  # the search in the other thread is still running
    release.set()
    thread.join(5)
    assert gc.get_threshold() == (700, 10, 10)


def test_cycles_made_inside_are_still_collected():
    class Node:
        def __init__(self) -> None:
            self.me = self

    with fewer_collections():
        refs = [weakref.ref(Node()) for _ in range(1_000)]
    gc.collect()
    assert all(ref() is None for ref in refs)  # nothing was frozen out of the collector's reach
