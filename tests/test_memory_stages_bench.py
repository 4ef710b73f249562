"""The per-stage memory benchmark names every stage of a cold index and reads a real high-water mark for each."""

from __future__ import annotations

import sys

import pytest

from benchmarks import memory_stages

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")


def test_each_stage_of_a_cold_index_gets_its_own_peak(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["memory_stages", "--dir", str(tmp_path), "--notes", "30"])
    memory_stages.main()
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and " MB " in line]
    stages = [row[0].removeprefix("| ") for row in rows]
    assert stages[0] == "start" and "neighbours" in stages and any(s.startswith("analysis") for s in stages)
    peaks = [int(row[1].removesuffix(" MB").replace(",", "")) for row in rows]
    ends = [int(row[2].removesuffix(" MB").replace(",", "")) for row in rows]
    assert all(peak >= end > 0 for peak, end in zip(peaks, ends))  # a stage's peak is at least what it left resident
    assert len(list((tmp_path / "memory-vault").rglob("*.md"))) == 30
