"""One page of a review queue: a real vault puts hundreds of pairs up for review, and a panel that
draws them all at once is thousands of pixels tall. Paging is a pure function of the ordered queue,
so the panel, the CLI and the tests page the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from engram_lab.errors import EngramError

T = TypeVar("T")
DEFAULT_PAGE_SIZE = 20


@dataclass(frozen=True)
class QueuePage(Generic[T]):
    items: list[T]
    page: int  # 1-based
    pages: int  # at least 1, even for an empty queue
    size: int
    total: int

    @property
    def first(self) -> int:
        """The 1-based position of the page's first item in the queue (0 when the queue is empty)."""
        return (self.page - 1) * self.size + 1 if self.items else 0

    @property
    def last(self) -> int:
        return self.first + len(self.items) - 1 if self.items else 0


def page_count(total: int, size: int) -> int:
    return max(1, -(-total // size))


def page_of(items: Sequence[T], page: int, size: int = DEFAULT_PAGE_SIZE) -> QueuePage[T]:
    """Page ``page`` (from 1) of ``items`` in ``size`` rows; a page outside the queue is a one-line error."""
    if size < 1:
        raise EngramError(f"a page holds at least one pair, got a page size of {size}")
    pages = page_count(len(items), size)
    if not 1 <= page <= pages:
        raise EngramError(f"no page {page}: the queue has {len(items)} pairs, {pages} page{'s' if pages != 1 else ''} of {size}")
    start = (page - 1) * size
    return QueuePage(list(items[start:start + size]), page, pages, size, len(items))


def clamp_page(page: int, total: int, size: int) -> int:
    """The page to show after the queue shrank or grew under the reader (a judgment, a dismissal, an undo)."""
    return min(max(page, 1), page_count(total, size))
