"""``status``: counts, stale notes, new and deleted files, failures with reasons."""

from __future__ import annotations

import os
import time

from engram_lab.indexer import index_vault
from engram_lab.status import vault_status


def test_status_reports_stale_new_deleted_and_failed(vault, write):
    edited = write("edited.md", "# E\none")
    write("gone.md", "# G")
    write("bad.md", b"\xff\xfe broken")
    index_vault(vault, progress=False)
    edited.write_text("# E\ntwo")
    stamp = time.time_ns() + 5_000_000_000
    os.utime(edited, ns=(stamp, stamp))
    (vault / "gone.md").unlink()
    write("fresh.md", "# F")

    report = vault_status(vault)
    assert report.stale == ["edited.md"]
    assert report.new == ["fresh.md"]
    assert report.deleted == ["gone.md"]
    assert [p for p, _ in report.failed] == ["bad.md"] and "not valid UTF-8" in report.failed[0][1]
    assert report.counts == {"indexed": 1, "stale": 1, "failed": 1, "pending-review": 0}

    index_vault(vault, progress=False)
    after = vault_status(vault)
    assert (after.stale, after.new, after.deleted) == ([], [], [])
    assert after.counts["indexed"] == 2 and after.total == 3
