"""Neighbour lists that name vector-store slots, patched and saved as a shared base and a small delta.

Lists that name rows (``neighbour_lists``) change wherever rows shift, and an edit shifts most of them (an entity
inserted in IRI order moves every later one): at 100,000 notes each edit gathered, remapped and wrote all 580,000
entity and 700,000 fact lists again (250 MB, about a second). A vector's slot in its store (``row_vectors``) never
moves, so lists that name slots change only where the edit changes them: the lists of new vectors, of those that
lost an entry to a removed vector, and of those a new vector enters. Those go to a delta; the rest stay in a base
that index folders share by hard link, until the delta outgrows its share of the base and a save writes a new one.

The patch follows ``neighbour_lists``'s rules (a list that loses rows keeps the rest until it falls below the depth
its readers need; a list shorter than its width whose last cosine reaches the floor is recomputed), so densities of
up to ``depth`` rows and pairs above the floor equal a fresh build's.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from engram_lab.index.neighbour_lists import BATCH, RECOMPUTE_BYTES, ROW, NeighbourLists, best_first
from engram_lab.index.row_vectors import RowVectors
from engram_lab.retrieve.csls import DEFAULT_K

DELTA_SHARE = 8  # a save writes a new base once the delta holds more lists than the base's rows over this
DELTA_FLOOR = 4096  # lists a delta may always hold, so small indexes do not write a base per edit
_SUMMARISING = threading.Lock()


def _padded(rows: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` empty lists ``k`` wide: (indices of -1, cosines of -inf)."""
    return np.full((rows, k), -1, dtype=ROW), np.full((rows, k), -np.inf, dtype=np.float32)


class ListSummary(NamedTuple):
    """Per slot: how many entries its list holds, its last cosine (-inf when empty) and its density (mean of the
    first ``DEFAULT_K`` cosines, 0 when empty). A patch reads these for every slot; carried from patch to patch,
    they are computed from the lists once per process."""

    count: np.ndarray  # int32
    last: np.ndarray  # float32
    density: np.ndarray  # float32


_FILLS = (0, -np.inf, 0.0)  # an empty list's count, last cosine and density


def _resized(summary: ListSummary, size: int) -> ListSummary:
    """``summary`` over ``size`` slots (new arrays): cut, or padded as empty lists."""
    return ListSummary(*(_extended(part, size, fill) for part, fill in zip(summary, _FILLS)))


def summarise(indices: np.ndarray, cosines: np.ndarray) -> ListSummary:
    """The summary of these lists, one row each."""
    count = (indices >= 0).sum(axis=1).astype(np.int32)
    last = np.take_along_axis(cosines, np.maximum(count - 1, 0)[:, None].astype(np.int64), 1)[:, 0]
    last = np.where(count > 0, last, -np.inf).astype(np.float32)
    return ListSummary(count, last, NeighbourLists(indices, cosines).densities())


