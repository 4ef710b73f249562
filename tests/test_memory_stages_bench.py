"""The per-stage memory benchmark names every stage of a cold index and reads a real high-water mark for each."""

from __future__ import annotations

import os
import sys

import numpy as np
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


def test_a_stage_does_not_inherit_the_peak_of_the_one_before():
    peaks = memory_stages.StagePeaks()
    peaks("big", 0, 1)
    buffer = np.ones(64 * 2**20 // 8)  # 64 MiB touched, then returned to the system
    del buffer
    peaks("small", 0, 1)
    peaks.stop()
    (_, big, _, _), (_, small, _, _) = peaks.rows[1:]
    assert big >= small + 48
