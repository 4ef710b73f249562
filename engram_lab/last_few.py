"""The last few values a long-lived process set, by key: what it keeps per vault, ledger or index folder.

A kernel or the server works on one vault at a time, sometimes a couple; a store that
grew with every vault a process ever touched would hold tables it will not read again.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LastFew(Generic[K, V]):
    """A mapping of at most ``size`` keys: setting one makes it the newest, and the oldest set goes."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __setitem__(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


R = TypeVar("R")


def kept_for_last(func: Callable[[K], R]) -> Callable[[K], R]:
    """``func`` remembered for the last argument it was given, by identity: for values derived from an object a
    process hands out again while its source has not moved (the decisions tuple, the resolution state), so the
    next edit or search reuses what the last one derived. Callers must not change what they get."""
    last: list[tuple[K, R] | None] = [None]  # the pair is read and replaced whole: two threads never see a torn one

    @functools.wraps(func)
    def kept(argument: K) -> R:
        pair = last[0]
        if pair is not None and pair[0] is argument:
            return pair[1]
        value = func(argument)
        last[0] = (argument, value)
        return value

    return kept
