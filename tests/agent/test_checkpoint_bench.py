"""The checkpoint benchmark measures what it says: every timed write really lands, with one checkpoint each."""

from __future__ import annotations

from benchmarks.checkpoint_bench import measure, note_text, report


def test_each_timed_write_lands_and_is_checkpointed(tmp_path):
    row = measure(tmp_path, 1, 3)
    assert len(row["bare"]) == len(row["checked"]) == 3
    for vault in ("bare-1", "checked-1"):
        assert (tmp_path / vault / "stations.md").read_bytes() == note_text(1, 3)
    assert row["blob_bytes"] >= 3 * len(note_text(1, 1))  # each write stored the previous, distinct bytes
    table = report([row], 3)
    assert "| 1 KiB |" in table and table.count("\n") == 4