@dataclass(frozen=True)
class SlotLists:
    """Slot s's nearest other live slots, best first (``-1`` / ``-inf`` padded): the delta's list where the delta
    holds s, else row s of the base. Every live slot has a list; a removed slot's is stale and never read."""

    base_indices: np.ndarray  # (B, k) ROW: slots
    base_cosines: np.ndarray  # (B, k) float32
    delta_slots: np.ndarray  # (D,) int64, sorted: the slots whose list the delta holds (all live slots from B on)
    delta_indices: np.ndarray  # (D, k)
    delta_cosines: np.ndarray  # (D, k)
    slots: int  # store slots these lists cover
    base_source: Path | None = None  # the folder whose base files hold the base (a save links them)
    _summary: list[ListSummary] = field(default_factory=list, compare=False, repr=False)  # computed once, when asked

    @classmethod
    def whole(cls, indices: np.ndarray, cosines: np.ndarray, source: Path | None = None) -> SlotLists:
        """Lists held whole in a base (slot i's list is row i)."""
        k = indices.shape[1]
        return cls(indices, cosines, np.zeros(0, dtype=np.int64), np.zeros((0, k), dtype=ROW),
                   np.zeros((0, k), dtype=np.float32), int(indices.shape[0]), source)

    @classmethod
    def of_rows(cls, lists: NeighbourLists, rows: np.ndarray, slots: int) -> SlotLists:
        """Lists over logical rows (row i's vector at slot ``rows[i]``) as lists over ``slots`` store slots."""
        indices, cosines = _padded(slots, lists.k)
        row_indices = np.asarray(lists.indices)
        indices[rows] = np.where(row_indices >= 0, rows[np.maximum(row_indices, 0)], -1)
        cosines[rows] = lists.cosines
        return cls.whole(indices, cosines)

    @property
    def k(self) -> int:
        return int(self.base_indices.shape[1])

    def as_slots(self) -> SlotLists:
        return self

    @property
    def summary(self) -> ListSummary:
        with _SUMMARISING:  # once, whichever thread asks first (a search's thread may ask beside an edit's)
            return self._summarised()

    def _summarised(self) -> ListSummary:
        if not self._summary:
            count, last, density = _resized(summarise(np.asarray(self.base_indices), np.asarray(self.base_cosines)), self.slots)
            delta = summarise(self.delta_indices, self.delta_cosines)
            count[self.delta_slots], last[self.delta_slots], density[self.delta_slots] = delta
            self._summary.append(ListSummary(count, last, density))
        return self._summary[0]

    def lists(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lists of ``slots`` (copies): (indices, cosines), one row per slot; padding for a slot with none (one
        appended and removed since the base was written)."""
        slots = np.asarray(slots, dtype=np.int64)
        held, at = _found_in(self.delta_slots, slots)
        from_base = ~held & (slots < self.base_indices.shape[0])
        indices, cosines = _padded(slots.size, self.k)
        indices[from_base], cosines[from_base] = self.base_indices[slots[from_base]], self.base_cosines[slots[from_base]]
        indices[held], cosines[held] = self.delta_indices[at[held]], self.delta_cosines[at[held]]
        return indices, cosines

    def in_delta(self, slots: np.ndarray) -> np.ndarray:
        return _found_in(self.delta_slots, slots)[0]

    def rows_view(self, rows: np.ndarray) -> RowLists:
        """These lists as row ``i``'s (its vector at slot ``rows[i]``), naming rows."""
        slot_row = np.full(self.slots + 1, -1, dtype=np.int64)  # the extra last entry maps padding (-1) to -1
        slot_row[rows] = np.arange(rows.size)
        return RowLists(self, np.asarray(rows, dtype=np.int64), slot_row)

    def densities(self, rows: np.ndarray) -> np.ndarray:
        """Row i's density (its slot ``rows[i]``'s)."""
        return self.summary.density[rows]

    def widened(self, k: int) -> SlotLists:
        """The same lists ``k`` wide (padding after): an index built with shallower lists, patched wider."""
        if k <= self.k:
            return self
        indices, cosines = _padded(self.slots, k)
        indices[:, : self.k], cosines[:, : self.k] = self.lists(np.arange(self.slots))
        return SlotLists.whole(indices, cosines)


@dataclass(frozen=True)
class RowListsOnDisk:
    """Lists over rows, as a folder of format 15 holds them (memory-mapped), made lists over slots only when a
    patch asks: a search never reads them, and converting every list took each new process ~0.5 s at 100,000 notes."""

    lists: NeighbourLists
    rows: np.ndarray  # row -> slot
    slots: int

    def as_slots(self) -> SlotLists:
        return SlotLists.of_rows(self.lists, self.rows, self.slots)


@dataclass(frozen=True)
class RowLists:
    """Slot lists read by logical row (``SlotLists.rows_view``)."""

    lists: SlotLists
    rows: np.ndarray  # row -> slot
    slot_row: np.ndarray  # slot -> row (-1: none), one entry past the slots for padding

    def of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The lists of ``rows``, naming rows: (indices, cosines)."""
        indices, cosines = self.lists.lists(self.rows[rows])
        return self.slot_row[indices].astype(ROW), cosines

    def whole(self) -> NeighbourLists:
        return NeighbourLists(*self.of(np.arange(self.rows.size)))


def _found_in(sorted_slots: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per slot, whether ``sorted_slots`` holds it, and where (meaningful where it does)."""
    at = np.minimum(np.searchsorted(sorted_slots, slots), max(sorted_slots.size - 1, 0))
    held = sorted_slots[at] == slots if sorted_slots.size else np.zeros(np.shape(slots), dtype=bool)
    return held, at


def _extended(values: np.ndarray, size: int, fill: float) -> np.ndarray:
    out = np.full(size, fill, dtype=values.dtype)
    out[: min(size, values.size)] = values[:size]
    return out


class Patch(NamedTuple):
    lists: SlotLists
    changed: np.ndarray  # the slots whose list the patch made or changed (sorted)


def patch_slot_lists(old: SlotLists, old_rows: np.ndarray, vectors: RowVectors, depth: int | None = None,
                     floor: float | None = None, k: int | None = None) -> Patch:
    """The lists over ``vectors`` (the old store's slots, and the slots appended after them), patched from ``old``
    (the lists when ``old_rows`` were the live slots), with the slots whose lists it changed.

    A new slot's list is computed against every live slot; a kept slot's list loses the slots removed and gains
    the new slots nearer than its last entry (one product of the store with the new vectors finds them). ``k``: the
    lists' width (at least ``old.k``, the default; wider, the old entries are kept and the rest is padding). Each
    list holds the nearest other live slots, best first: as many as a build would (up to the order of equal
    cosines), or fewer, but at least ``depth`` (default ``k``) unless fewer other slots are live; a shorter list is
    recomputed. ``floor``: a list shorter than ``k`` whose last cosine reaches it is recomputed too, since pairs at
    or above the floor may lie past its end; so densities of up to ``depth`` rows and pairs above ``floor`` equal a
    build's."""
    old = old.widened(max(old.k, k or 0))
    k = old.k
    depth = k if depth is None else min(depth, k)
    total, before = vectors.stored, old.slots
    live = np.zeros(total + 1, dtype=bool)  # the extra last entry: padding (-1) is never live
    live[vectors.rows] = True
    was = np.zeros(before + 1, dtype=bool)
    was[old_rows] = True
    kept = np.flatnonzero(was[:before] & live[:before])
    dead = np.flatnonzero(was[:before] & ~live[:before])
    added = np.flatnonzero(live[before:total]) + before
    count, last, density = _resized(old.summary, total)
    made: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # what changed, by how: slots, indices, cosines

    if dead.size:  # what is left of a list that held a removed slot, moved up: still the nearest, only fewer
        gone = np.zeros(before + 1, dtype=bool)
        gone[dead] = True
        in_base = np.flatnonzero(gone[old.base_indices].any(axis=1))
        hit = np.union1d(in_base[~old.in_delta(in_base)], old.delta_slots[gone[old.delta_indices].any(axis=1)])
        lost = hit[was[hit] & live[hit]]
        indices, cosines = old.lists(lost)
        cosines = np.where(gone[indices], -np.inf, cosines)
        left = best_first(np.where(gone[indices], -1, indices), cosines, k)
        made["lost"] = (lost, left.indices, left.cosines)
        count[lost], last[lost], density[lost] = summarise(left.indices, left.cosines)

    short = count[kept] < depth
    if floor is not None:
        short |= (count[kept] < k) & (last[kept] >= floor)
    if added.size and kept.size:  # a new slot enters a list only above its last entry
        sims = vectors.store_product(vectors.at_slots(added).T)[kept]
        gains = np.flatnonzero((sims > last[kept][:, None]).any(axis=1) & ~short)
        if gains.size:
            slots = kept[gains]
            indices, cosines = _current(old, made.get("lost"), slots)
            entering = np.where(sims[gains] > last[slots][:, None], sims[gains], -np.inf)
            merged = best_first(np.hstack([indices, np.broadcast_to(added.astype(ROW), (slots.size, added.size))]),
                                np.hstack([cosines, entering.astype(np.float32)]), k)
            made["gained"] = (slots, merged.indices, merged.cosines)
    redo = np.union1d(added, kept[short])
    if redo.size:
        indices, cosines = np.empty((redo.size, k), dtype=ROW), np.empty((redo.size, k), dtype=np.float32)
        batch = max(1, min(BATCH, RECOMPUTE_BYTES // (8 * max(total, 1))))
        for start in range(0, redo.size, batch):
            part = _full_slots(vectors, redo[start : start + batch], live[:total], k)
            indices[start : start + batch], cosines[start : start + batch] = part.indices, part.cosines
        made["redone"] = (redo, indices, cosines)

    changed, indices, cosines = _latest(list(made.values()), k)
    count[changed], last[changed], density[changed] = summarise(indices, cosines)
    stay = old.delta_slots[live[old.delta_slots] & ~np.isin(old.delta_slots, changed)]
    at = np.searchsorted(old.delta_slots, stay)
    delta_slots = np.concatenate([stay, changed])
    order = np.argsort(delta_slots, kind="stable")
    lists = SlotLists(old.base_indices, old.base_cosines, delta_slots[order],
                      np.concatenate([old.delta_indices[at], indices])[order],
                      np.concatenate([old.delta_cosines[at], cosines])[order], total, old.base_source,
                      [ListSummary(count, last, density)])
    return Patch(lists, changed)


def _current(old: SlotLists, lost: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
             slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lists of ``slots`` as they stand after removals (``lost``'s, where it made one), else ``old``'s."""
    indices, cosines = old.lists(slots)
    if lost is not None:
        hit, at = _found_in(lost[0], slots)
        indices[hit], cosines[hit] = lost[1][at[hit]], lost[2][at[hit]]
    return indices, cosines


def _latest(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every slot the parts name once, sorted, with the list of the last part naming it."""
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros((0, k), dtype=ROW), np.zeros((0, k), dtype=np.float32)
    slots = np.concatenate([part[0] for part in parts])
    indices = np.concatenate([part[1] for part in parts])
    cosines = np.concatenate([part[2] for part in parts])
    order = np.lexsort((-np.arange(slots.size), slots))  # by slot, the latest part first
    slots, indices, cosines = slots[order], indices[order], cosines[order]
    first = np.ones(slots.size, dtype=bool)
    first[1:] = slots[1:] != slots[:-1]
    return slots[first].astype(np.int64), indices[first], cosines[first]


def _full_slots(vectors: RowVectors, slots: np.ndarray, live: np.ndarray, k: int) -> NeighbourLists:
    """The lists of ``slots`` against every live slot (their own excluded)."""
    sims = np.ascontiguousarray(vectors.store_product(vectors.at_slots(slots).T).T, dtype=np.float32)
    sims[:, ~live] = -np.inf
    sims[np.arange(slots.size), slots] = -np.inf
    candidates = np.broadcast_to(np.arange(sims.shape[1], dtype=ROW), sims.shape)
    return best_first(candidates, sims, k)


_BASE = ("base.indices", "base.cosines")
_DELTA = ("delta.slots", "delta.indices", "delta.cosines")


def moved_slots(before: RowVectors, after: RowVectors) -> np.ndarray | None:
    """Where saving vectors moved their live store slots (old slot -> new, -1 for a dead one), None if nowhere (rows
    another writer appended past them move none): a save that compacts the store, or appends past such rows,
    renumbers them."""
    if np.array_equal(after.rows, before.rows):
        return None
    moved = np.full(before.stored, -1, dtype=np.int64)
    moved[before.rows] = after.rows
    return moved


def save_slot_lists(lists: SlotLists, folder: Path, name: str, moved: np.ndarray | None, slots: int) -> SlotLists:
    """Write ``lists`` as ``name`` in ``folder`` and return them as read back from there. ``moved``: where a save of
    the vectors moved the slots (``moved_slots``), None when they stayed; ``slots``: the store's slots after it. The
    base is linked from the folder that holds it and the delta written, unless the delta outgrew its share, there
    is no base on disk, linking fails or the base's own slots moved (the store compacted): a new base is then
    written whole. Slots appended past another writer's rows move only past the base, so only the delta follows."""
    base = int(lists.base_indices.shape[0])
    share = max(base // DELTA_SHARE, DELTA_FLOOR)
    base_stays = slots >= base and (moved is None or _fixed_below(moved, base))  # fewer slots: the store compacted
    if base_stays and lists.base_source is not None and lists.delta_slots.size <= share and _linked(lists.base_source, folder, name):
        kept = lists if moved is None else _delta_moved(lists, moved, slots)
        for part, array in zip(_DELTA, (kept.delta_slots, kept.delta_indices, kept.delta_cosines)):
            np.save(folder / f"{name}.{part}.npy", array)
        return replace(kept, base_source=folder, slots=slots)
    every = np.arange(lists.slots)
    indices, cosines = lists.lists(every)
    if moved is None:  # the same slots, in a store that grew (rows another writer appended) or lost dead rows
        moved = np.where(every < slots, every, -1)
    indices, cosines, summary = _moved(indices, cosines, lists.summary, moved, slots)
    for part, array in zip(_BASE, (indices, cosines)):
        np.save(folder / f"{name}.{part}.npy", array)
    for part, array in zip(_DELTA, (np.zeros(0, dtype=np.int64), indices[:0], cosines[:0])):
        np.save(folder / f"{name}.{part}.npy", array)
    saved = load_slot_lists(folder, name, slots)
    saved._summary.append(summary)
    return saved


def _fixed_below(moved: np.ndarray, base: int) -> bool:
    """Whether ``moved`` leaves every live slot below ``base`` where it was."""
    head = moved[:base]
    return bool(((head == np.arange(head.size)) | (head < 0)).all())


def _delta_moved(lists: SlotLists, moved: np.ndarray, slots: int) -> SlotLists:
    """``lists`` with their delta renumbered by ``moved`` (which leaves the base's slots where they were)."""
    mapping = np.append(moved, -1)  # padding maps to padding
    live = moved[lists.delta_slots] >= 0
    delta_slots = moved[lists.delta_slots[live]]
    order = np.argsort(delta_slots, kind="stable")
    return SlotLists(lists.base_indices, lists.base_cosines, delta_slots[order], mapping[lists.delta_indices[live]][order].astype(ROW),
                     lists.delta_cosines[live][order], slots, lists.base_source, [_moved_summary(lists.summary, moved, slots)])


def _moved(indices: np.ndarray, cosines: np.ndarray, summary: ListSummary, moved: np.ndarray,
           slots: int) -> tuple[np.ndarray, np.ndarray, ListSummary]:
    """Lists over the old slots (one row each) as lists over ``slots`` new ones (``moved``: old -> new, -1 for a
    slot that went)."""
    mapping = np.append(moved, -1)  # padding maps to padding
    old = np.flatnonzero(moved >= 0)
    out_indices, out_cosines = _padded(slots, indices.shape[1])
    out_indices[moved[old]], out_cosines[moved[old]] = mapping[indices[old]], cosines[old]
    return out_indices, out_cosines, _moved_summary(summary, moved, slots)


def _moved_summary(summary: ListSummary, moved: np.ndarray, slots: int) -> ListSummary:
    old = np.flatnonzero(moved >= 0)
    parts = _resized(ListSummary(*(part[:0] for part in summary)), slots)
    for part, values in zip(parts, summary):
        part[moved[old]] = values[old]
    return parts


def load_slot_lists(folder: Path, name: str, slots: int) -> SlotLists:
    """``name``'s lists over ``slots`` store slots as ``save_slot_lists`` left them in ``folder``: the base
    memory-mapped, the delta read."""
    base = [np.load(folder / f"{name}.{part}.npy", mmap_mode="r") for part in _BASE]
    delta = [np.load(folder / f"{name}.{part}.npy") for part in _DELTA]
    return SlotLists(base[0], base[1], delta[0].astype(np.int64), *delta[1:], slots=slots, base_source=folder)


def has_slot_lists(folder: Path, name: str) -> bool:
    return (folder / f"{name}.{_BASE[0]}.npy").exists()


def _linked(source: Path, folder: Path, name: str) -> bool:
    """Hard-link ``source``'s base files of ``name`` into ``folder``; False where the file system will not."""
    try:
        for part in _BASE:
            os.link(source / f"{name}.{part}.npy", folder / f"{name}.{part}.npy")
    except OSError:
        for part in _BASE:
            (folder / f"{name}.{part}.npy").unlink(missing_ok=True)
        return False
    return True
