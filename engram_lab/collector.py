"""Python's cyclic garbage collector, made to run rarely during bulk work.

An index run or a search allocates millions of small objects that reference counting frees (names, tuples, sets,
Python lists of table columns), and a long-lived process (a kernel, the server) holds millions more in its caches
and loaded indexes. CPython counts allocations and, every so often, walks every tracked object looking for cycles:
on the 10,000-note benchmark those walks were about 30 % of an edit's index run (9.0 s -> 6.5 s with them made
rare, the same as with the collector off; BENCHMARKS.md). Inside ``fewer_collections`` the young generations are
still collected, only less often, so a long run does not pile up cyclic garbage; the oldest generation waits until
the block ends, when the caller's thresholds come back.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

BULK_THRESHOLDS = (100_000, 50, 1_000)  # allocations before a young collection; young ones before the next; ...
_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect rarely inside the block; nested and concurrent blocks share one setting, restored by the last to leave."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(*BULK_THRESHOLDS)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                _saved = None
