"""The per-stage memory benchmark names every stage of a cold index and reads a real high-water mark for each."""

from __future__ import annotations

import mmap
import os
import sys

import pytest

from benchmarks import memory_stages

pytestmark = pytest.mark.skipif(not (memory_stages.CLEAR_REFS.exists() and os.access(memory_stages.CLEAR_REFS, os.W_OK)),
                                reason="needs a writable /proc/self/clear_refs (Linux)")


def test_each_stage_of_a_cold_index_gets_its_own_peak(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["memory_stages", "--dir", str(tmp_path), "--notes", "30"])
    memory_stages.main()
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and " MiB " in line]
    stages = [row[0].removeprefix("| ") for row in rows]
    assert stages[0] == "start" and "neighbours" in stages and any(s.startswith("analysis") for s in stages)
    peaks = [int(row[1].removesuffix(" MiB").replace(",", "")) for row in rows]
    ends = [int(row[2].removesuffix(" MiB").replace(",", "")) for row in rows]
    assert all(peak >= end > 0 for peak, end in zip(peaks, ends))  # a stage's peak is at least what it left resident
    assert len(list((tmp_path / "memory-vault-30").rglob("*.md"))) == 30


def _touch_and_return(size: int) -> None:
    """``size`` bytes of fresh pages made resident, then returned to the system. A mapping of its own, not an array:
    in a long test process the allocator may hand back pages it already holds (the full suite once saw no growth at
    all), and huge pages fault in so few times that the resident count need not move before they are unmapped."""
    buffer = mmap.mmap(-1, size)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        buffer.madvise(mmap.MADV_NOHUGEPAGE)
    for offset in range(0, size, mmap.PAGESIZE):
        buffer[offset] = 1
    buffer.close()


def test_a_stage_does_not_inherit_the_peak_of_the_one_before():
    peaks = memory_stages.StagePeaks()
    peaks("big", 0, 1)
    _touch_and_return(64 * 2**20)
    peaks("small", 0, 1)
    peaks.stop()
    (_, big, _, _), (_, small, _, _) = peaks.rows[1:]
    assert big >= small + 48
